// RNN, GRU and LSTM on tiny hand-computed cases (spec/ops/recurrent.md sections 4-6): hidden size
// 1, two steps. The activations are chosen so every intermediate value is a short binary fraction
// (Relu, Affine, HardSigmoid with alpha 0.25 and beta 0.5), so the expected values below were worked
// out by hand with exact fractions from the spec's order of operations; where a last product does
// not fit in float32, the expected value is that exact fraction rounded once to float32.
#include <gtest/gtest.h>

#include <optional>

#include "onemodel/session.hpp"
#include "tests/support/ir_builder.hpp"

namespace onemodel {
namespace {

using namespace ir_builder;

// One recurrent node; every present input is a graph input. `outputs` uses "" for omitted ones.
struct Case {
  std::string op;
  std::vector<NodeInput> inputs;
  std::vector<std::string> outputs;
  std::vector<IrAttribute> attributes;
};

std::vector<Tensor> run_case(const Case& c, ExecutionMode mode) {
  std::vector<IrValueInfo> outputs;
  for (const std::string& out : c.outputs) outputs.push_back(unshaped_tensor_value_info(out, 1));
  return run_one_node(c.op, 22, c.inputs, outputs, c.attributes, mode);
}

Tensor f32(const Shape& shape, std::initializer_list<float> values) { return Tensor::from_values<float>(DType::F32, shape, values); }

// RNN, Relu, X = [1, 2] (seq 2, batch 1, input 1), W = 0.5, R = 0.25, Wb = 0.125, Rb = -0.5, h0 = 1.
Case rnn_case(const std::string& direction, std::optional<float> clip) {
  Case c;
  c.op = "RNN";
  c.inputs = {{"X", f32(Shape{2, 1, 1}, {1.0f, 2.0f})},
              {"W", f32(Shape{1, 1, 1}, {0.5f})},
              {"R", f32(Shape{1, 1, 1}, {0.25f})},
              {"B", f32(Shape{1, 2}, {0.125f, -0.5f})},
              {"", {}},
              {"initial_h", f32(Shape{1, 1, 1}, {1.0f})}};
  c.outputs = {"Y", "Y_h"};
  c.attributes = {int_attr("hidden_size", 1), string_attr("direction", direction), strings_attr("activations", {"Relu"})};
  if (clip) c.attributes.push_back(float_attr("clip", *clip));
  return c;
}

TEST(Recurrent, RnnForwardTwoStepsByHand) {
  // t=0: ((0.5*1 + 0.25*1) + 0.125) - 0.5 = 0.375; t=1: ((1 + 0.25*0.375) + 0.125) - 0.5 = 0.71875.
  for (ExecutionMode mode : {ExecutionMode::Fast, ExecutionMode::Exact}) {
    auto out = run_case(rnn_case("forward", std::nullopt), mode);
    ASSERT_EQ(out.size(), 2u);
    EXPECT_EQ(out[0].shape(), (Shape{2, 1, 1, 1}));
    EXPECT_EQ(out[0].to_vector<float>(), (std::vector<float>{0.375f, 0.71875f}));
    EXPECT_EQ(out[1].to_vector<float>(), (std::vector<float>{0.71875f}));
  }
}

TEST(Recurrent, RnnReverseStartsAtTheLastStep) {
  // t=1 first: ((1 + 0.25) + 0.125) - 0.5 = 0.875; then t=0: ((0.5 + 0.25*0.875) + 0.125) - 0.5 = 0.34375.
  auto out = run_case(rnn_case("reverse", std::nullopt), ExecutionMode::Exact);
  EXPECT_EQ(out[0].to_vector<float>(), (std::vector<float>{0.34375f, 0.875f}));
  EXPECT_EQ(out[1].to_vector<float>(), (std::vector<float>{0.34375f}));
}

TEST(Recurrent, RnnClipClampsThePreActivation) {
  // Step 2's pre-activation 0.71875 is clamped to 0.5 before Relu.
  auto out = run_case(rnn_case("forward", 0.5f), ExecutionMode::Exact);
  EXPECT_EQ(out[0].to_vector<float>(), (std::vector<float>{0.375f, 0.5f}));
  EXPECT_EQ(out[1].to_vector<float>(), (std::vector<float>{0.5f}));
}

TEST(Recurrent, RnnBidirectionalLayoutOne) {
  // Both directions of the same weights: forward [0.375, 0.71875], reverse [0.34375, 0.875];
  // layout 1 gives Y [batch, seq, dirs, H] and Y_h [batch, dirs, H].
  Case c = rnn_case("bidirectional", std::nullopt);
  c.inputs = {{"X", f32(Shape{1, 2, 1}, {1.0f, 2.0f})},
              {"W", f32(Shape{2, 1, 1}, {0.5f, 0.5f})},
              {"R", f32(Shape{2, 1, 1}, {0.25f, 0.25f})},
              {"B", f32(Shape{2, 2}, {0.125f, -0.5f, 0.125f, -0.5f})},
              {"", {}},
              {"initial_h", f32(Shape{1, 2, 1}, {1.0f, 1.0f})}};
  c.attributes.push_back(int_attr("layout", 1));
  auto out = run_case(c, ExecutionMode::Exact);
  EXPECT_EQ(out[0].shape(), (Shape{1, 2, 2, 1}));
  EXPECT_EQ(out[0].to_vector<float>(), (std::vector<float>{0.375f, 0.34375f, 0.71875f, 0.875f}));
  EXPECT_EQ(out[1].to_vector<float>(), (std::vector<float>{0.71875f, 0.34375f}));
}

// GRU with f = HardSigmoid(0.25, 0.5), g = Affine(1, 0) (identity). W = [z 0.5, r 1, h 2],
// R = [z 0.25, r 0.5, h 1], B = Rbh 0.5 only, X = [1, -1], h0 = 2.
Case gru_case(int linear_before_reset) {
  Case c;
  c.op = "GRU";
  c.inputs = {{"X", f32(Shape{2, 1, 1}, {1.0f, -1.0f})},
              {"W", f32(Shape{1, 3, 1}, {0.5f, 1.0f, 2.0f})},
              {"R", f32(Shape{1, 3, 1}, {0.25f, 0.5f, 1.0f})},
              {"B", f32(Shape{1, 6}, {0.0f, 0.0f, 0.0f, 0.0f, 0.0f, 0.5f})},
              {"", {}},
              {"initial_h", f32(Shape{1, 1, 1}, {2.0f})}};
  c.outputs = {"Y", "Y_h"};
  c.attributes = {int_attr("hidden_size", 1), strings_attr("activations", {"HardSigmoid", "Affine"}),
                  floats_attr("activation_alpha", {0.25f, 1.0f}), floats_attr("activation_beta", {0.5f, 0.0f}),
                  int_attr("linear_before_reset", linear_before_reset)};
  return c;
}

TEST(Recurrent, GruResetBeforeTheProduct) {
  // Step 1: z = 0.75, r = 1, pre_h = 2 + 1*2 + 0.5 = 4.5, H = 0.25*4.5 + 0.75*2 = 2.625.
  // Step 2: pre_z = -0.5 + 0.65625 -> z = 0.5390625; pre_r = -1 + 1.3125 -> r = 0.578125;
  // pre_h = (-2 + 0.578125*2.625) + 0.5 = 0.017578125;
  // H = 0.4609375*0.017578125 + 0.5390625*2.625 = 531/65536 + 1449/1024 = 93267/65536.
  for (ExecutionMode mode : {ExecutionMode::Fast, ExecutionMode::Exact}) {
    auto out = run_case(gru_case(0), mode);
    EXPECT_EQ(out[0].to_vector<float>(), (std::vector<float>{2.625f, 93267.0f / 65536.0f}));
    EXPECT_EQ(out[1].to_vector<float>(), (std::vector<float>{93267.0f / 65536.0f}));
  }
}

TEST(Recurrent, GruLinearBeforeReset) {
  // Step 1 as before (r = 1). Step 2: pre_h = -2 + 0.578125*(2.625 + 0.5) = -0.193359375;
  // H = 0.4609375*(-0.193359375) + 1449/1024 = (92736 - 5841)/65536 = 86895/65536.
  auto out = run_case(gru_case(1), ExecutionMode::Exact);
  EXPECT_EQ(out[0].to_vector<float>(), (std::vector<float>{2.625f, 86895.0f / 65536.0f}));
  EXPECT_EQ(out[1].to_vector<float>(), (std::vector<float>{86895.0f / 65536.0f}));
}

// LSTM with f = HardSigmoid(0.25, 0.5), g = Affine(1, 0), h = Affine(0.5, 0). W = [i 0.5, o 0.25,
// f 1, c 2], R = [i 0.25, o 0.5, f 0, c 1], P = [i 0.5, o -0.25, f 0.25], h0 = 1, c0 = 2, X = [1, 2]
// for batch row 0; row 1 has sequence length 0.
Case lstm_case(int input_forget) {
  Case c;
  c.op = "LSTM";
  c.inputs = {{"X", f32(Shape{2, 2, 1}, {1.0f, 7.0f, 2.0f, 7.0f})},
              {"W", f32(Shape{1, 4, 1}, {0.5f, 0.25f, 1.0f, 2.0f})},
              {"R", f32(Shape{1, 4, 1}, {0.25f, 0.5f, 0.0f, 1.0f})},
              {"", {}},
              {"sequence_lens", Tensor::from_values<std::int32_t>(DType::I32, Shape{2}, {2, 0})},
              {"initial_h", f32(Shape{1, 2, 1}, {1.0f, 3.0f})},
              {"initial_c", f32(Shape{1, 2, 1}, {2.0f, 3.0f})},
              {"P", f32(Shape{1, 3}, {0.5f, -0.25f, 0.25f})}};
  c.outputs = {"Y", "Y_h", "Y_c"};
  c.attributes = {int_attr("hidden_size", 1), strings_attr("activations", {"HardSigmoid", "Affine", "Affine"}),
                  floats_attr("activation_alpha", {0.25f, 1.0f, 0.5f}), floats_attr("activation_beta", {0.5f, 0.0f, 0.0f}),
                  int_attr("input_forget", input_forget)};
  return c;
}

TEST(Recurrent, LstmPeepholesAndAZeroLengthRow) {
  // Step 1: pre_i = 0.75 + 0.5*2 -> i = 15/16; pre_f = 1 + 0.25*2 -> f = 7/8; ct = 3;
  // c = 7/8*2 + 15/16*3 = 73/16; pre_o = 0.75 - 0.25*73/16 -> o = 103/256; h = o * c/2 = 7519/8192.
  // Step 2: i = f = 1, ct = 4 + 7519/8192, c = 77663/8192, o = 19295/131072,
  // h = 1498507585/2^31 rounded to float32 = 0x1.6545a6p-1.
  // Row 1 (length 0): Y is 0 at both steps and Y_h = Y_c = 0 (section 6).
  for (ExecutionMode mode : {ExecutionMode::Fast, ExecutionMode::Exact}) {
    auto out = run_case(lstm_case(0), mode);
    ASSERT_EQ(out.size(), 3u);
    const float h2 = 0x1.6545a6p-1f;
    EXPECT_EQ(out[0].to_vector<float>(), (std::vector<float>{7519.0f / 8192.0f, 0.0f, h2, 0.0f}));
    EXPECT_EQ(out[1].to_vector<float>(), (std::vector<float>{h2, 0.0f}));
    EXPECT_EQ(out[2].to_vector<float>(), (std::vector<float>{77663.0f / 8192.0f, 0.0f}));
  }
}

TEST(Recurrent, LstmInputForgetCouplesTheGates) {
  // fg = 1 - i. Step 1: i = 15/16, fg = 1/16, c = 2/16 + 45/16 = 47/16, pre_o = 0.75 - 47/64 = 1/64,
  // o = 129/256, h = 6063/8192. Step 2: i = 1, fg = 0, c = ct = 38831/8192, o = 55215/131072,
  // h = 2144053665/2^31 rounded to float32 = 0x1.ff2ea6p-1.
  auto out = run_case(lstm_case(1), ExecutionMode::Exact);
  const float h2 = 0x1.ff2ea6p-1f;
  EXPECT_EQ(out[0].to_vector<float>(), (std::vector<float>{6063.0f / 8192.0f, 0.0f, h2, 0.0f}));
  EXPECT_EQ(out[2].to_vector<float>(), (std::vector<float>{38831.0f / 8192.0f, 0.0f}));
}

TEST(Recurrent, OmittedOutputsAreNotRequired) {
  Case c = lstm_case(0);
  c.outputs = {"", "", "Y_c"};
  auto out = run_case(c, ExecutionMode::Exact);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].to_vector<float>(), (std::vector<float>{77663.0f / 8192.0f, 0.0f}));
}

TEST(Recurrent, SequenceLengthOutsideTheSequenceIsAnInputError) {
  Case c = lstm_case(0);
  c.inputs[4].value = Tensor::from_values<std::int32_t>(DType::I32, Shape{2}, {3, 0});
  try {
    run_case(c, ExecutionMode::Exact);
    ADD_FAILURE() << "no error";
  } catch (const SessionError& e) {
    EXPECT_EQ(e.kind(), SessionErrorKind::InvalidInput);
  }
}

TEST(Recurrent, UnknownActivationIsRefused) {
  Case c = rnn_case("forward", std::nullopt);
  c.attributes[2] = strings_attr("activations", {"Swish"});
  EXPECT_THROW(run_case(c, ExecutionMode::Fast), SessionError);
}

}  // namespace
}  // namespace onemodel
