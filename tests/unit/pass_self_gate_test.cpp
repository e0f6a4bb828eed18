// The `self-gate` pass (optimized/passes/self_gate_fuse.cpp, docs/design.md "Self-gated
// activations"): Mul(x, Sigmoid(x)) and Mul(x, HardSigmoid(x)), either operand order, become one
// SelfGateOp, which conv-activation and linear-pack-fuse then take into the product's tile
// epilogue. It claims to preserve bits, so:
//  - the pattern after each Conv kernel (im2col, 1x1, grouped, depthwise) and after MatMul + bias
//    and Gemm leaves one node (counted in the compiled graph);
//  - the fused graph gives, bit for bit, the reference engine's outputs and the unfused optimized
//    graph's (level None) in exact mode, and the unfused graph's in fast mode, on every kernel
//    path at 1 and 2 threads (fast fused also equal at 1 and 2 threads), with NaN payloads,
//    infinities, signed zeros and subnormals in the input;
//  - near misses are left alone: x read by a third node (the gate still fuses, the product keeps
//    its plain result), a broadcast Mul (x * Sigmoid(pool(x)), the squeeze-excitation shape),
//    Mul(x, Sigmoid(y)) with y != x, a gate read twice or a graph output, a product result that is
//    a graph output, a float64 x; HardSigmoid constants other than 1/6 and 0.5 keep their own
//    function instead of HardSwish's.
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
#include "optimized/passes/self_gate_op.hpp"
#include "optimized/runtime/compiled_graph.hpp"
#include "tests/support/compiled_kernels.hpp"
#include "tests/support/ir_builder.hpp"
#include "tests/support/pass_bits.hpp"
#include "tests/support/session_runs.hpp"

namespace onemodel {
namespace {

using graph_builder::GraphBuilder;
using ir_builder::float_attr;
using ir_builder::int_attr;
using ir_builder::ints_attr;
using test::count_kernels;

using test::pass_bits::bits;
using test::pass_bits::bits_everywhere;
using test::pass_bits::from_bits;
using test::pass_bits::compiled;
using test::pass_bits::difference;
using test::pass_bits::fused_nodes;

// pass_bits' inputs with the corners of HardSwish (-3, 3) and the exponentials' overflow (88.5) among the special values.
Tensor input_values(const Shape& shape, std::uint32_t seed, int special_every = 23) {
  return test::pass_bits::input_values(shape, seed, special_every, {-3.0f, 3.0f, 88.5f, -88.5f});
}

Tensor weights(const Shape& shape, std::uint32_t seed) { return test::pass_bits::small_weights(shape, seed); }

std::size_t gates(const IrModel& model) { return count_kernels(*compiled(model, ExecutionMode::Exact), "SelfGateOp"); }

// The functions of the SelfGateOps left in the exact-mode graph, in node order.
std::vector<opt::ew::UnaryArgs> gate_args(const IrModel& model) {
  std::vector<opt::ew::UnaryArgs> found;
  const auto graph = compiled(model, ExecutionMode::Exact);
  for (const auto& node : graph->nodes) {
    if (const auto* gate = dynamic_cast<const opt::SelfGateOp*>(node.kernel.get())) found.push_back(gate->args());
  }
  return found;
}

// The gate reading `x` into `g` and the Mul of x and g into `out`, in the order given.
enum class Gate { Sigmoid, HardSwishSigmoid };
void add_gate(GraphBuilder& b, Gate gate, const std::string& x, const std::string& out, bool gate_first,
              std::vector<IrAttribute> hard_attributes = {float_attr("alpha", 1.0f / 6.0f), float_attr("beta", 0.5f)}) {
  const std::string g = out + "_gate";
  if (gate == Gate::Sigmoid) {
    b.node("Sigmoid", {x}, {g});
  } else {
    b.node("HardSigmoid", {x}, {g}, std::move(hard_attributes));
  }
  b.node("Mul", gate_first ? std::vector<std::string>{g, x} : std::vector<std::string>{x, g}, {out});
}

struct ConvCase {
  const char* name;
  Shape x;
  Shape w;
  std::vector<IrAttribute> attributes;
  bool with_bias;
};

// The kernels conv-activation serves: im2col + product (EfficientNet's stem is 3x3 stride 2), the
// 1x1 product (its expansions and projections), grouped, and the direct depthwise kernel (its
// 3x3 and 5x5 depthwise convolutions), vector walk and the plain fallback for many taps.
std::vector<ConvCase> conv_cases() {
  return {
      {"3x3 padded, stride 2", Shape{1, 3, 23, 21}, Shape{8, 3, 3, 3},
       {ints_attr("pads", {1, 1, 1, 1}), ints_attr("strides", {2, 2})}, true},
      {"1x1, no bias", Shape{1, 16, 19, 17}, Shape{24, 16, 1, 1}, {}, false},
      {"grouped", Shape{1, 4, 9, 9}, Shape{6, 2, 3, 3}, {int_attr("group", 2)}, true},
      {"depthwise 5x5", Shape{1, 8, 14, 37}, Shape{8, 1, 5, 5}, {int_attr("group", 8), ints_attr("pads", {2, 2, 2, 2})},
       true},
      {"depthwise fallback", Shape{1, 3, 12, 12}, Shape{3, 1, 9, 9}, {int_attr("group", 3)}, true},
  };
}

GraphBuilder conv_base(const ConvCase& c, std::int64_t opset = 17) {
  GraphBuilder b(opset);
  b.input("x", DType::F32, c.x).initializer("w", weights(c.w, 21));
  std::vector<std::string> inputs{"x", "w"};
  if (c.with_bias) {
    b.initializer("b", weights(Shape{c.w[0]}, 5));
    inputs.push_back("b");
  }
  b.node("Conv", inputs, {"y"}, c.attributes);
  return b;
}

TEST(SelfGate, SiluAndHardSwishAfterEachConvKernel) {
  const test::RequireSplit two_thread_runs_split;
  for (const ConvCase& c : conv_cases()) {
    for (Gate gate : {Gate::Sigmoid, Gate::HardSwishSigmoid}) {
      for (bool gate_first : {false, true}) {
        SCOPED_TRACE(std::string(c.name) + (gate == Gate::Sigmoid ? " silu" : " hardswish") +
                     (gate_first ? " Mul(g, x)" : " Mul(x, g)"));
        GraphBuilder b = conv_base(c);
        add_gate(b, gate, "y", "out", gate_first);
        b.output("out", DType::F32);
        const IrModel model = b.build();
        EXPECT_EQ(compiled(model, ExecutionMode::Exact, OptimizationLevel::None)->nodes.size(), 3u);
        EXPECT_EQ(fused_nodes(model), 1u);  // the Conv, with the gate in its epilogue
        EXPECT_EQ(gates(model), 0u);
        EXPECT_EQ(bits_everywhere(model, {{"x", input_values(c.x, 3)}}), "");
      }
    }
  }
}

TEST(SelfGate, SiluAfterMatMulWithBiasAndAfterGemm) {
  const test::RequireSplit two_thread_runs_split;
  const Shape x{37, 300};  // K crosses a 256-row block; N = 45 leaves ragged strips
  {
    GraphBuilder b(17);
    b.input("x", DType::F32, x)
        .initializer("w", weights(Shape{300, 45}, 7))
        .initializer("bias", weights(Shape{45}, 8))
        .node("MatMul", {"x", "w"}, {"p"})
        .node("Add", {"p", "bias"}, {"y"});
    add_gate(b, Gate::Sigmoid, "y", "out", false);
    b.output("out", DType::F32);
    const IrModel model = b.build();
    EXPECT_EQ(fused_nodes(model), 1u);
    EXPECT_EQ(count_kernels(*compiled(model, ExecutionMode::Exact), "LinearOp"), 1u);
    EXPECT_EQ(bits_everywhere(model, {{"x", input_values(x, 4)}}), "");
  }
  {
    GraphBuilder b(17);
    b.input("x", DType::F32, x)
        .initializer("w", weights(Shape{45, 300}, 9))
        .node("Gemm", {"x", "w"}, {"y"}, {int_attr("transB", 1)});
    add_gate(b, Gate::HardSwishSigmoid, "y", "out", true);
    b.output("out", DType::F32);
    const IrModel model = b.build();
    EXPECT_EQ(fused_nodes(model), 1u);
    EXPECT_EQ(count_kernels(*compiled(model, ExecutionMode::Exact), "LinearOp"), 1u);
    EXPECT_EQ(bits_everywhere(model, {{"x", input_values(x, 5)}}), "");
  }
}

// Without a product the pair is one SelfGateOp on its own; every special value reaches the gate
// directly (NaN payloads must come out as the Mul stores them).
TEST(SelfGate, AloneItIsOneNodeWithTheBitsOfTwo) {
  const test::RequireSplit two_thread_runs_split;
  const Shape x{3, 11000};  // 33,000 elements: several element-wise chunks, a ragged tail
  for (Gate gate : {Gate::Sigmoid, Gate::HardSwishSigmoid}) {
    for (bool gate_first : {false, true}) {
      GraphBuilder b(13);
      b.input("x", DType::F32, x);
      add_gate(b, gate, "x", "out", gate_first);
      b.output("out", DType::F32);
      const IrModel model = b.build();
      EXPECT_EQ(fused_nodes(model), 1u);
      const auto args = gate_args(model);
      ASSERT_EQ(args.size(), 1u);
      EXPECT_EQ(args[0].op, gate == Gate::Sigmoid ? opt::ew::UnaryOp::Silu : opt::ew::UnaryOp::HardSwish);
      EXPECT_EQ(bits_everywhere(model, {{"x", input_values(x, 6, 5)}}), "");
    }
  }
}

// HardSigmoid constants other than exactly 1/6 and 0.5 (in float32): a gate with its own alpha
// and beta, not HardSwish, and the bits of the pair (one ulp of alpha changes some products).
TEST(SelfGate, OtherHardSigmoidConstantsKeepTheirOwnFunction) {
  const test::RequireSplit two_thread_runs_split;
  const Shape x{2, 9001};
  const float sixth = 1.0f / 6.0f;
  const float next_up = from_bits(bits(sixth) + 1u);
  const std::vector<std::vector<IrAttribute>> attribute_sets = {
      {},  // the defaults: alpha 0.2, beta 0.5
      {float_attr("alpha", next_up), float_attr("beta", 0.5f)},
      {float_attr("alpha", sixth), float_attr("beta", from_bits(bits(0.5f) + 1u))},
  };
  for (const auto& attributes : attribute_sets) {
    GraphBuilder b(13);
    b.input("x", DType::F32, x);
    add_gate(b, Gate::HardSwishSigmoid, "x", "out", false, attributes);
    b.output("out", DType::F32);
    const IrModel model = b.build();
    const auto args = gate_args(model);
    ASSERT_EQ(args.size(), 1u);
    EXPECT_EQ(args[0].op, opt::ew::UnaryOp::HardSigmoidGate);
    EXPECT_EQ(bits_everywhere(model, {{"x", input_values(x, 12, 0)}}), "");
  }
  {  // after a Conv: into its epilogue, with the same bits
    const ConvCase c = conv_cases()[1];
    GraphBuilder b = conv_base(c);
    add_gate(b, Gate::HardSwishSigmoid, "y", "out", true, {float_attr("alpha", next_up)});
    b.output("out", DType::F32);
    const IrModel model = b.build();
    EXPECT_EQ(fused_nodes(model), 1u);
    EXPECT_EQ(bits_everywhere(model, {{"x", input_values(c.x, 13, 0)}}), "");
  }
}

// An EfficientNet block as torchvision exports it: the maps pass a MaxPool, the
// squeeze-excitation branch a GlobalAveragePool, and its product is Mul(scale, x), so the type of
// everything after it is known only through the pools (pass_graph.cpp keeps_first_input_type).
// Every Conv then takes its gate: the stem's SiLU, the excitation's Sigmoid, the projection's SiLU.
TEST(SelfGate, ThroughPoolsAndTheExcitationProduct) {
  const test::RequireSplit two_thread_runs_split;
  const Shape x{1, 3, 30, 30};
  GraphBuilder b(17);
  b.input("x", DType::F32, x)
      .initializer("w1", weights(Shape{8, 3, 3, 3}, 31))
      .initializer("w2", weights(Shape{8, 8, 1, 1}, 32))
      .initializer("w3", weights(Shape{16, 8, 1, 1}, 33))
      .node("MaxPool", {"x"}, {"p"}, {ints_attr("kernel_shape", {2, 2}), ints_attr("strides", {2, 2})})
      .node("Conv", {"p", "w1"}, {"y"}, {ints_attr("pads", {1, 1, 1, 1})});
  add_gate(b, Gate::Sigmoid, "y", "a", false);
  b.node("GlobalAveragePool", {"a"}, {"g"})
      .node("Conv", {"g", "w2"}, {"e"})
      .node("Sigmoid", {"e"}, {"s"})
      .node("Mul", {"s", "a"}, {"m"})
      .node("Conv", {"m", "w3"}, {"z"});
  add_gate(b, Gate::Sigmoid, "z", "out", true);
  b.output("out", DType::F32);
  const IrModel model = b.build();
  EXPECT_EQ(compiled(model, ExecutionMode::Exact, OptimizationLevel::None)->nodes.size(), 11u);
  EXPECT_EQ(fused_nodes(model), 6u);  // MaxPool, Conv, GlobalAveragePool, Conv, Mul, Conv
  EXPECT_EQ(gates(model), 0u);
  EXPECT_EQ(bits_everywhere(model, {{"x", input_values(x, 15)}}), "");
}

// The data movement between layers keeps the type known too (pass_graph.cpp keeps_first_input_type):
// x -> Pad -> Resize -> Slice -> Conv -> Relu, none of it declared, fuses the Relu into the Conv.
TEST(SelfGate, ThroughPadResizeAndSlice) {
  const test::RequireSplit two_thread_runs_split;
  const Shape x{1, 3, 11, 13};
  auto i64 = [](std::initializer_list<std::int64_t> v) {
    return Tensor::from_values<std::int64_t>(DType::I64, Shape{static_cast<std::int64_t>(v.size())}, v);
  };
  GraphBuilder b(17);
  b.input("x", DType::F32, x)
      .initializer("pads", i64({0, 0, 1, 2, 0, 0, 1, 0}))
      .initializer("scales", Tensor::from_values<float>(DType::F32, Shape{4}, {1.0f, 1.0f, 2.0f, 2.0f}))
      .initializer("starts", i64({1, 3}))
      .initializer("ends", i64({20, 27}))
      .initializer("axes", i64({2, 3}))
      .initializer("w", weights(Shape{8, 3, 3, 3}, 41))
      .node("Pad", {"x", "pads"}, {"p"})
      .node("Resize", {"p", "", "scales"}, {"r"})
      .node("Slice", {"r", "starts", "ends", "axes"}, {"s"})
      .node("Conv", {"s", "w"}, {"y"}, {ints_attr("pads", {1, 1, 1, 1})})
      .node("Relu", {"y"}, {"out"});
  b.output("out", DType::F32);
  const IrModel model = b.build();
  EXPECT_EQ(compiled(model, ExecutionMode::Exact, OptimizationLevel::None)->nodes.size(), 5u);
  EXPECT_EQ(fused_nodes(model), 4u);  // Pad, Resize, Slice, Conv with the Relu in its epilogue
  EXPECT_EQ(bits_everywhere(model, {{"x", input_values(x, 16)}}), "");
}

TEST(SelfGate, NearMissesAreLeftAlone) {
  const test::RequireSplit two_thread_runs_split;
  const ConvCase c = conv_cases()[0];
  const test::Feeds feeds{{"x", input_values(c.x, 14)}};
  {  // y read by a third node: the gate is one node, the Conv keeps its plain result
    GraphBuilder b = conv_base(c);
    add_gate(b, Gate::Sigmoid, "y", "g", false);
    b.node("Add", {"g", "y"}, {"out"}).output("out", DType::F32);
    const IrModel model = b.build();
    EXPECT_EQ(fused_nodes(model), 3u);  // Conv, SelfGateOp, Add
    EXPECT_EQ(gates(model), 1u);
    EXPECT_EQ(bits_everywhere(model, feeds), "");
  }
  {  // y a graph output: the same
    GraphBuilder b = conv_base(c);
    add_gate(b, Gate::Sigmoid, "y", "out", true);
    b.output("out", DType::F32).output("y", DType::F32);
    const IrModel model = b.build();
    EXPECT_EQ(fused_nodes(model), 2u);
    EXPECT_EQ(gates(model), 1u);
    EXPECT_EQ(bits_everywhere(model, feeds), "");
  }
  {  // broadcast: y * Sigmoid(GlobalAveragePool(y)), the squeeze-excitation product
    GraphBuilder b = conv_base(c);
    b.node("GlobalAveragePool", {"y"}, {"p"}).node("Sigmoid", {"p"}, {"s"}).node("Mul", {"y", "s"}, {"out"});
    b.output("out", DType::F32);
    const IrModel model = b.build();
    EXPECT_EQ(fused_nodes(model), 4u);
    EXPECT_EQ(gates(model), 0u);
    EXPECT_EQ(bits_everywhere(model, feeds), "");
  }
  {  // Mul(y, Sigmoid(z)) with z another Conv of the same shape: z takes its Sigmoid (conv-activation)
    GraphBuilder b = conv_base(c);
    b.initializer("w2", weights(c.w, 22))
        .node("Conv", {"x", "w2"}, {"z"}, c.attributes)
        .node("Sigmoid", {"z"}, {"s"})
        .node("Mul", {"y", "s"}, {"out"})
        .output("out", DType::F32);
    const IrModel model = b.build();
    EXPECT_EQ(fused_nodes(model), 3u);
    EXPECT_EQ(gates(model), 0u);
    EXPECT_EQ(bits_everywhere(model, feeds), "");
  }
  {  // the gate also read by another node
    GraphBuilder b = conv_base(c);
    add_gate(b, Gate::Sigmoid, "y", "m", false);
    b.node("Add", {"m", "m_gate"}, {"out"}).output("out", DType::F32);
    const IrModel model = b.build();
    EXPECT_EQ(gates(model), 0u);
    EXPECT_EQ(bits_everywhere(model, feeds), "");
  }
  {  // the gate a graph output
    GraphBuilder b = conv_base(c);
    add_gate(b, Gate::HardSwishSigmoid, "y", "out", false);
    b.output("out", DType::F32).output("out_gate", DType::F32);
    const IrModel model = b.build();
    EXPECT_EQ(gates(model), 0u);
    EXPECT_EQ(bits_everywhere(model, feeds), "");
  }
  {  // float64: the element-wise kernels are float32
    GraphBuilder b(13);
    b.input("x", DType::F64, Shape{4, 5});
    add_gate(b, Gate::Sigmoid, "x", "out", false);
    b.output("out", DType::F64);
    EXPECT_EQ(gates(b.build()), 0u);
  }
}

}  // namespace
}  // namespace onemodel
