// The `matmul-transpose` pass (optimized/passes/matmul_transpose_fuse.cpp, docs/design.md
// "Transposed product operands"): a MatMul whose A or B (or both) is a Transpose read by it alone
// becomes one TransposedMatMulOp reading the Transposes' inputs through strided views. It claims to
// preserve bits, so:
//  - exported attention's shapes (Q [0, 2, 1, 3] times K^T [0, 2, 3, 1]; scores times V
//    [0, 2, 1, 3]; K^T as [0, 1, 3, 2] of head-split K; a 2-D Transpose without perm; a B whose
//    batch broadcasts against A's, and A's against B's): one node in both modes, whose outputs
//    equal bit for bit the reference engine's and the unfused optimized graph's (level None) in
//    exact mode, and the unfused graph's in fast mode, on every kernel path at 1 and 2 threads,
//    with NaN payloads, infinities, signed zeros and subnormals in the operands;
//  - a Transpose of a rank-1 operand (which the strided path does not serve) still fuses and gives
//    the separate nodes' shape and bits through the fallback;
//  - near misses are left alone: the Transpose's result also read by another node or a graph
//    output, MatMul(t, t), a Transpose of a float64 value.
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
using ir_builder::ints_attr;

using test::pass_bits::bits_everywhere;
using test::pass_bits::compiled;
using test::pass_bits::difference;
using test::pass_bits::fused_nodes;

// pass_bits' inputs with the corners of HardSwish (-3, 3) and the exponentials' overflow (88.5) among the special values.
Tensor input_values(const Shape& shape, std::uint32_t seed, int special_every = 23) {
  return test::pass_bits::input_values(shape, seed, special_every, {-3.0f, 3.0f, 88.5f, -88.5f});
}

std::size_t strided_kernels(const IrModel& model) {
  return test::count_kernels(*compiled(model, ExecutionMode::Exact), "TransposedMatMulOp");
}

struct Case {
  const char* name;
  Shape a, b;  // the graph inputs
  std::vector<std::int64_t> a_perm, b_perm;  // empty: read as it is; {-1}: Transpose without perm
};

std::vector<Case> cases() {
  return {
      // [2, 64, 4, 32]: Q as [2, 4, 64, 32] times K^T as [2, 4, 32, 64] (eight 64x64x32 products)
      {"scores Q K^T", Shape{2, 64, 4, 32}, Shape{2, 64, 4, 32}, {0, 2, 1, 3}, {0, 2, 3, 1}},
      {"context P V", Shape{2, 4, 64, 64}, Shape{2, 64, 4, 32}, {}, {0, 2, 1, 3}},
      {"K^T of head-split K", Shape{1, 3, 37, 24}, Shape{1, 3, 45, 24}, {}, {0, 1, 3, 2}},
      {"2-D without perm", Shape{37, 300}, Shape{45, 300}, {}, {-1}},
      {"A transposed, 2-D", Shape{300, 37}, Shape{300, 45}, {1, 0}, {}},
      {"B broadcast over A's batch", Shape{3, 37, 24}, Shape{1, 45, 24}, {}, {0, 2, 1}},
      {"A broadcast over B's batch", Shape{24, 37}, Shape{3, 2, 24, 45}, {-1}, {1, 0, 2, 3}},
      // B's one matrix for A's three entries: one product of 3 * 37 rows in the MatMul; here A's
      // rows, transposed, are not one stride apart across entries, so they are gathered first.
      {"merged rows A cannot follow", Shape{3, 24, 37}, Shape{24, 45}, {0, 2, 1}, {}},
      {"merged rows, two batch axes", Shape{2, 3, 24, 37}, Shape{24, 45}, {0, 1, 3, 2}, {}},
      {"merged rows, B broadcast with axes of 1", Shape{2, 24, 37}, Shape{1, 24, 45}, {0, 2, 1}, {}},
  };
}

GraphBuilder build_case(const Case& c) {
  GraphBuilder b(17);
  b.input("a", DType::F32, c.a).input("b", DType::F32, c.b);
  std::vector<std::string> operands{"a", "b"};
  const std::vector<std::int64_t>* perms[] = {&c.a_perm, &c.b_perm};
  for (std::size_t o = 0; o < 2; ++o) {
    if (perms[o]->empty()) continue;
    const std::string t = operands[o] + "_t";
    if ((*perms[o])[0] == -1) {
      b.node("Transpose", {operands[o]}, {t});
    } else {
      b.node("Transpose", {operands[o]}, {t}, {ints_attr("perm", *perms[o])});
    }
    operands[o] = t;
  }
  b.node("MatMul", operands, {"out"}).output("out", DType::F32);
  return b;
}

TEST(MatMulTranspose, TransposedOperandsAreReadInPlaceWithTheBitsOfTheSeparateNodes) {
  const test::RequireSplit two_thread_runs_split;
  for (const Case& c : cases()) {
    SCOPED_TRACE(c.name);
    const IrModel model = build_case(c).build();
    const std::size_t separate = 1 + (c.a_perm.empty() ? 0 : 1) + (c.b_perm.empty() ? 0 : 1);
    EXPECT_EQ(compiled(model, ExecutionMode::Exact, OptimizationLevel::None)->nodes.size(), separate);
    EXPECT_EQ(fused_nodes(model), 1u);
    EXPECT_EQ(strided_kernels(model), 1u);
    EXPECT_EQ(bits_everywhere(model, {{"a", input_values(c.a, 3)}, {"b", input_values(c.b, 4)}}), "");
  }
}

TEST(MatMulTranspose, RankOneOperandRunsTheSeparateNodes) {
  GraphBuilder b(17);
  b.input("a", DType::F32, Shape{40}).input("b", DType::F32, Shape{40, 45});
  b.node("Transpose", {"a"}, {"a_t"}).node("MatMul", {"a_t", "b"}, {"out"}).output("out", DType::F32);
  const IrModel model = b.build();
  EXPECT_EQ(fused_nodes(model), 1u);
  const test::Feeds feeds{{"a", input_values(Shape{40}, 5)}, {"b", input_values(Shape{40, 45}, 6)}};
  const auto got = test::run_session(model, EngineKind::Optimized, ExecutionMode::Exact, OptimizationLevel::All, 1, feeds);
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].shape(), Shape{45});
  EXPECT_EQ(bits_everywhere(model, feeds), "");
}

TEST(MatMulTranspose, NearMissesAreLeftAlone) {
  const Case c = cases()[0];
  const test::Feeds feeds{{"a", input_values(c.a, 7)}, {"b", input_values(c.b, 8)}};
  {  // K^T also a graph output: only Q's Transpose is absorbed
    GraphBuilder b = build_case(c);
    b.output("b_t", DType::F32);
    const IrModel model = b.build();
    EXPECT_EQ(fused_nodes(model), 2u);
    EXPECT_EQ(strided_kernels(model), 1u);
    EXPECT_EQ(bits_everywhere(model, feeds), "");
  }
  {  // Q^T also read by a Relu: only K's Transpose is absorbed
    GraphBuilder b = build_case(c);
    b.node("Relu", {"a_t"}, {"r"}).output("r", DType::F32);
    const IrModel model = b.build();
    EXPECT_EQ(fused_nodes(model), 3u);
    EXPECT_EQ(strided_kernels(model), 1u);
    EXPECT_EQ(bits_everywhere(model, feeds), "");
  }
  {  // MatMul(t, t)
    GraphBuilder b(17);
    b.input("a", DType::F32, Shape{2, 24, 24});
    b.node("Transpose", {"a"}, {"t"}, {ints_attr("perm", {0, 2, 1})}).node("MatMul", {"t", "t"}, {"out"});
    b.output("out", DType::F32);
    const IrModel model = b.build();
    EXPECT_EQ(fused_nodes(model), 2u);
    EXPECT_EQ(strided_kernels(model), 0u);
    EXPECT_EQ(bits_everywhere(model, {{"a", input_values(Shape{2, 24, 24}, 9)}}), "");
  }
  {  // float64 operands: not float32, left alone
    GraphBuilder b(17);
    b.input("a", DType::F64, Shape{5, 4}).input("b", DType::F64, Shape{5, 3});
    b.node("Transpose", {"a"}, {"t"}).node("MatMul", {"t", "b"}, {"out"}).output("out", DType::F64);
    const IrModel model = b.build();
    EXPECT_EQ(fused_nodes(model), 2u);
    EXPECT_EQ(strided_kernels(model), 0u);
  }
}

}  // namespace
}  // namespace onemodel
