// BatchNormalization with training_mode = 1 (spec/ops/products-conv.md section 9.1; the ONNX
// BatchNormalization text, opsets 14 and 15). Expected values are worked by hand from the ONNX
// formulas (numpy's x.mean(axis=(0, 2)) and x.var(axis=(0, 2)) give the same statistics), on
// binary fractions so every step is exact; the order test uses the canonical-sum example of
// spec/ops/norms.md section 2.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "onemodel/session.hpp"
#include "tests/support/ir_builder.hpp"

namespace onemodel {
namespace {

using namespace ir_builder;

Tensor f32(const Shape& shape, std::vector<float> v) { return Tensor::from_values<float>(DType::F32, shape, v); }
Tensor f64(const Shape& shape, std::vector<double> v) { return Tensor::from_values<double>(DType::F64, shape, v); }

std::vector<Tensor> run_bn(const std::vector<NodeInput>& inputs, std::vector<IrAttribute> attributes, std::int64_t opset,
                           ExecutionMode mode, std::int32_t elem = 1, int outputs = 3,
                           EngineKind engine = EngineKind::Reference) {
  std::vector<IrValueInfo> declared{unshaped_tensor_value_info("y", elem)};
  if (outputs >= 2) declared.push_back(unshaped_tensor_value_info("running_mean", elem));
  if (outputs >= 3) declared.push_back(unshaped_tensor_value_info("running_var", elem));
  IrModel model = one_node_model("BatchNormalization", opset, inputs, declared, std::move(attributes));
  SessionOptions options;
  options.mode = mode;
  options.engine = engine;
  options.intra_op_threads = 1;
  return Session::create(std::move(model), options).run(feeds_of(inputs));
}

// X [N=2, C=2, 2]: channel 0 holds 1, 2 (n = 0) and 3, 6 (n = 1): mean 3, var (4+1+0+9)/4 = 3.5;
// channel 1 holds 10, 11 and 12, 15: mean 12, var (4+1+0+9)/4 = 3.5. epsilon 0.5: sqrt(4) = 2.
// Channel 0: scale 2, B 1: a = 2 / 2 = 1, shift = 1 - 3 = -2, y = x - 2.
// Channel 1: scale 4, B 0: a = 4 / 2 = 2, shift = 0 - 24 = -24, y = 2x - 24.
// momentum 0.75: running_mean = m_in * 0.75 + mean * 0.25; running_var = v_in * 0.75 + var * 0.25.
std::vector<NodeInput> example(bool float64) {
  const Shape xs{2, 2, 2}, cs{2};
  const std::vector<double> x{1, 2, 10, 11, 3, 6, 12, 15};
  const std::vector<double> scale{2, 4}, bias{1, 0}, mean{1, 4}, var{0.5, 1.5};
  if (float64) return {{"x", f64(xs, x)}, {"s", f64(cs, scale)}, {"b", f64(cs, bias)}, {"m", f64(cs, mean)}, {"v", f64(cs, var)}};
  auto narrow = [](const std::vector<double>& v) { return std::vector<float>(v.begin(), v.end()); };
  return {{"x", f32(xs, narrow(x))},
          {"s", f32(cs, narrow(scale))},
          {"b", f32(cs, narrow(bias))},
          {"m", f32(cs, narrow(mean))},
          {"v", f32(cs, narrow(var))}};
}

TEST(BatchNormalizationTraining, BatchStatisticsAndRunningOutputs) {
  const std::vector<IrAttribute> attrs{int_attr("training_mode", 1), float_attr("epsilon", 0.5f),
                                       float_attr("momentum", 0.75f)};
  // y: channel 0 x - 2 -> -1, 0, 1, 4; channel 1 2x - 24 -> -4, -2, 0, 6.
  const std::vector<double> want_y{-1, 0, -4, -2, 1, 4, 0, 6};
  // running_mean: 1*0.75 + 3*0.25 = 1.5; 4*0.75 + 12*0.25 = 6. running_var: 0.5*0.75 + 3.5*0.25 =
  // 1.25; 1.5*0.75 + 3.5*0.25 = 2.
  const std::vector<double> want_mean{1.5, 6}, want_var{1.25, 2};
  for (std::int64_t opset : {14, 15}) {
    for (ExecutionMode mode : {ExecutionMode::Exact, ExecutionMode::Fast}) {
      for (EngineKind engine : {EngineKind::Reference, EngineKind::Optimized}) {
        SCOPED_TRACE(opset);
        const auto out = run_bn(example(false), attrs, opset, mode, 1, 3, engine);
        const auto y = out.at(0).to_vector<float>();
        EXPECT_EQ(std::vector<double>(y.begin(), y.end()), want_y);
        const auto m = out.at(1).to_vector<float>();
        const auto v = out.at(2).to_vector<float>();
        EXPECT_EQ(std::vector<double>(m.begin(), m.end()), want_mean);
        EXPECT_EQ(std::vector<double>(v.begin(), v.end()), want_var);
        const auto out64 = run_bn(example(true), attrs, opset, mode, 11, 3, engine);
        EXPECT_EQ(out64.at(0).to_vector<double>(), want_y);
        EXPECT_EQ(out64.at(1).to_vector<double>(), want_mean);
        EXPECT_EQ(out64.at(2).to_vector<double>(), want_var);
        // Y alone (the running outputs omitted) is the same Y, also in the optimized engine.
        const auto y_only = run_bn(example(false), attrs, opset, mode, 1, 1, engine).at(0).to_vector<float>();
        EXPECT_EQ(y_only, y);
      }
    }
  }
}

// The batch mean is Sum16 over (n, spatial) / M: 17 terms 1, 2^-24, ..., 2^-24 in one channel sum
// to 1 + 7*2^-23 canonically (spec/ops/norms.md section 2, worked there) but to 1 left to right.
// With momentum 0 the running mean is the batch mean itself: (1 + 7*2^-23) / 17.
TEST(BatchNormalizationTraining, MeanUsesTheCanonicalSum) {
  std::vector<float> t(17, std::ldexp(1.0f, -24));
  t[0] = 1.0f;
  const std::vector<NodeInput> in{{"x", f32(Shape{1, 1, 17}, t)},
                                  {"s", f32(Shape{1}, {1})},
                                  {"b", f32(Shape{1}, {0})},
                                  {"m", f32(Shape{1}, {0})},
                                  {"v", f32(Shape{1}, {1})}};
  const auto out = run_bn(in, {int_attr("training_mode", 1), float_attr("momentum", 0.0f)}, 15, ExecutionMode::Exact);
  const float canonical = (1.0f + 7.0f * std::ldexp(1.0f, -23)) / 17.0f;
  EXPECT_EQ(out.at(1).to_vector<float>().at(0), canonical);
  EXPECT_NE(canonical, 1.0f / 17.0f);
}

// Refusals: training_mode other than 0 or 1 (InvalidModel); running outputs asked for without
// training mode from opset 14 (the ONNX text: "extra outputs are invalid"); before opset 14 the
// training outputs stay Unsupported; training_mode = 1 at opset 9 (the attribute is 14's) too.
TEST(BatchNormalizationTraining, Refusals) {
  const auto in = example(false);
  auto kind = [&](std::vector<IrAttribute> attrs, std::int64_t opset, int outputs) {
    return session_error_kind_of([&] { run_bn(in, std::move(attrs), opset, ExecutionMode::Exact, 1, outputs); });
  };
  EXPECT_EQ(kind({int_attr("training_mode", 2)}, 15, 1), SessionErrorKind::InvalidModel);
  EXPECT_EQ(kind({}, 15, 3), SessionErrorKind::InvalidModel);
  EXPECT_EQ(kind({}, 9, 3), SessionErrorKind::Unsupported);
  EXPECT_EQ(kind({int_attr("training_mode", 1)}, 9, 1), SessionErrorKind::Unsupported);
}

}  // namespace
}  // namespace onemodel
