// CausalConvWithState in the reference engine (spec/ops/products-conv.md section 14). Expected
// values are worked by hand from the section's rules with inputs chosen so every step is exact (or,
// for SiLU, against the closed form); none comes from running the code under test. The backend data
// and the `_expanded` twins are checked by the conformance runner.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "onemodel/session.hpp"
#include "onemodel/session_error.hpp"
#include "tests/support/ir_builder.hpp"

namespace onemodel {
namespace {

using namespace ir_builder;

Tensor f32(const Shape& shape, std::vector<float> v) { return Tensor::from_values<float>(DType::F32, shape, v); }

// input, weight, bias ("" name: omitted), past_state ("" name: omitted); returns output, present_state.
std::vector<Tensor> causal(const Tensor& input, const Tensor& weight, const Tensor* bias, const Tensor* past,
                           std::vector<IrAttribute> attrs = {}, ExecutionMode mode = ExecutionMode::Fast) {
  std::vector<NodeInput> inputs{{"input", input}, {"weight", weight}};
  inputs.push_back(bias != nullptr ? NodeInput{"bias", *bias} : NodeInput{"", Tensor()});
  if (past != nullptr) inputs.push_back({"past_state", *past});
  return run_one_node("CausalConvWithState", 27, inputs,
                      {unshaped_tensor_value_info("output", 1), unshaped_tensor_value_info("present_state", 1)},
                      std::move(attrs), mode, /*ir_version=*/13);
}

// Section 14: P = [0, 0, 1, 2, 3, 4] (two zeros of carry), y[t] = P[t] + 10 P[t+1] + 100 P[t+2];
// present_state = P's last two.
TEST(CausalConvWithState, ZeroCarryWhenNoPastState) {
  for (ExecutionMode mode : {ExecutionMode::Fast, ExecutionMode::Exact}) {
    const auto out = causal(f32({1, 1, 4}, {1, 2, 3, 4}), f32({1, 1, 3}, {1, 10, 100}), nullptr, nullptr, {}, mode);
    ASSERT_EQ(out.at(0).shape(), (Shape{1, 1, 4}));
    EXPECT_EQ(out.at(0).to_vector<float>(), (std::vector<float>{100, 210, 321, 432}));
    ASSERT_EQ(out.at(1).shape(), (Shape{1, 1, 2}));
    EXPECT_EQ(out.at(1).to_vector<float>(), (std::vector<float>{3, 4}));
  }
}

// With a carry [5, 6] and bias 0.5: P = [5, 6, 1, 2, 3, 4]; two channels, each its own taps and bias
// (channel 1 has taps [0, 0, 1], so it copies the input, then adds -1).
TEST(CausalConvWithState, PastStateBiasAndChannels) {
  const Tensor input = f32({1, 2, 4}, {1, 2, 3, 4, 1, 2, 3, 4});
  const Tensor weight = f32({2, 1, 3}, {1, 10, 100, 0, 0, 1});
  const Tensor bias = f32({2}, {0.5f, -1});
  const Tensor past = f32({1, 2, 2}, {5, 6, 7, 8});
  const auto out = causal(input, weight, &bias, &past);
  EXPECT_EQ(out.at(0).to_vector<float>(), (std::vector<float>{165.5f, 216.5f, 321.5f, 432.5f, 0, 1, 2, 3}));
  EXPECT_EQ(out.at(1).to_vector<float>(), (std::vector<float>{3, 4, 3, 4}));
}

// Section 14: an input shorter than k - 1 keeps the end of the old carry ahead of it; k = 1 has an
// empty state.
TEST(CausalConvWithState, ShortInputAndKernelOfOne) {
  const Tensor past = f32({1, 1, 3}, {7, 8, 9});
  const auto out = causal(f32({1, 1, 1}, {1}), f32({1, 1, 4}, {1, 1, 1, 1}), nullptr, &past);
  EXPECT_EQ(out.at(0).to_vector<float>(), (std::vector<float>{25}));
  EXPECT_EQ(out.at(1).to_vector<float>(), (std::vector<float>{8, 9, 1}));
  const auto one = causal(f32({1, 1, 3}, {1, 2, 3}), f32({1, 1, 1}, {2}), nullptr, nullptr);
  EXPECT_EQ(one.at(0).to_vector<float>(), (std::vector<float>{2, 4, 6}));
  EXPECT_EQ(one.at(1).shape(), (Shape{1, 1, 0}));
}

// SiLU: y * sigmoid(y) = y / (1 + e^-y) after the bias; swish is the same function.
TEST(CausalConvWithState, SiluAndSwishAfterTheBias) {
  const Tensor bias = f32({1}, {1});
  const auto silu = causal(f32({1, 1, 2}, {-1, 1}), f32({1, 1, 1}, {1}), &bias, nullptr, {string_attr("activation", "silu")},
                           ExecutionMode::Exact);
  const auto swish = causal(f32({1, 1, 2}, {-1, 1}), f32({1, 1, 1}, {1}), &bias, nullptr,
                            {string_attr("activation", "swish")}, ExecutionMode::Exact);
  const std::vector<float> y = silu.at(0).to_vector<float>();
  EXPECT_EQ(float_bits(y.at(0)), 0u);  // (-1 + 1) = +0, times sigmoid(0) = 0.5
  EXPECT_NEAR(y.at(1), 2.0 / (1.0 + std::exp(-2.0)), 4e-7);
  const std::vector<float> z = swish.at(0).to_vector<float>();
  EXPECT_EQ(float_bits(z.at(1)), float_bits(y.at(1)));
}

// Section 2's order inside one output: P = [1, 2^24, -2^24] with taps [1, 1, 1] is
// ((+0 + 1) + 2^24) + (-2^24) = 0 in increasing tap order (2^24 + 1 rounds to 2^24); decreasing
// order would give 1.
TEST(CausalConvWithState, TapsAddInIncreasingOrder) {
  const float big = 16777216.0f;
  for (ExecutionMode mode : {ExecutionMode::Fast, ExecutionMode::Exact}) {
    const auto out = causal(f32({1, 1, 3}, {1, big, -big}), f32({1, 1, 3}, {1, 1, 1}), nullptr, nullptr, {}, mode);
    EXPECT_EQ(float_bits(out.at(0).to_vector<float>().at(2)), 0u);
  }
}

TEST(CausalConvWithState, Refusals) {
  const Tensor input = f32({1, 2, 3}, {1, 2, 3, 4, 5, 6});
  const Tensor weight = f32({2, 1, 2}, {1, 1, 1, 1});
  const auto kind = [](const std::function<void()>& f) { return session_error_kind_of(f); };
  EXPECT_EQ(kind([&] { causal(input, weight, nullptr, nullptr, {string_attr("activation", "relu")}); }),
            SessionErrorKind::InvalidModel);
  // weight (C, 2, k), wrong channels, k = 0
  EXPECT_EQ(kind([&] { causal(input, f32({2, 2, 1}, {1, 1, 1, 1}), nullptr, nullptr); }), SessionErrorKind::InvalidModel);
  EXPECT_EQ(kind([&] { causal(input, f32({3, 1, 1}, {1, 1, 1}), nullptr, nullptr); }), SessionErrorKind::InvalidModel);
  EXPECT_EQ(kind([&] { causal(input, f32({2, 1, 0}, {}), nullptr, nullptr); }), SessionErrorKind::InvalidModel);
  // bias of the wrong length, past_state of the wrong length, input not 3-D
  const Tensor bias3 = f32({3}, {1, 2, 3});
  EXPECT_EQ(kind([&] { causal(input, weight, &bias3, nullptr); }), SessionErrorKind::InvalidModel);
  const Tensor past2 = f32({1, 2, 2}, {1, 2, 3, 4});
  EXPECT_EQ(kind([&] { causal(input, weight, nullptr, &past2); }), SessionErrorKind::InvalidModel);
  EXPECT_EQ(kind([&] { causal(f32({2, 3}, {1, 2, 3, 4, 5, 6}), weight, nullptr, nullptr); }), SessionErrorKind::InvalidModel);
  // float64 is not a type of the operator
  const Tensor d = Tensor::from_values<double>(DType::F64, Shape{1, 2, 3}, {1, 2, 3, 4, 5, 6});
  EXPECT_EQ(kind([&] { causal(d, weight, nullptr, nullptr); }), SessionErrorKind::Unsupported);
}

}  // namespace
}  // namespace onemodel
