// float64 and bool forms of the element-wise, softmax, normalisation and reduction operators
// (issue 12; spec/ops/elementwise.md section 10, spec/ops/norms.md section 9,
// spec/ops/products-conv.md sections 8.4 and 9, spec/exact-mode.md section 4). What is checked
// here is the mechanism: which float64 nodes exact mode refuses and how, that the exact ones run in
// both modes and both engines with the same bits, and the opset gate of bool ReduceMax/ReduceMin.
// The values themselves are checked against ONNX Runtime (or, where it has no double kernel, the
// onnx package's reference evaluator) by oracle_cases_test through tests/oracles/cases/float64.bin;
// the few written here are worked from the rule text.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <vector>

#include "core/graph/node_info.hpp"
#include "core/graph/op_kernel.hpp"
#include "onemodel/session.hpp"
#include "onemodel/session_error.hpp"
#include "tests/support/ir_builder.hpp"

namespace onemodel {
namespace {

using namespace ir_builder;

constexpr std::int32_t kOnnxDouble = 11;
constexpr std::int32_t kOnnxBool = 9;

struct OneNode {
  std::string op;
  std::int64_t opset;
  std::vector<IrAttribute> attributes;
};

Tensor f64(const Shape& shape, std::vector<double> v) {
  return Tensor::from_values<double>(DType::F64, shape, std::span<const double>(v));
}

// The values of x, a [2, 3] input with both signs (positive for Log and ReduceLogSum).
std::vector<double> sample_values(const std::string& op) {
  if (op == "Log" || op == "ReduceLogSum") return {0.5, 1.0, 2.0, 3.5, 0.25, 7.0};
  return {-1.5, -0.25, 0.0, 0.75, 2.0, -3.0};
}

std::vector<Tensor> run(const OneNode& n, const std::vector<NodeInput>& inputs, std::int32_t out_elem,
                        ExecutionMode mode, EngineKind engine) {
  IrModel model = one_node_model(n.op, n.opset, inputs, {unshaped_tensor_value_info("y", out_elem)}, n.attributes);
  SessionOptions options;
  options.mode = mode;
  options.engine = engine;
  options.intra_op_threads = 1;
  const Session session = Session::create(std::move(model), options);
  return session.run(feeds_of(inputs));
}

std::vector<std::uint64_t> bits_of(const Tensor& t) {
  std::vector<std::uint64_t> out;
  for (double v : t.to_vector<double>()) {
    std::uint64_t u;
    std::memcpy(&u, &v, sizeof u);
    out.push_back(u);
  }
  return out;
}

// Operators whose float64 form used the platform's std:: functions and was refused in exact mode
// until the exact binary64 functions of spec/exact-transcendentals.md sections 16 (trigonometric)
// and 17 (hyperbolic, erf) existed: every one now runs in exact mode.
const std::vector<OneNode> kExactSinceSections16And17 = {
    {"Tanh", 13, {}}, {"Erf", 13, {}},  {"Gelu", 20, {}}, {"Mish", 18, {}},  {"Swish", 24, {}}, {"Sin", 7, {}},
    {"Cos", 7, {}},   {"Tan", 7, {}},   {"Asin", 7, {}},  {"Acos", 7, {}},   {"Atan", 7, {}},   {"Sinh", 9, {}},
    {"Cosh", 9, {}},  {"Asinh", 9, {}}, {"Acosh", 9, {}}, {"Atanh", 9, {}}};

// Operators whose float64 form is built on the exact binary64 exp and log
// (spec/exact-transcendentals.md section 15): exact in both modes (issue 17).
const std::vector<OneNode> kExactThroughF64ExpLog = {
    {"Exp", 13, {}},         {"Log", 13, {}},        {"Sigmoid", 13, {}},     {"Elu", 6, {}},
    {"Selu", 6, {}},         {"Softplus", 1, {}},    {"Softmax", 13, {}},     {"LogSoftmax", 13, {}},
    {"Softmax", 11, {}},     {"LogSoftmax", 11, {}}, {"ReduceLogSum", 18, {}}, {"ReduceLogSumExp", 18, {}},
    {"ReduceLogSumExp", 13, {}}};

// The exp/log-based float64 forms run in exact mode, in both engines, and give the same bits in
// both modes (one definition); NaN comes out canonical.
TEST(Float64Ops, ExpLogFormsAreExactInBothModesAndEngines) {
  for (const OneNode& n : kExactThroughF64ExpLog) {
    SCOPED_TRACE(n.op + " opset " + std::to_string(n.opset));
    std::vector<double> values = sample_values(n.op);
    values[5] = std::nan("");  // one NaN per input: its outputs must be the canonical NaN
    const std::vector<NodeInput> x64{{"x", f64({2, 3}, values)}};
    const std::vector<std::uint64_t> want =
        bits_of(run(n, x64, kOnnxDouble, ExecutionMode::Exact, EngineKind::Reference).at(0));
    for (std::uint64_t b : want) {
      if ((b & 0x7FF0000000000000ull) == 0x7FF0000000000000ull && (b & 0x000FFFFFFFFFFFFFull) != 0) {
        EXPECT_EQ(b, 0x7FF8000000000000ull);
      }
    }
    for (ExecutionMode mode : {ExecutionMode::Fast, ExecutionMode::Exact}) {
      for (EngineKind engine : {EngineKind::Reference, EngineKind::Optimized}) {
        EXPECT_EQ(bits_of(run(n, x64, kOnnxDouble, mode, engine).at(0)), want);
      }
    }
  }
}

// The float64 forms once refused in exact mode run there now, in both engines, and give the same
// bits in both modes (one definition); a NaN comes out canonical.
TEST(Float64Ops, FormerlyRefusedFormsRunInExactMode) {
  for (const OneNode& n : kExactSinceSections16And17) {
    SCOPED_TRACE(n.op + " opset " + std::to_string(n.opset));
    std::vector<double> values = sample_values(n.op);
    values[5] = std::nan("");
    const std::vector<NodeInput> x64{{"x", f64({2, 3}, values)}};
    const std::vector<std::uint64_t> want =
        bits_of(run(n, x64, kOnnxDouble, ExecutionMode::Exact, EngineKind::Reference).at(0));
    EXPECT_EQ(want[5], 0x7FF8000000000000ull);
    for (ExecutionMode mode : {ExecutionMode::Fast, ExecutionMode::Exact}) {
      for (EngineKind engine : {EngineKind::Reference, EngineKind::Optimized}) {
        EXPECT_EQ(bits_of(run(n, x64, kOnnxDouble, mode, engine).at(0)), want);
      }
    }
  }
}

// spec/exact-mode.md section 4, the mechanism that refused them: a kernel whose float64 form is not
// exact (OpKernel::float64_exact = false) is refused with ExactModeUnavailable naming the operator
// when a float64 node is shaped in exact mode, and accepted in fast mode or for float32. No operator
// of the table has such a form now, so a stand-in kernel is shaped directly through infer_node.
TEST(Float64Ops, AKernelWithoutAnExactFloat64FormIsRefusedInExactMode) {
  struct InexactFloat64 final : OpKernel {
    InexactFloat64() { float64_exact = false; }
    void infer(InferContext& context) const override {
      context.set_output(0, context.input_type(0), context.input_shape(0));
    }
    void run(RunContext&) const override {}
  };
  const InexactFloat64 kernel;
  IrNode node;
  node.op_type = "Stand";
  node.inputs = {"x"};
  node.outputs = {"y"};
  auto shape = [&](ExecutionMode mode, DType type) {
    const NodeInfo info(node, 1, mode);
    std::vector<InferInput> in(1);
    in[0].present = true;
    in[0].type = type;
    in[0].shape = Shape{2};
    std::vector<InferOutput> out(1);
    out[0].wanted = true;
    InferContext context(info, in, out);
    infer_node(kernel, context);
  };
  try {
    shape(ExecutionMode::Exact, DType::F64);
    ADD_FAILURE() << "a float64 node was shaped in exact mode";
  } catch (const SessionError& e) {
    EXPECT_EQ(e.kind(), SessionErrorKind::ExactModeUnavailable) << e.what();
    EXPECT_NE(e.message().find("Stand"), std::string::npos) << e.message();
  }
  EXPECT_NO_THROW(shape(ExecutionMode::Fast, DType::F64));
  EXPECT_NO_THROW(shape(ExecutionMode::Exact, DType::F32));
}

// The float64 forms built from + - * /, sqrt and comparisons are exact: both modes and both
// engines give the same bits (the optimized overrides hand float64 to the reference kernels).
TEST(Float64Ops, ExactFormsAgreeAcrossModesAndEngines) {
  const Tensor x = f64({1, 2, 3}, {-1.5, -0.25, 0.0, 0.75, 2.0, -3.0});
  const Tensor c2 = f64({2}, {1.5, -0.5});
  const Tensor c2b = f64({2}, {0.25, 2.0});
  const Tensor var = f64({2}, {0.5, 3.0});
  struct Case {
    OneNode node;
    std::vector<NodeInput> inputs;
  };
  const std::vector<Case> cases = {
      {{"LeakyRelu", 16, {float_attr("alpha", 0.1f)}}, {{"x", x}}},
      {{"HardSigmoid", 6, {}}, {{"x", x}}},
      {{"HardSwish", 14, {}}, {{"x", x}}},
      {{"Shrink", 9, {float_attr("bias", 0.25f), float_attr("lambd", 0.5f)}}, {{"x", x}}},
      {{"ThresholdedRelu", 10, {float_attr("alpha", 0.5f)}}, {{"x", x}}},
      {{"Softsign", 1, {}}, {{"x", x}}},
      {{"Hardmax", 13, {}}, {{"x", x}}},
      {{"InstanceNormalization", 6, {}}, {{"x", x}, {"s", c2}, {"b", c2b}}},
      {{"GroupNormalization", 18, {int_attr("num_groups", 2)}}, {{"x", x}, {"s", c2}, {"b", c2b}}},
      {{"BatchNormalization", 15, {}}, {{"x", x}, {"s", c2}, {"b", c2b}, {"m", c2b}, {"v", var}}},
      {{"GroupNormalization", 21, {int_attr("num_groups", 1)}}, {{"x", x}, {"s", c2}, {"b", c2b}}},
      {{"LayerNormalization", 17, {}}, {{"x", x}, {"s", f64({3}, {1.5, -0.5, 2.0})}, {"b", f64({3}, {0.25, 2.0, -1.0})}}},
      {{"RMSNormalization", 23, {}}, {{"x", x}, {"s", f64({3}, {1.5, -0.5, 2.0})}}},
      {{"GlobalAveragePool", 1, {}}, {{"x", x}}},
      {{"AveragePool", 19, {ints_attr("kernel_shape", {2}), ints_attr("pads", {1, 0}), int_attr("count_include_pad", 1)}},
       {{"x", x}}},
      {{"GlobalMaxPool", 1, {}}, {{"x", x}}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.node.op);
    const Tensor want = run(c.node, c.inputs, kOnnxDouble, ExecutionMode::Exact, EngineKind::Reference).at(0);
    ASSERT_EQ(want.dtype(), DType::F64);
    for (ExecutionMode mode : {ExecutionMode::Fast, ExecutionMode::Exact}) {
      for (EngineKind engine : {EngineKind::Reference, EngineKind::Optimized}) {
        EXPECT_EQ(bits_of(run(c.node, c.inputs, kOnnxDouble, mode, engine).at(0)), bits_of(want));
      }
    }
  }
}

// Worked from the rules: LeakyRelu multiplies by the float attribute widened exactly (0.1f is
// 0.100000001490116119384765625); HardSwish uses 1/6 rounded to double; GlobalAveragePool divides
// the index-order sum by the plane size in double; BatchNormalization a = s / sqrt(v + eps).
TEST(Float64Ops, WorkedValues) {
  const Tensor x = f64({1, 1, 4}, {-2.0, 3.0, -0.5, 6.0});
  const double alpha = static_cast<double>(0.1f);
  auto y = run({"LeakyRelu", 16, {float_attr("alpha", 0.1f)}}, {{"x", x}}, kOnnxDouble, ExecutionMode::Exact,
               EngineKind::Optimized);
  EXPECT_EQ(y.at(0).to_vector<double>(), (std::vector<double>{-2.0 * alpha, 3.0, -0.5 * alpha, 6.0}));
  y = run({"HardSwish", 14, {}}, {{"x", x}}, kOnnxDouble, ExecutionMode::Exact, EngineKind::Reference);
  // x = 3: 3 * (1/6) + 0.5 = 1 -> 3; x = -0.5: gate (-0.5 * (1/6)) + 0.5, result -0.5 * gate;
  // x = -2: gate 0.1666... > 0; x = 6: clamped to 1.
  const double sixth = 1.0 / 6.0;
  EXPECT_EQ(y.at(0).to_vector<double>(),
            (std::vector<double>{-2.0 * (-2.0 * sixth + 0.5), 3.0, -0.5 * (-0.5 * sixth + 0.5), 6.0}));
  y = run({"GlobalAveragePool", 1, {}}, {{"x", x}}, kOnnxDouble, ExecutionMode::Exact, EngineKind::Optimized);
  EXPECT_EQ(y.at(0).to_vector<double>(), (std::vector<double>{(((-2.0 + 3.0) + -0.5) + 6.0) / 4.0}));
  y = run({"GlobalMaxPool", 1, {}}, {{"x", f64({1, 1, 2}, {NAN, -INFINITY})}}, kOnnxDouble, ExecutionMode::Exact,
          EngineKind::Optimized);
  EXPECT_EQ(y.at(0).to_vector<double>(), (std::vector<double>{-1.7976931348623157e308}));
  const Tensor one = f64({1}, {1.0});
  y = run({"BatchNormalization", 15, {float_attr("epsilon", 0.0f)}},
          {{"x", f64({1, 1, 2}, {5.0, -1.0})}, {"s", f64({1}, {2.0})}, {"b", f64({1}, {0.5})}, {"m", one},
           {"v", f64({1}, {4.0})}},
          kOnnxDouble, ExecutionMode::Exact, EngineKind::Optimized);
  // a = 2 / sqrt(4) = 1, shift = 0.5 - 1 * 1 = -0.5: y = x - 0.5.
  EXPECT_EQ(y.at(0).to_vector<double>(), (std::vector<double>{4.5, -1.5}));
  // A float64 NaN is stored as 0x7FF8000000000000 (spec/ops/elementwise.md section 3).
  y = run({"Softsign", 1, {}}, {{"x", f64({1}, {-NAN})}}, kOnnxDouble, ExecutionMode::Exact, EngineKind::Reference);
  EXPECT_EQ(bits_of(y.at(0)), (std::vector<std::uint64_t>{0x7FF8000000000000ull}));
}

// spec/ops/norms.md section 9: LayerNormalization, RMSNormalization and GroupNormalization 21 on
// float64 run stage one in float32, as their ONNX function bodies cast X to stash_type (1). Rows
// that differ only below float32's precision are then all equal to the mean: n = 0 and y = bias
// (in binary64 the deviations, about 5e-13, would give y = bias +- 1.6e-10 * scale). Another
// stash_type is Unsupported for float64 and ignored for float32.
TEST(Float64Ops, StashTypeOneRunsStageOneInFloat32) {
  const Tensor x = f64({1, 2}, {1.0 + 1e-12, 1.0});
  const Tensor scale = f64({2}, {3.0, 5.0});
  const Tensor bias = f64({2}, {0.125, -7.5});
  for (EngineKind engine : {EngineKind::Reference, EngineKind::Optimized}) {
    auto y = run({"LayerNormalization", 17, {}}, {{"x", x}, {"s", scale}, {"b", bias}}, kOnnxDouble,
                 ExecutionMode::Exact, engine);
    EXPECT_EQ(y.at(0).to_vector<double>(), (std::vector<double>{0.125, -7.5}));
    y = run({"GroupNormalization", 21, {int_attr("num_groups", 1)}},
            {{"x", f64({1, 2, 1}, {1.0 + 1e-12, 1.0})}, {"s", scale}, {"b", bias}}, kOnnxDouble,
            ExecutionMode::Exact, engine);
    EXPECT_EQ(y.at(0).to_vector<double>(), (std::vector<double>{0.125, -7.5}));
    // RMSNormalization: x rounded to 1.0f twice, v = 1, inv = 1 / sqrt(1 + 1e-5f) in float32.
    y = run({"RMSNormalization", 23, {}}, {{"x", x}, {"s", scale}}, kOnnxDouble, ExecutionMode::Exact, engine);
    const float inv = 1.0f / std::sqrt(1.0f + 1e-5f);
    EXPECT_EQ(y.at(0).to_vector<double>(), (std::vector<double>{static_cast<double>(inv) * 3.0,
                                                                 static_cast<double>(inv) * 5.0}));
    EXPECT_EQ(session_error_kind_of([&] {
                run({"LayerNormalization", 17, {int_attr("stash_type", 11)}}, {{"x", x}, {"s", scale}, {"b", bias}},
                    kOnnxDouble, ExecutionMode::Fast, engine);
              }),
              SessionErrorKind::Unsupported);
    const Tensor x32 = Tensor::from_values<float>(DType::F32, Shape{1, 2}, {1.0f, 2.0f});
    const Tensor s32 = Tensor::from_values<float>(DType::F32, Shape{2}, {1.0f, 1.0f});
    EXPECT_NO_THROW(run({"LayerNormalization", 17, {int_attr("stash_type", 11)}}, {{"x", x32}, {"s", s32}}, 1,
                        ExecutionMode::Fast, engine));
  }
}

// spec/ops/norms.md section 6, "bool": from opset 20 ReduceMax is "any" and ReduceMin "all"
// (empty: false and true); before opset 20 ONNX does not define bool and the node is Unsupported.
TEST(Float64Ops, BoolReduceMaxMinFromOpset20) {
  const Tensor b = Tensor::from_values<std::uint8_t>(DType::Bool, Shape{2, 3}, {0, 1, 0, 1, 1, 1});
  const Tensor axes = Tensor::from_values<std::int64_t>(DType::I64, Shape{1}, {1});
  for (EngineKind engine : {EngineKind::Reference, EngineKind::Optimized}) {
    for (ExecutionMode mode : {ExecutionMode::Fast, ExecutionMode::Exact}) {
      auto y = run({"ReduceMax", 20, {int_attr("keepdims", 0)}}, {{"x", b}, {"axes", axes}}, kOnnxBool, mode, engine);
      EXPECT_EQ(y.at(0).dtype(), DType::Bool);
      EXPECT_EQ(y.at(0).to_vector<std::uint8_t>(), (std::vector<std::uint8_t>{1, 1}));
      y = run({"ReduceMin", 20, {int_attr("keepdims", 0)}}, {{"x", b}, {"axes", axes}}, kOnnxBool, mode, engine);
      EXPECT_EQ(y.at(0).to_vector<std::uint8_t>(), (std::vector<std::uint8_t>{0, 1}));
    }
    const Tensor empty = Tensor::from_values<std::uint8_t>(DType::Bool, Shape{2, 0}, std::span<const std::uint8_t>());
    auto y = run({"ReduceMax", 20, {int_attr("keepdims", 0)}}, {{"x", empty}, {"axes", axes}}, kOnnxBool,
                 ExecutionMode::Exact, engine);
    EXPECT_EQ(y.at(0).to_vector<std::uint8_t>(), (std::vector<std::uint8_t>{0, 0}));
    y = run({"ReduceMin", 20, {int_attr("keepdims", 0)}}, {{"x", empty}, {"axes", axes}}, kOnnxBool,
            ExecutionMode::Exact, engine);
    EXPECT_EQ(y.at(0).to_vector<std::uint8_t>(), (std::vector<std::uint8_t>{1, 1}));
    EXPECT_EQ(session_error_kind_of([&] {
                run({"ReduceMax", 18, {}}, {{"x", b}, {"axes", axes}}, kOnnxBool, ExecutionMode::Fast, engine);
              }),
              SessionErrorKind::Unsupported);
  }
}

}  // namespace
}  // namespace onemodel
