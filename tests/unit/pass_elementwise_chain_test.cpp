// The `elementwise-chain` pass (optimized/passes/elementwise_chain_fuse.cpp, docs/design.md
// "Element-wise chains"): a run of float32 element-wise operators reading one tensor plus
// one-element constants becomes one ElementwiseProgramOp. It claims to preserve bits, so:
//  - the fused graph's outputs equal, bit for bit, the reference engine's and the unfused
//    optimized graph's (level None) in exact mode, and the unfused graph's in fast mode, on every
//    kernel path at 1 and 2 threads (tests/support/pass_bits.hpp), with NaN payloads, infinities,
//    signed zeros and subnormals in the input;
//  - it fires on the PP-OCRv4 detector's exported HardSwish chain (constants as Constant nodes
//    and as [1]-shaped initializers) and stops where an intermediate is read outside the chain
//    or is a graph output, or where an operand is not a one-element constant;
//  - random chains (rapidcheck: operators, operand choices, constants, extra outputs) keep every
//    bit.
#include <gtest/gtest.h>
#include <rapidcheck.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>
#include <typeinfo>
#include <vector>

#include "diff/graph_builder.hpp"
#include "onemodel/session.hpp"
#include "optimized/frame/isa.hpp"
#include "optimized/frame/thread_pool.hpp"
#include "optimized/passes/elementwise_program.hpp"
#include "optimized/runtime/compiled_graph.hpp"
#include "tests/support/compiled_kernels.hpp"
#include "tests/support/ir_builder.hpp"
#include "tests/support/pass_bits.hpp"
#include "tests/support/session_runs.hpp"

namespace onemodel {
namespace {

using graph_builder::GraphBuilder;
using ir_builder::float_attr;

using Feeds = std::vector<std::pair<std::string, Tensor>>;

Tensor constant(float v, const Shape& shape = Shape{}) { return Tensor::from_values<float>(DType::F32, shape, {v}); }

using test::count_kernels;

using test::pass_bits::bits_everywhere;
using test::pass_bits::compiled;
using test::pass_bits::difference;

// pass_bits' inputs with the corners of HardSwish and Clip among the special values.
Tensor input_values(const Shape& shape, std::uint32_t seed, int special_every = 37) {
  return test::pass_bits::input_values(shape, seed, special_every, {-3.0f, 3.0f, 6.0f});
}

// The detector's block: y = Add(Mul(Div(Mul(t, Clip(Add(t, 3), 0, 6)), 6), s2), b2) with
// t = Add(Mul(s1, x), b1); scalars as Constant nodes (the export's helper constants) or as
// [1]-shaped initializers (its learned scales).
GraphBuilder detector_chain(const Shape& shape) {
  GraphBuilder b(11);
  b.input("x", DType::F32, shape)
      .initializer("s1", constant(0.9431690573692322f, Shape{1}))
      .initializer("b1", constant(0.5042971968650818f, Shape{1}))
      .initializer("s2", constant(0.47632309794425964f, Shape{1}))
      .initializer("b2", constant(-0.007573243696242571f, Shape{1}))
      .node("Constant", {}, {"three"}, {float_attr("value_float", 3.0f)})
      .node("Constant", {}, {"zero"}, {float_attr("value_float", 0.0f)})
      .node("Constant", {}, {"six"}, {float_attr("value_float", 6.0f)})
      .node("Mul", {"s1", "x"}, {"m1"})
      .node("Add", {"m1", "b1"}, {"t"})
      .node("Add", {"t", "three"}, {"t3"})
      .node("Clip", {"t3", "zero", "six"}, {"c"})
      .node("Mul", {"t", "c"}, {"tc"})
      .node("Div", {"tc", "six"}, {"hs"})
      .node("Mul", {"s2", "hs"}, {"m2"})
      .node("Add", {"m2", "b2"}, {"y"});
  return b;
}

TEST(ElementwiseChain, FusesTheDetectorHardSwishChainWithItsBits) {
  const test::RequireSplit two_thread_runs_split;
  // 58,782 elements: several chunks of 16,384 and a last block shorter than 512.
  const Shape shape{2, 3, 97, 101};
  GraphBuilder b = detector_chain(shape);
  b.output("y", DType::F32);
  const IrModel model = b.build();
  for (ExecutionMode mode : {ExecutionMode::Exact, ExecutionMode::Fast}) {
    const auto graph = compiled(model, mode);
    EXPECT_EQ(graph->nodes.size(), 1u);
    EXPECT_EQ(count_kernels(*graph, "ElementwiseProgramOp"), 1u);
  }
  EXPECT_EQ(bits_everywhere(model, {{"x", input_values(shape, 7)}}), "");
  EXPECT_EQ(bits_everywhere(model, {{"x", input_values(shape, 8, 3)}}), "");  // a third special
}

TEST(ElementwiseChain, StopsWhereAnIntermediateIsReadOutside) {
  const test::RequireSplit two_thread_runs_split;
  // 18,000 elements: two element-wise chunks (ew::kChunkElements), so two threads share the runs.
  const Shape shape{3, 6000};
  {  // t also read by a Transpose: the chain up to t is one node; from t on another.
    GraphBuilder b = detector_chain(shape);
    b.node("Transpose", {"t"}, {"tt"}).output("y", DType::F32).output("tt", DType::F32);
    const IrModel model = b.build();
    const auto graph = compiled(model, ExecutionMode::Exact);
    EXPECT_EQ(count_kernels(*graph, "ElementwiseProgramOp"), 2u);
    EXPECT_EQ(graph->nodes.size(), 3u);  // Mul-Add to t, Transpose, the rest from t
    EXPECT_EQ(bits_everywhere(model, {{"x", input_values(shape, 9)}}), "");
  }
  {  // hs is a graph output: fused up to hs, then Mul-Add
    GraphBuilder b = detector_chain(shape);
    b.output("y", DType::F32).output("hs", DType::F32);
    const IrModel model = b.build();
    const auto graph = compiled(model, ExecutionMode::Exact);
    EXPECT_EQ(count_kernels(*graph, "ElementwiseProgramOp"), 2u);
    EXPECT_EQ(graph->nodes.size(), 2u);
    EXPECT_EQ(bits_everywhere(model, {{"x", input_values(shape, 10)}}), "");
  }
}

TEST(ElementwiseChain, LeavesWhatItCannotServe) {
  const test::RequireSplit two_thread_runs_split;
  const Shape shape{4, 6};
  {  // a constant of more than one element: broadcasting a vector is not a chain step
    GraphBuilder b(13);
    b.input("x", DType::F32, shape)
        .initializer("v", Tensor::from_values<float>(DType::F32, Shape{6}, {1, 2, 3, 4, 5, 6}))
        .node("Mul", {"x", "v"}, {"a"})
        .node("Relu", {"a"}, {"y"})
        .output("y", DType::F32);
    const IrModel model = b.build();
    EXPECT_EQ(count_kernels(*compiled(model, ExecutionMode::Exact), "ElementwiseProgramOp"), 0u);
  }
  {  // two different tensors: Add(x, z) reads a second input
    GraphBuilder b(13);
    b.input("x", DType::F32, shape)
        .input("z", DType::F32, shape)
        .node("Add", {"x", "z"}, {"a"})
        .node("Relu", {"a"}, {"y"})
        .output("y", DType::F32);
    EXPECT_EQ(count_kernels(*compiled(b.build(), ExecutionMode::Exact), "ElementwiseProgramOp"), 0u);
  }
  {  // one operator alone is left to its own override
    GraphBuilder b(13);
    b.input("x", DType::F32, shape).node("Relu", {"x"}, {"y"}).output("y", DType::F32);
    EXPECT_EQ(count_kernels(*compiled(b.build(), ExecutionMode::Exact), "ElementwiseProgramOp"), 0u);
  }
  {  // an int32 chain runs its reference kernels
    GraphBuilder b(13);
    b.input("x", DType::I32, shape)
        .initializer("k", Tensor::from_values<std::int32_t>(DType::I32, Shape{}, {3}))
        .node("Add", {"x", "k"}, {"a"})
        .node("Mul", {"a", "k"}, {"y"})
        .output("y", DType::I32);
    EXPECT_EQ(count_kernels(*compiled(b.build(), ExecutionMode::Exact), "ElementwiseProgramOp"), 0u);
  }
}

// The erf-form GELU export, Div(x, d) -> Erf -> Add(., 1) -> Mul(x, .) -> Mul(., 0.5), in the
// operand orders 0 (torch's) and 1 (Add, Mul and Mul with swapped operands), which the program op
// runs as one ew::UnaryOp::ErfGateChain pass, and 2 (x * 0.5 first), which it runs step by step.
// d = 1.5, not sqrt 2, so that the `gelu` pass (fast mode, not bit-preserving) leaves the chain
// alone and both modes can be compared; erf's two branches, NaN payloads and infinities occur.
IrModel erf_gelu_chain(const Shape& shape, int order) {
  GraphBuilder b(13);
  b.input("x", DType::F32, shape)
      .node("Constant", {}, {"d"}, {float_attr("value_float", 1.5f)})
      .node("Constant", {}, {"one"}, {float_attr("value_float", 1.0f)})
      .node("Constant", {}, {"half"}, {float_attr("value_float", 0.5f)})
      .node("Div", {"x", "d"}, {"y"})
      .node("Erf", {"y"}, {"e"});
  if (order == 0) {
    b.node("Add", {"e", "one"}, {"a"}).node("Mul", {"x", "a"}, {"m"}).node("Mul", {"m", "half"}, {"out"});
  } else if (order == 1) {
    b.node("Add", {"one", "e"}, {"a"}).node("Mul", {"a", "x"}, {"m"}).node("Mul", {"half", "m"}, {"out"});
  } else {
    b.node("Add", {"e", "one"}, {"a"}).node("Mul", {"x", "half"}, {"h"}).node("Mul", {"h", "a"}, {"out"});
  }
  b.output("out", DType::F32);
  return b.build();
}

TEST(ElementwiseChain, ErfGeluExportRunsAsOnePassWithTheSameBits) {
  const test::RequireSplit two_thread_runs_split;
  const Shape shape{3, 97, 101};  // several chunks of 16,384 and a short last one
  for (int order : {0, 1, 2}) {
    SCOPED_TRACE("order " + std::to_string(order));
    const IrModel model = erf_gelu_chain(shape, order);
    for (ExecutionMode mode : {ExecutionMode::Exact, ExecutionMode::Fast}) {
      const auto graph = compiled(model, mode);
      ASSERT_EQ(graph->nodes.size(), 1u);
      const auto* program = dynamic_cast<const opt::ElementwiseProgramOp*>(graph->nodes[0].kernel.get());
      ASSERT_NE(program, nullptr);
      EXPECT_EQ(program->runs_erf_gate_chain(), order != 2);
    }
    EXPECT_EQ(bits_everywhere(model, {{"x", input_values(shape, 11)}}), "");
    EXPECT_EQ(bits_everywhere(model, {{"x", input_values(shape, 12, 3)}}), "");
  }
}

TEST(ElementwiseChain, HigherRankConstantAddsLeadingAxes) {
  const test::RequireSplit two_thread_runs_split;
  // x is [20000]; the constant is [1, 1, 1]: numpy broadcasting makes the result [1, 1, 20000]
  // (two element-wise chunks, so two threads share the runs).
  GraphBuilder b(13);
  b.input("x", DType::F32, Shape{20000})
      .initializer("k", constant(2.5f, Shape{1, 1, 1}))
      .node("Sub", {"k", "x"}, {"a"})
      .node("Sigmoid", {"a"}, {"y"})
      .output("y", DType::F32);
  const IrModel model = b.build();
  EXPECT_EQ(count_kernels(*compiled(model, ExecutionMode::Exact), "ElementwiseProgramOp"), 1u);
  const Feeds feeds{{"x", input_values(Shape{20000}, 12, 2)}};
  const auto out = test::run_session(model, EngineKind::Optimized, ExecutionMode::Exact, OptimizationLevel::All, 1, feeds);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].shape(), (Shape{1, 1, 20000}));
  EXPECT_EQ(bits_everywhere(model, feeds), "");
}

// Random chains: each operator reads x, earlier results or a one-element constant; some
// intermediates are also graph outputs or read by a Transpose (outside any chain).
TEST(ElementwiseChain, RandomChainsKeepEveryBit) {
  const test::RequireSplit two_thread_runs_split;
  const bool ok = rc::check("fused chains equal the separate operators bit for bit", [] {
    const int ops = *rc::gen::inRange(2, 9);
    const std::int64_t rows = *rc::gen::inRange<std::int64_t>(1, 4);
    const std::int64_t cols = *rc::gen::element<std::int64_t>(1, 7, 33, 511, 513, 1500);
    const Shape shape{rows, cols};
    GraphBuilder b(14);
    b.input("x", DType::F32, shape);
    std::vector<std::string> names{"x"};
    int constants = 0;
    auto operand = [&]() -> std::string {
      if (*rc::gen::inRange(0, 4) == 0) {
        const std::string name = "k" + std::to_string(constants++);
        const float value = *rc::gen::element<float>(0.0f, -0.0f, 1.0f, -2.5f, 3.0f, 6.0f, 1e-3f, 7e30f,
                                                     std::numeric_limits<float>::infinity());
        b.initializer(name, constant(value, *rc::gen::arbitrary<bool>() ? Shape{} : Shape{1}));
        return name;
      }
      return names[static_cast<std::size_t>(*rc::gen::inRange(0, static_cast<int>(names.size())))];
    };
    std::vector<std::string> outputs;
    for (int i = 0; i < ops; ++i) {
      const std::string out = "v" + std::to_string(i);
      const std::string op = *rc::gen::element<std::string>("Add", "Sub", "Mul", "Div", "Relu", "Clip", "Sigmoid",
                                                            "Exp", "Tanh", "Neg", "Abs", "Sqrt", "HardSwish",
                                                            "LeakyRelu", "HardSigmoid", "Log", "Erf");
      const std::string last = names.back();
      if (op == "Add" || op == "Sub" || op == "Mul" || op == "Div") {
        // The chain's newest value is always one operand, so the operators form one run.
        if (*rc::gen::arbitrary<bool>()) {
          b.node(op, {last, operand()}, {out});
        } else {
          b.node(op, {operand(), last}, {out});
        }
      } else if (op == "Clip") {
        const float lo = *rc::gen::element<float>(-1.0f, 0.0f, -std::numeric_limits<float>::infinity());
        const std::string lo_name = "lo" + std::to_string(i), hi_name = "hi" + std::to_string(i);
        b.initializer(lo_name, constant(lo)).initializer(hi_name, constant(6.0f));
        b.node("Clip", {last, lo_name, hi_name}, {out});
      } else if (op == "LeakyRelu") {
        b.node(op, {last}, {out}, {float_attr("alpha", 0.125f)});
      } else {
        b.node(op, {last}, {out});
      }
      names.push_back(out);
      const int extra = *rc::gen::inRange(0, 8);
      if (i + 1 < ops && extra == 0) outputs.push_back(out);
      if (i + 1 < ops && extra == 1) {
        b.node("Transpose", {out}, {out + "_t"});
        outputs.push_back(out + "_t");
      }
    }
    b.output(names.back(), DType::F32);
    for (const std::string& o : outputs) b.output(o, DType::F32);
    const IrModel model = b.build();
    const std::string d = bits_everywhere(model, {{"x", input_values(shape, *rc::gen::arbitrary<std::uint32_t>(), 5)}});
    RC_ASSERT(d == "");
  });
  EXPECT_TRUE(ok);
}

}  // namespace
}  // namespace onemodel
