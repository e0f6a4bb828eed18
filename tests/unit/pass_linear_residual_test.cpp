// The residual Add of `linear-pack-fuse` (optimized/passes/linear_pack_fuse.cpp, docs/design.md
// "Residual Add"): a MatMul or Gemm with a constant B, then optionally a constant bias Add, then an
// Add of another float32 value R (either operand order), then optionally an activation, becomes one
// LinearOp whose tile epilogue adds R after the bias and before the activation. The pass claims to
// preserve bits, so:
//  - the transformer shapes (3-D A, Linear weights as MatMul B; K across a 256-row block, N with
//    ragged strips), with no activation, Relu or a SiLU, Add(y, r) and Add(r, y), the bias Add in
//    either order, a Gemm (transB, C) and a product without bias, and R = A itself (x + Linear(x)):
//    one node in both modes, whose outputs equal bit for bit the reference engine's and the unfused
//    optimized graph's (level None) in exact mode, and the unfused graph's in fast mode, on every
//    kernel path at 1 and 2 threads, with NaN payloads, infinities, signed zeros and subnormals in
//    A and R;
//  - R made after the product in the node list (the fused node takes the Add's place);
//  - a residual that broadcasts (a row vector given at run time, fewer leading axes, more leading
//    axes than the product) still fuses, since the pass sees no shapes, and gives the separate
//    nodes' shape and bits through the fallback;
//  - near misses are left alone: the bias sum also a graph output or read twice, Add(y, y), an Add
//    of a constant that is not a bias vector.
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "diff/graph_builder.hpp"
#include "onemodel/session.hpp"
#include "optimized/frame/isa.hpp"
#include "optimized/frame/thread_pool.hpp"
#include "optimized/runtime/compiled_graph.hpp"
#include "tests/support/compiled_kernels.hpp"
#include "tests/support/ir_builder.hpp"
#include "tests/support/pass_bits.hpp"
#include "tests/support/session_runs.hpp"

namespace onemodel {
namespace {

using graph_builder::GraphBuilder;
using ir_builder::int_attr;

using test::pass_bits::bits_everywhere;
using test::pass_bits::compiled;
using test::pass_bits::difference;
using test::pass_bits::fused_nodes;

// pass_bits' inputs with the corners of HardSwish (-3, 3) and the exponentials' overflow (88.5) among the special values.
Tensor input_values(const Shape& shape, std::uint32_t seed, int special_every = 23) {
  return test::pass_bits::input_values(shape, seed, special_every, {-3.0f, 3.0f, 88.5f, -88.5f});
}

Tensor weights(const Shape& shape, std::uint32_t seed) { return test::pass_bits::small_weights(shape, seed); }

std::size_t linear_kernels(const IrModel& model) {
  return test::count_kernels(*compiled(model, ExecutionMode::Exact), "LinearOp");
}

enum class After { Nothing, Relu, Silu };

const Shape kA{2, 37, 300};  // 74 rows; K crosses a 256-row block
const Shape kY{2, 37, 45};   // N = 45 leaves ragged strips

// x [2, 37, 300] times w [300, 45], then Add(p, bias) or Add(bias, p) into "y" (or no bias: the
// product is "y").
GraphBuilder product_base(const Shape& r, bool bias, bool bias_first) {
  GraphBuilder b(17);
  b.input("x", DType::F32, kA).input("r", DType::F32, r).initializer("w", weights(Shape{300, 45}, 21));
  if (!bias) {
    b.node("MatMul", {"x", "w"}, {"y"});
    return b;
  }
  b.initializer("bias", weights(Shape{45}, 5)).node("MatMul", {"x", "w"}, {"p"});
  b.node("Add", bias_first ? std::vector<std::string>{"bias", "p"} : std::vector<std::string>{"p", "bias"}, {"y"});
  return b;
}

// Add(y, r) or Add(r, y) into `s`, then the activation into "out" (or s is "out").
void add_tail(GraphBuilder& b, bool residual_first, After after, const std::string& r = "r") {
  const std::string s = after == After::Nothing ? "out" : "s";
  b.node("Add", residual_first ? std::vector<std::string>{r, "y"} : std::vector<std::string>{"y", r}, {s});
  if (after == After::Relu) b.node("Relu", {"s"}, {"out"});
  if (after == After::Silu) b.node("Sigmoid", {"s"}, {"g"}).node("Mul", {"s", "g"}, {"out"});
  b.output("out", DType::F32);
}

const char* after_name(After after) {
  return after == After::Nothing ? "" : after == After::Relu ? " relu" : " silu";
}

TEST(LinearResidual, MatMulBiasResidualActivationIsOneNodeWithTheBitsOfTheSeparateNodes) {
  const test::RequireSplit two_thread_runs_split;
  for (After after : {After::Nothing, After::Relu, After::Silu}) {
    for (bool residual_first : {false, true}) {
      for (bool bias_first : {false, true}) {
        SCOPED_TRACE(std::string(after_name(after)) + (residual_first ? " Add(r, y)" : " Add(y, r)") +
                     (bias_first ? " Add(bias, p)" : " Add(p, bias)"));
        GraphBuilder b = product_base(kY, true, bias_first);
        add_tail(b, residual_first, after);
        const IrModel model = b.build();
        const std::size_t separate = after == After::Nothing ? 3u : after == After::Relu ? 4u : 5u;
        EXPECT_EQ(compiled(model, ExecutionMode::Exact, OptimizationLevel::None)->nodes.size(), separate);
        EXPECT_EQ(fused_nodes(model), 1u);
        EXPECT_EQ(linear_kernels(model), 1u);
        EXPECT_EQ(bits_everywhere(model, {{"x", input_values(kA, 3)}, {"r", input_values(kY, 4)}}), "");
      }
    }
  }
}

TEST(LinearResidual, GemmWithCAndProductWithoutBiasAndResidualOfA) {
  const test::RequireSplit two_thread_runs_split;
  {  // Gemm(x, w^T, c) -> Add(r, y) -> Relu
    const Shape x{74, 300};
    const Shape y{74, 45};
    GraphBuilder b(17);
    b.input("x", DType::F32, x).input("r", DType::F32, y).initializer("w", weights(Shape{45, 300}, 9));
    b.initializer("c", weights(Shape{45}, 10)).node("Gemm", {"x", "w", "c"}, {"y"}, {int_attr("transB", 1)});
    add_tail(b, true, After::Relu);
    const IrModel model = b.build();
    EXPECT_EQ(fused_nodes(model), 1u);
    EXPECT_EQ(linear_kernels(model), 1u);
    EXPECT_EQ(bits_everywhere(model, {{"x", input_values(x, 5)}, {"r", input_values(y, 6)}}), "");
  }
  for (bool residual_first : {false, true}) {  // MatMul -> Add(r)
    GraphBuilder b = product_base(kY, false, false);
    add_tail(b, residual_first, After::Nothing);
    const IrModel model = b.build();
    EXPECT_EQ(fused_nodes(model), 1u);
    EXPECT_EQ(bits_everywhere(model, {{"x", input_values(kA, 7)}, {"r", input_values(kY, 8)}}), "");
  }
  {  // x + Linear(x), the pre-norm block's shape: R is A itself
    const Shape x{2, 37, 64};
    GraphBuilder b(17);
    b.input("x", DType::F32, x).initializer("w", weights(Shape{64, 64}, 11)).initializer("bias", weights(Shape{64}, 12));
    b.node("MatMul", {"x", "w"}, {"p"}).node("Add", {"bias", "p"}, {"y"});
    add_tail(b, true, After::Nothing, "x");
    const IrModel model = b.build();
    EXPECT_EQ(fused_nodes(model), 1u);
    EXPECT_EQ(bits_everywhere(model, {{"x", input_values(x, 13)}}), "");
  }
}

TEST(LinearResidual, ResidualMadeAfterTheProductTakesTheAddsPlace) {
  GraphBuilder b(17);
  b.input("x", DType::F32, kA).input("q", DType::F32, kY).initializer("w", weights(Shape{300, 45}, 21));
  b.initializer("bias", weights(Shape{45}, 5)).node("MatMul", {"x", "w"}, {"p"}).node("Add", {"p", "bias"}, {"y"});
  b.node("Neg", {"q"}, {"r"});  // after the product in the node list
  add_tail(b, false, After::Relu);
  const IrModel model = b.build();
  EXPECT_EQ(fused_nodes(model), 2u);
  EXPECT_EQ(linear_kernels(model), 1u);
  EXPECT_EQ(bits_everywhere(model, {{"x", input_values(kA, 14)}, {"q", input_values(kY, 15)}}), "");
}

TEST(LinearResidual, BroadcastingResidualRunsTheSeparateNodes) {
  const Shape shapes[] = {Shape{45}, Shape{37, 45}, Shape{1, 37, 1}, Shape{3, 2, 37, 45}};
  const Shape outs[] = {kY, kY, kY, Shape{3, 2, 37, 45}};
  for (std::size_t k = 0; k < 4; ++k) {
    for (bool residual_first : {false, true}) {
      SCOPED_TRACE(shapes[k].to_string() + (residual_first ? " Add(r, y)" : " Add(y, r)"));
      GraphBuilder b = product_base(shapes[k], true, false);
      add_tail(b, residual_first, After::Relu);
      const IrModel model = b.build();
      EXPECT_EQ(fused_nodes(model), 1u);
      const test::Feeds feeds = {{"x", input_values(kA, 16)}, {"r", input_values(shapes[k], 17)}};
      const auto got = test::run_session(model, EngineKind::Optimized, ExecutionMode::Exact, OptimizationLevel::All, 1, feeds);
      ASSERT_EQ(got.size(), 1u);
      EXPECT_EQ(got[0].shape(), outs[k]);
      EXPECT_EQ(bits_everywhere(model, feeds), "");
    }
  }
}

TEST(LinearResidual, NearMissesAreLeftAlone) {
  const test::Feeds feeds = {{"x", input_values(kA, 18)}, {"r", input_values(kY, 19)}};
  {  // the bias sum is also a graph output: the residual Add stays apart (the Relu with it)
    GraphBuilder b = product_base(kY, true, false);
    add_tail(b, false, After::Relu);
    b.output("y", DType::F32);
    const IrModel model = b.build();
    EXPECT_EQ(fused_nodes(model), 3u);
    EXPECT_EQ(bits_everywhere(model, feeds), "");
  }
  {  // the bias sum read twice
    GraphBuilder b = product_base(kY, true, false);
    b.node("Add", {"y", "r"}, {"s"}).node("Mul", {"s", "y"}, {"out"}).output("out", DType::F32);
    const IrModel model = b.build();
    EXPECT_EQ(fused_nodes(model), 3u);
    EXPECT_EQ(bits_everywhere(model, feeds), "");
  }
  {  // Add(y, y)
    GraphBuilder b = product_base(kY, true, false);
    b.node("Add", {"y", "y"}, {"s"}).node("Add", {"s", "r"}, {"out"}).output("out", DType::F32);
    const IrModel model = b.build();
    EXPECT_EQ(fused_nodes(model), 3u);
    EXPECT_EQ(bits_everywhere(model, feeds), "");
  }
  {  // an Add of a constant that is no bias vector (one value per output): not a residual
    GraphBuilder b = product_base(kY, true, false);
    b.initializer("k", weights(kY, 20)).node("Add", {"y", "k"}, {"out"}).output("out", DType::F32);
    const IrModel model = b.build();
    EXPECT_EQ(fused_nodes(model), 2u);
    EXPECT_EQ(bits_everywhere(model, feeds), "");
  }
}

}  // namespace
}  // namespace onemodel
