// constant-fold (graph-passes.md, level Basic, bit-preserving): nodes of constants are evaluated
// when the session is made, except data-dependent shapes, nodes feeding a graph output and results
// larger than both the inputs and 64 KiB. Checked by the node counts of the compiled graph and by
// the bits: the folded session's outputs must be the unfolded one's (level None) in both modes, on
// every path at 1 and 2 threads, and the reference engine's in exact mode. A refusal the fold
// meets is the plan's, unchanged (kind and message as at level None).
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "diff/graph_builder.hpp"
#include "onemodel/session.hpp"
#include "onemodel/session_error.hpp"
#include "optimized/frame/isa.hpp"
#include "optimized/frame/thread_pool.hpp"
#include "optimized/runtime/compiled_graph.hpp"
#include "tests/support/compiled_kernels.hpp"
#include "tests/support/ir_builder.hpp"
#include "tests/support/same_outputs.hpp"
#include "tests/support/session_runs.hpp"

namespace onemodel {
namespace {

using graph_builder::GraphBuilder;
using ir_builder::float_attr;
using ir_builder::float_bits;
using ir_builder::int_attr;
using ir_builder::ints_attr;
using test::Feeds;

Tensor floats(const Shape& shape, std::uint32_t seed, float range = 4.0f) {
  std::vector<float> v(static_cast<std::size_t>(shape.element_count()));
  for (float& x : v) {
    seed = seed * 1664525u + 1013904223u;
    x = (static_cast<float>(seed >> 8) / 16777216.0f - 0.5f) * range;
  }
  return Tensor::from_values<float>(DType::F32, shape, v);
}

Tensor int8s(const Shape& shape, std::uint32_t seed) {
  std::vector<std::int8_t> v(static_cast<std::size_t>(shape.element_count()));
  for (auto& x : v) {
    seed = seed * 1664525u + 1013904223u;
    x = static_cast<std::int8_t>(static_cast<int>((seed >> 8) % 255u) - 127);
  }
  return Tensor::from_values<std::int8_t>(DType::I8, shape, v);
}

Tensor i64s(std::vector<std::int64_t> v) {
  return Tensor::from_values<std::int64_t>(DType::I64, Shape{static_cast<std::int64_t>(v.size())}, v);
}

std::size_t node_count(const IrModel& model, ExecutionMode mode, OptimizationLevel level) {
  SessionOptions options;
  options.mode = mode;
  options.optimization_level = level;
  static opt::ThreadPool pool(1);
  return opt::compile_graph(model, options, opt::OptimizedConfig{opt::Isa::Scalar, &pool})->nodes.size();
}


// Level Basic against level None on every path and thread count, both modes; exact also against
// the reference engine.
void check_bits(const IrModel& model, const Feeds& feeds) {
  const auto reference = test::run_session(model, EngineKind::Reference, ExecutionMode::Exact, OptimizationLevel::All, 1, feeds);
  for (const opt::Isa path : opt::available_isas()) {
    const std::string isa(opt::isa_name(path));
    ::setenv("ONEMODEL_ISA", isa.c_str(), 1);
    for (const ExecutionMode mode : {ExecutionMode::Fast, ExecutionMode::Exact}) {
      const auto unfolded = test::run_session(model, EngineKind::Optimized, mode, OptimizationLevel::None, 1, feeds);
      if (mode == ExecutionMode::Exact) test::expect_same_outputs(unfolded, reference, "exact, level None, " + isa);
      for (int threads : {1, 2}) {
        const std::string where = isa + (mode == ExecutionMode::Exact ? " exact" : " fast") + " threads " + std::to_string(threads);
        test::expect_same_outputs(test::run_session(model, EngineKind::Optimized, mode, OptimizationLevel::Basic, threads, feeds),
                         unfolded, "level Basic, " + where);
      }
    }
  }
  ::unsetenv("ONEMODEL_ISA");
}

// K x N int8 weights of 21000 bytes, 84000 as float32: over 64 KiB and larger than the input, so
// only DequantizeLinear's own rule (int8.md: folded whatever its size) folds them.
constexpr std::int64_t kM = 9, kK = 300, kN = 70;

// DequantizeLinear of constant per-column int8 weights feeding a MatMul: the weights become a
// float32 constant (level Basic: one node), which linear-pack-fuse then packs (level All).
IrModel dequantized_weights() {
  std::vector<float> scales(static_cast<std::size_t>(kN));
  for (std::size_t i = 0; i < scales.size(); ++i) scales[i] = 0.001f * static_cast<float>(i + 1);
  GraphBuilder b(17);
  b.input("x", DType::F32, Shape{kM, kK})
      .initializer("wq", int8s(Shape{kK, kN}, 5))
      .initializer("sw", Tensor::from_values<float>(DType::F32, Shape{kN}, scales))
      .initializer("zw", Tensor::zeros(DType::I8, Shape{kN}))
      .node("DequantizeLinear", {"wq", "sw", "zw"}, {"w"}, {int_attr("axis", 1)})
      .node("MatMul", {"x", "w"}, {"y"})
      .output("y", DType::F32);
  return b.build();
}

TEST(ConstantFold, DequantizedWeightsBecomeAConstant) {
  const test::RequireSplit two_thread_runs_split;
  const IrModel model = dequantized_weights();
  for (const ExecutionMode mode : {ExecutionMode::Fast, ExecutionMode::Exact}) {
    EXPECT_EQ(node_count(model, mode, OptimizationLevel::None), 2u);
    EXPECT_EQ(node_count(model, mode, OptimizationLevel::Basic), 1u);
    EXPECT_EQ(node_count(model, mode, OptimizationLevel::All), 1u);
  }
  check_bits(model, {{"x", floats(Shape{kM, kK}, 3)}});
}

// A Constant node, a chain of constant arithmetic (Mul then Sqrt of a constant), and a Shape-free
// Reshape of a constant (a view: folded to a view over the same buffer), all folded; a node
// feeding a graph output is not; a result larger than its inputs and 64 KiB (Expand to 256 x 256
// floats) is not.
TEST(ConstantFold, FoldsWhatThePageSaysAndNothingElse) {
  // (Too small a graph for a call shared by two threads; the first test holds that claim.)
  GraphBuilder b(17);
  b.input("x", DType::F32, Shape{4, 6})
      .initializer("a", floats(Shape{2, 12}, 7))
      .initializer("shape", i64s({4, 6}))
      .initializer("big_shape", i64s({256, 256}))
      .node("Constant", {}, {"c"}, {float_attr("value_float", 1.5f)})
      .node("Mul", {"a", "c"}, {"ac"})           // folded (after the Constant)
      .node("Abs", {"ac"}, {"abs"})              // folded
      .node("Sqrt", {"abs"}, {"root"})           // folded
      .node("Reshape", {"root", "shape"}, {"r"})  // folded: a view of the constant, no copy
      .node("Neg", {"a"}, {"negated"})           // a graph output: not folded
      .node("Reshape", {"negated", "shape"}, {"nr"})
      .node("Expand", {"c", "big_shape"}, {"big"})  // 256 KiB: not folded
      .node("ReduceSum", {"big"}, {"big_sum"}, {int_attr("keepdims", 0)})
      .node("Add", {"x", "r"}, {"y0"})
      .node("Add", {"y0", "nr"}, {"y1"})
      .node("Add", {"y1", "big_sum"}, {"y"})
      .output("y", DType::F32)
      .output("negated", DType::F32);
  const IrModel model = b.build();
  // None: 12 nodes. Basic: Constant, Mul, Abs, Sqrt and the first Reshape fold (5); Neg stays
  // (a graph output), so its Reshape reads a non-constant; Expand stays (too large) and so its
  // ReduceSum. 7 nodes.
  EXPECT_EQ(node_count(model, ExecutionMode::Exact, OptimizationLevel::None), 12u);
  EXPECT_EQ(node_count(model, ExecutionMode::Exact, OptimizationLevel::Basic), 7u);
  EXPECT_EQ(node_count(model, ExecutionMode::Fast, OptimizationLevel::Basic), 7u);
  check_bits(model, {{"x", floats(Shape{4, 6}, 9)}});
}

// A Constant node whose value is over 64 KiB (K x N float32 weights, 84000 bytes, as PaddlePaddle
// exports write them): folded, since its result is its own attribute, so that linear-pack-fuse
// packs the product's B once (level All: one LinearOp). Until session 39 the size rule kept it,
// and the product packed B on every call.
TEST(ConstantFold, ALargeConstantNodeIsFolded) {
  const test::RequireSplit two_thread_runs_split;
  IrAttribute value;
  value.name = "value";
  value.type = AttrType::Tensor;
  value.tensors.push_back(graph_builder::ir_tensor_of("", floats(Shape{kK, kN}, 11, 0.2f)));
  GraphBuilder b(17);
  b.input("x", DType::F32, Shape{kM, kK})
      .node("Constant", {}, {"w"}, {value})
      .node("MatMul", {"x", "w"}, {"y"})
      .output("y", DType::F32);
  const IrModel model = b.build();
  for (const ExecutionMode mode : {ExecutionMode::Fast, ExecutionMode::Exact}) {
    EXPECT_EQ(node_count(model, mode, OptimizationLevel::None), 2u);
    EXPECT_EQ(node_count(model, mode, OptimizationLevel::Basic), 1u);
    SessionOptions options;
    options.mode = mode;
    static opt::ThreadPool pool(1);
    const auto graph = opt::compile_graph(model, options, opt::OptimizedConfig{opt::Isa::Scalar, &pool});
    EXPECT_EQ(graph->nodes.size(), 1u);
    EXPECT_EQ(test::count_kernels(*graph, "LinearOp"), 1u);
  }
  check_bits(model, {{"x", floats(Shape{kM, kK}, 13)}});
}

// A node of constants that the plan refuses: the fold leaves it, and the session reports what it
// reports without the fold.
TEST(ConstantFold, ARefusedNodeIsThePlansError) {
  GraphBuilder b(17);
  b.input("x", DType::F32, Shape{2, 3})
      .initializer("a", floats(Shape{6}, 7))
      .initializer("bad_shape", i64s({4, 2}))
      .node("Reshape", {"a", "bad_shape"}, {"r"})
      .node("Add", {"x", "r"}, {"y"})
      .output("y", DType::F32);
  const IrModel model = b.build();
  const auto error_of = [&](OptimizationLevel level) {
    SessionOptions options;
    options.optimization_level = level;
    try {
      Session session = Session::create(model, options);
      (void)session.run({{"x", floats(Shape{2, 3}, 1)}});
    } catch (const SessionError& e) {
      return std::to_string(static_cast<int>(e.kind())) + " " + e.what();
    }
    return std::string("no error");
  };
  const std::string unfolded = error_of(OptimizationLevel::None);
  EXPECT_NE(unfolded, "no error");
  EXPECT_EQ(error_of(OptimizationLevel::Basic), unfolded);
  EXPECT_EQ(error_of(OptimizationLevel::All), unfolded);
}

}  // namespace
}  // namespace onemodel
