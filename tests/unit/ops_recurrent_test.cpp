// RNN, GRU and LSTM on tiny hand-computed cases (spec/ops/recurrent.md sections 4-6): hidden size
// 1, two steps; and, since hidden size 1 cannot tell W from its transpose, hidden size 2 with
// input size 3 in every direction against ONNX Runtime. The activations are chosen so every intermediate value is a short binary fraction
// (Relu, Affine, HardSigmoid with alpha 0.25 and beta 0.5), so the expected values below were worked
// out by hand with exact fractions from the spec's order of operations; where a last product does
// not fit in float32, the expected value is that exact fraction rounded once to float32.
#include <gtest/gtest.h>

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

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

// Cases where a transposed W or R shows: hidden_size 2, input_size 3, batch 2 (the second row
// 2 steps of 3 through sequence_lens), random W, R, B, initial_h (and initial_c), default
// activations, each direction. The expected Y, Y_h (and Y_c) are ONNX Runtime 1.31.1's
// (CPUExecutionProvider, opset 22), made by a script run with build/venv/bin/python: numpy
// default_rng(2026) uniform inputs in [-1, 1] (B in [-0.5, 0.5]), one onnx.helper node per case,
// every float printed with %.9g (so it reads back as the same float32).
struct OrtCase {
  const char* op;
  const char* direction;
  std::int64_t dirs;
  std::vector<float> x, w, r, b, h0, c0, y, y_h, y_c;
};

const std::vector<OrtCase>& ort_cases() {
  static const std::vector<OrtCase> cases = {
    // RNN forward
    {"RNN", "forward", 1,
      /*X*/ {-0.642130375f, 0.279826343f, -0.0654632002f, -0.25899896f, -0.290165335f, 0.581036508f, 0.810287654f, -0.645293593f, 0.305569619f, -0.403394461f, 0.933924377f, 0.839700341f, 0.271741599f, 0.505464196f, 0.0303073935f, 0.6517905f, -0.10323891f, -0.322375089f},
      /*W*/ {-0.444201559f, -0.547333896f, 0.0516336858f, -0.138175875f, 0.326361239f, -0.974319041f},
      /*R*/ {-0.104596198f, -0.269638389f, -0.609204829f, 0.189731747f},
      /*B*/ {-0.0646868423f, -0.200008497f, -0.290583879f, 0.374624044f},
      /*initial_h*/ {0.594924629f, 0.213419348f, -0.309798837f, 0.893639565f},
      /*initial_c*/ {},
      /*Y*/ {-0.333131731f, 0.0962119102f, -0.254258454f, -0.0918681622f, -0.325092614f, -0.220772266f, -0.531711519f, -0.144500673f, -0.576723576f, 0.404203176f, 0.0f, 0.0f},
      /*Y_h*/ {-0.576723576f, 0.404203176f, -0.531711519f, -0.144500673f},
      /*Y_c*/ {},
    },
    // RNN reverse
    {"RNN", "reverse", 1,
      /*X*/ {0.126754746f, -0.134474516f, 0.800899208f, -0.361316383f, 0.391989738f, -0.372359335f, -0.476893902f, 0.401681781f, -0.544216037f, -0.0137793543f, 0.160056904f, -0.622187257f, 0.46248132f, 0.0969661325f, 0.243006513f, -0.255711377f, -0.159613475f, -0.010340644f},
      /*W*/ {-0.0600581765f, 0.351278454f, 0.154355004f, -0.167458713f, -0.99639529f, 0.588062108f},
      /*R*/ {0.0387684405f, -0.346910685f, -8.99551742e-05f, -0.813108146f},
      /*B*/ {0.404704064f, 0.48973617f, -0.441264778f, -0.141768783f},
      /*initial_h*/ {0.460129142f, -0.371523738f, 0.134099513f, -0.166858077f},
      /*initial_c*/ {},
      /*Y*/ {0.240421057f, 0.894350171f, 0.0783880949f, -0.167438626f, -0.134984136f, -0.629103422f, -0.0124619603f, -0.0394078493f, 0.152753949f, 0.550330162f, 0.0f, 0.0f},
      /*Y_h*/ {0.240421057f, 0.894350171f, 0.0783880949f, -0.167438626f},
      /*Y_c*/ {},
    },
    // RNN bidirectional
    {"RNN", "bidirectional", 2,
      /*X*/ {0.548424304f, 0.916928828f, 0.776790857f, 0.241870925f, -0.679451346f, 0.89412415f, -0.952735126f, -0.4045811f, -0.436773002f, 0.34365195f, -0.025273867f, -0.814222932f, -0.974284232f, 0.208631501f, -0.0170333348f, 0.202764243f, 0.128047734f, 0.780918241f},
      /*W*/ {0.836793721f, -0.623485684f, 0.88424176f, 0.575453281f, 0.278052509f, 0.319214523f, 0.0921204612f, 0.834526598f, -0.533473611f, 0.198631987f, 0.628486097f, -0.730477095f},
      /*R*/ {0.231016546f, -0.194333047f, 0.532072663f, -0.864571273f, 0.213628769f, 0.714157403f, 0.256695718f, -0.3573246f},
      /*B*/ {0.155796051f, -0.161847159f, 0.168592796f, -0.371655613f, -0.220008254f, -0.46728161f, -0.416090608f, 0.0547696203f},
      /*initial_h*/ {-0.53660357f, 0.0321651734f, 0.319139063f, 0.762372375f, -0.289877981f, -0.36264208f, -0.372666508f, -0.764300704f},
      /*initial_c*/ {},
      /*Y*/ {0.645922661f, -0.0283064842f, 0.93110168f, -0.656787634f, -0.657567739f, -0.315314412f, -0.909212053f, -0.94215405f, -0.42362082f, -0.7467314f, 0.245368004f, 0.430546403f, -0.849238873f, -0.521342874f, -0.673220515f, 0.39023459f, -0.52901417f, -0.552087545f, 0.0f, 0.0f, -0.698089778f, -0.386178672f, 0.0f, 0.0f},
      /*Y_h*/ {-0.52901417f, -0.552087545f, 0.245368004f, 0.430546403f, -0.657567739f, -0.315314412f, -0.909212053f, -0.94215405f},
      /*Y_c*/ {},
    },
    // GRU forward
    {"GRU", "forward", 1,
      /*X*/ {0.326366723f, 0.639309168f, -0.0539902784f, 0.116594791f, 0.916960239f, 0.397830337f, 0.490069777f, 0.778996706f, -0.56841886f, 0.300332129f, 0.434789002f, 0.684455872f, -0.312428921f, 0.377589405f, 0.20880121f, -0.181277931f, -0.796628475f, -0.293903142f},
      /*W*/ {0.926969469f, -0.566953003f, -0.772724032f, -0.264641136f, -0.798038423f, -0.46560213f, 0.828912258f, -0.362435848f, 0.171779037f, -0.522510469f, 0.335959852f, -0.7446872f, 0.579618752f, -0.154107913f, -0.632679224f, 0.516499102f, 0.108565077f, -0.123709977f},
      /*R*/ {-0.518747926f, 0.562731802f, -0.269429892f, -0.913818598f, 0.930738568f, -0.939070404f, -0.759061873f, -0.0683749393f, -0.584290087f, -0.329729915f, 0.13513048f, 0.915683925f},
      /*B*/ {0.436312228f, -0.426104039f, 0.353313655f, -0.332176358f, 0.311432868f, -0.203652784f, 0.217834353f, 0.218793198f, 0.350551248f, 0.479625851f, -0.224519148f, 0.12830846f},
      /*initial_h*/ {0.478521585f, -0.840741336f, 0.325922668f, -0.356968969f},
      /*initial_c*/ {},
      /*Y*/ {0.280952394f, -0.467958301f, -0.0646607727f, -0.162107065f, 0.358953744f, -0.131863207f, -0.122604296f, -0.0691177249f, -0.0638519526f, -0.201633751f, 0.0f, 0.0f},
      /*Y_h*/ {-0.0638519526f, -0.201633751f, -0.122604296f, -0.0691177249f},
      /*Y_c*/ {},
    },
    // GRU reverse
    {"GRU", "reverse", 1,
      /*X*/ {-0.677061915f, 0.0989431143f, -0.0762328058f, 0.154159665f, 0.283835173f, -0.00266227731f, 0.810301423f, -0.644171596f, -0.422416717f, -0.287556708f, 0.54876405f, 0.304196239f, -0.587154627f, 0.488883793f, 0.543074071f, 0.540482938f, -0.843254209f, -0.575721681f},
      /*W*/ {0.790770054f, 0.758864105f, -0.588854671f, 0.102751315f, -0.474633485f, -0.16743046f, -0.958110332f, -0.436479539f, -0.458638191f, 0.838261008f, 0.175940439f, -0.64496702f, -0.144870922f, -0.0141276754f, 0.274720222f, 0.0648956969f, -0.158014581f, -0.378413975f},
      /*R*/ {0.149999022f, 0.951664031f, 0.105973929f, 0.774024308f, -0.969455123f, -0.593805194f, 0.729535937f, 0.138945788f, -0.0248838421f, -0.262391418f, -0.409468561f, 0.357659578f},
      /*B*/ {-0.134264946f, -0.0647652894f, 0.276848286f, 0.446182966f, 0.493656844f, -0.0150847631f, -0.36183095f, -0.475076407f, -0.00534329424f, -0.42364502f, -0.382286906f, -0.265160918f},
      /*initial_h*/ {0.983986199f, -0.675542891f, -0.779735744f, 0.831847548f},
      /*initial_c*/ {},
      /*Y*/ {0.214814693f, -0.405041575f, -0.145870119f, -0.0353595763f, 0.183255956f, -0.415037394f, -0.349526763f, 0.228364706f, 0.506767154f, -0.707287014f, 0.0f, 0.0f},
      /*Y_h*/ {0.214814693f, -0.405041575f, -0.145870119f, -0.0353595763f},
      /*Y_c*/ {},
    },
    // GRU bidirectional
    {"GRU", "bidirectional", 2,
      /*X*/ {0.244139478f, 0.479801416f, -0.290533096f, 0.867664993f, 0.952201247f, 0.116911404f, 0.973680556f, 0.0115887057f, -0.120519429f, 0.570868015f, 0.288495332f, -0.5989393f, 0.0298785716f, -0.96708107f, 0.751319706f, 0.0848917738f, -0.907625914f, 0.875517845f},
      /*W*/ {0.998872936f, 0.474610865f, -0.137353092f, 0.182838559f, -0.979536176f, -0.78310138f, -0.338001132f, -0.177462623f, 0.511897683f, -0.658540428f, -0.767790556f, 0.394927859f, 0.776064217f, 0.759334505f, 0.483832389f, 0.967134595f, 0.0441842116f, 0.548937559f, -0.165645137f, -0.293488681f, 0.821644187f, -0.138586f, 0.492942065f, -0.00595476851f, -0.775574148f, -0.746247828f, 0.0202451721f, 0.415355802f, 0.484968424f, -0.328605831f, -0.981578708f, 0.0667128488f, -0.620866001f, -0.359760076f, 0.132898271f, -0.21633406f},
      /*R*/ {-0.081996724f, -0.899082124f, -0.633969188f, 0.683791161f, 0.0237628538f, 0.770235419f, 0.714601994f, -0.613660038f, -0.20080632f, 0.0515565984f, -0.804969728f, -0.829287648f, 0.682973146f, 0.653427243f, -0.233421281f, 0.413169354f, 0.0358662196f, 0.495307028f, -0.3696298f, -0.0519275554f, 0.785912633f, 0.633288145f, -0.380072504f, 0.763542175f},
      /*B*/ {-0.101281062f, 0.182379946f, 0.211510554f, -0.0983150303f, 0.32709381f, -0.0346482843f, 0.46068871f, 0.436698943f, 0.400265425f, 0.408353448f, -0.352953464f, 0.148334101f, 0.241114542f, 0.0287591666f, 0.0292209852f, -0.298569083f, -0.33921349f, 0.283134341f, -0.350394428f, 0.228196979f, -0.422931522f, -0.0877478868f, -0.475988656f, 0.160372674f},
      /*initial_h*/ {-0.414168239f, -0.0645998344f, -0.427102566f, 0.0315488651f, 0.315293521f, -0.666173279f, 0.55409807f, 0.565030754f},
      /*initial_c*/ {},
      /*Y*/ {-0.187141091f, 0.0938693061f, -0.216525584f, 0.42979449f, -0.741709232f, 0.0869666636f, -0.485186279f, 0.511001706f, -0.0151435584f, 0.270274013f, -0.0348747149f, 0.411089092f, -0.657021523f, -0.123764977f, -0.0252786875f, 0.539514363f, -0.214172289f, 0.286178648f, 0.0f, 0.0f, -0.115290999f, -0.264231265f, 0.0f, 0.0f},
      /*Y_h*/ {-0.214172289f, 0.286178648f, -0.0348747149f, 0.411089092f, -0.741709232f, 0.0869666636f, -0.485186279f, 0.511001706f},
      /*Y_c*/ {},
    },
    // LSTM forward
    {"LSTM", "forward", 1,
      /*X*/ {0.884331286f, -0.238609523f, 0.74626255f, -0.812628984f, 0.987812638f, -0.575585067f, -0.252301723f, -0.812993109f, 0.670283496f, -0.0281340424f, 0.924802899f, -0.71076858f, 0.783643544f, -0.28090775f, -0.527418613f, 0.314246297f, -0.939623058f, 0.0509394482f},
      /*W*/ {-0.0527896248f, -0.902989745f, -0.131635532f, -0.390161633f, -0.502703607f, 0.860587478f, 0.196593687f, -0.691685021f, 0.514263272f, -0.260866612f, 0.197701335f, -0.240130126f, 0.277091712f, 0.363874078f, -0.432931453f, 0.662115395f, 0.236261502f, 0.210537195f, -0.563988149f, -0.492074907f, -0.20924589f, -0.932254612f, -0.890537739f, 0.325364143f},
      /*R*/ {-0.367042869f, 0.440488964f, -0.850347102f, 0.480262488f, -0.571642339f, 0.739103138f, 0.813064456f, 0.378626615f, -0.21142666f, -0.948704183f, 0.522226334f, 0.125635147f, -0.835417509f, 0.141474381f, -0.987688661f, -0.097246781f},
      /*B*/ {0.113256678f, 0.302658617f, -0.209394097f, -0.267954499f, -0.168906316f, -0.440805346f, 0.431499481f, 0.380635083f, 0.102136172f, -0.425412565f, -0.416372359f, 0.432082415f, -0.375000447f, -0.354331255f, 0.285470188f, -0.198468596f},
      /*initial_h*/ {-0.17689164f, -0.179953143f, 0.40013212f, -0.0553354844f},
      /*initial_c*/ {0.624410033f, -0.0081217112f, -0.419080764f, -0.610846221f},
      /*Y*/ {0.19698438f, -0.000193556305f, -0.00548820943f, -0.196922302f, 0.285332739f, 0.265084743f, 0.0155003853f, -0.140228242f, 0.14853622f, 0.0299739782f, 0.0f, 0.0f},
      /*Y_h*/ {0.14853622f, 0.0299739782f, 0.0155003853f, -0.140228242f},
      /*Y_c*/ {0.420482457f, 0.0508636087f, 0.107729271f, -0.234193712f},
    },
    // LSTM reverse
    {"LSTM", "reverse", 1,
      /*X*/ {0.510026515f, -0.560984015f, 0.217815623f, 0.202808365f, 0.926495194f, -0.820758522f, -0.584959149f, 0.32310611f, -0.338201016f, -0.74283427f, 0.790737212f, 0.462952793f, -0.554895699f, -0.809579372f, 0.684824586f, 0.1399239f, 0.859157264f, 0.0343630761f},
      /*W*/ {-0.538243294f, -0.732875764f, -0.164174169f, 0.368034989f, -0.991399646f, -0.20929639f, -0.192343101f, 0.342022628f, -0.610076129f, 0.752142906f, -0.349823743f, 0.653615952f, 0.655245245f, 0.769760191f, -0.482341856f, 0.679731548f, -0.538985252f, -0.201113999f, -0.64463377f, -0.0317381807f, -0.849611163f, 0.913684309f, -0.974006772f, -0.00680771144f},
      /*R*/ {0.676190615f, -0.734970152f, 0.19420366f, 0.0621650591f, 0.515073121f, 0.397189498f, 0.650026917f, 0.586567342f, 0.165719897f, -0.300071627f, -0.785143316f, -0.672364414f, 0.74241513f, -0.466998756f, 0.788061321f, -0.387827307f},
      /*B*/ {-0.442742944f, -0.210002512f, -0.115349427f, -0.396319896f, -0.0702387094f, 0.297942907f, -0.0861801133f, -0.0062658526f, 0.498772949f, -0.284680486f, 0.0439146571f, 0.487756282f, -0.00427556643f, 0.0914193094f, 0.0467064157f, -0.384730786f},
      /*initial_h*/ {0.432271063f, 0.824147284f, 0.853152752f, 0.173337504f},
      /*initial_c*/ {-0.294977427f, 0.351020604f, 0.889234185f, 0.956271708f},
      /*Y*/ {-0.0682754442f, 0.130020663f, 0.484168142f, -0.0629824549f, 0.0747145116f, -0.0651528016f, 0.392351329f, 0.0156785753f, -0.10900066f, 0.0587465242f, 0.0f, 0.0f},
      /*Y_h*/ {-0.0682754442f, 0.130020663f, 0.484168142f, -0.0629824549f},
      /*Y_c*/ {-0.180742249f, 0.189285263f, 0.825388968f, -0.153770462f},
    },
    // LSTM bidirectional
    {"LSTM", "bidirectional", 2,
      /*X*/ {-0.43408975f, 0.871373117f, 0.460578173f, 0.743674219f, -0.66503799f, 0.952493429f, 0.507035434f, -0.666965246f, 0.080241628f, -0.776933193f, 0.449175596f, 0.190361276f, 0.156574279f, 0.694458485f, 0.539458394f, -0.816569269f, 0.524278164f, 0.0829313323f},
      /*W*/ {-0.622438729f, -0.305641443f, 0.018388167f, 0.717691541f, 0.763805747f, -0.795795679f, -0.115691088f, 0.687058389f, 0.204727456f, 0.710323751f, 0.194520235f, -0.553928256f, 0.00570514146f, 0.0303096808f, 0.788155854f, -0.288495451f, -0.530020773f, 0.49771595f, -0.160838142f, -0.0312986821f, 0.953172982f, 0.349290788f, 0.343697906f, 0.867776632f, 0.43258962f, 0.909544766f, 0.266606003f, 0.174829811f, -0.431547135f, -0.538407862f, 0.0630047321f, -0.881887376f, -0.663424015f, 0.416738451f, 0.358022481f, -0.943313718f, -0.673669577f, 0.235648692f, -0.184691697f, 0.177931771f, -0.742596626f, 0.724971354f, -0.482129663f, -0.251191467f, -0.101259954f, 0.185658514f, 0.961037278f, -0.581141651f},
      /*R*/ {-0.675229609f, -0.709326744f, 0.549466074f, -0.235088602f, 0.853933394f, -0.866881311f, 0.063112855f, 0.514472723f, 0.0141708702f, -0.186802134f, 0.623031735f, 0.0182077959f, 0.813073099f, -0.522794485f, 0.196911454f, 0.268958449f, 0.814261675f, -0.813488781f, 0.611440778f, 0.36697948f, 0.721218824f, 0.217717215f, -0.0924546868f, 0.592652798f, -0.431631058f, -0.889163613f, 0.499930143f, 0.624747753f, 0.657358408f, -0.104622059f, 0.465347797f, 0.427285284f},
      /*B*/ {-0.21145077f, 0.26553902f, 0.46419093f, -0.147895738f, -0.226554498f, 0.0838583931f, 0.37781018f, 0.108291604f, 0.4700481f, 0.422613889f, 0.210719794f, 0.206893861f, -0.321946263f, -0.158950552f, 0.310145736f, -0.0995436534f, -0.271943301f, -0.436876714f, -0.276953518f, 0.0771130249f, 0.424136877f, -0.10847871f, 0.289535254f, -0.371204615f, 0.322736323f, 0.427533031f, 0.00256060669f, -0.0452249572f, 0.408109546f, -0.272180736f, 0.420627385f, 0.417500228f},
      /*initial_h*/ {0.915091455f, 0.782254517f, 0.0514692664f, 0.363534868f, 0.0659929812f, -0.396506071f, 0.981279194f, -0.950057864f},
      /*initial_c*/ {-0.496944338f, 0.857290745f, 0.904617071f, -0.442369372f, 0.999566615f, 0.62528789f, 0.553717136f, 0.143690929f},
      /*Y*/ {0.0405201018f, 0.415891618f, 0.356815219f, 0.0387289822f, 0.212101161f, 0.0898167267f, 0.356894314f, -0.0715902671f, 0.106924832f, 0.357598335f, 0.548736334f, 0.048319947f, 0.424784988f, -0.0289377086f, 0.354502857f, 0.0451100282f, 0.297605246f, 0.36784935f, 0.0f, 0.0f, 0.175621629f, 0.117998265f, 0.0f, 0.0f},
      /*Y_h*/ {0.297605246f, 0.36784935f, 0.548736334f, 0.048319947f, 0.212101161f, 0.0898167267f, 0.356894314f, -0.0715902671f},
      /*Y_c*/ {0.428792894f, 0.810492754f, 0.840935528f, 0.126181468f, 1.20108724f, 0.217874527f, 0.900335789f, -0.235298663f},
    },
  };
  return cases;
}

std::vector<Tensor> run_in(EngineKind engine, const Case& c, ExecutionMode mode) {
  std::vector<IrValueInfo> outputs;
  for (const std::string& out : c.outputs) outputs.push_back(unshaped_tensor_value_info(out, 1));
  SessionOptions options;
  options.mode = mode;
  options.engine = engine;
  Session session = Session::create(one_node_model(c.op, 22, c.inputs, outputs, c.attributes), options);
  return session.run(feeds_of(c.inputs));
}

TEST(Recurrent, HiddenSizeTwoAgainstOnnxRuntime) {
  constexpr std::int64_t kSeq = 3, kBatch = 2, kInput = 3, kHidden = 2;
  int checked = 0;
  for (const OrtCase& o : ort_cases()) {
    const std::int64_t gates = std::string(o.op) == "RNN" ? 1 : std::string(o.op) == "GRU" ? 3 : 4;
    const auto t = [](const Shape& shape, const std::vector<float>& v) {
      return Tensor::from_values<float>(DType::F32, shape, std::span<const float>(v));
    };
    Case c;
    c.op = o.op;
    c.inputs = {{"X", t(Shape{kSeq, kBatch, kInput}, o.x)},
                {"W", t(Shape{o.dirs, gates * kHidden, kInput}, o.w)},
                {"R", t(Shape{o.dirs, gates * kHidden, kHidden}, o.r)},
                {"B", t(Shape{o.dirs, 2 * gates * kHidden}, o.b)},
                {"sequence_lens", Tensor::from_values<std::int32_t>(DType::I32, Shape{2}, {3, 2})},
                {"initial_h", t(Shape{o.dirs, kBatch, kHidden}, o.h0)}};
    c.outputs = {"Y", "Y_h"};
    if (!o.c0.empty()) {
      c.inputs.push_back({"initial_c", t(Shape{o.dirs, kBatch, kHidden}, o.c0)});
      c.outputs.push_back("Y_c");
    }
    c.attributes = {int_attr("hidden_size", kHidden), string_attr("direction", o.direction)};
    const std::vector<const std::vector<float>*> want = {&o.y, &o.y_h, &o.y_c};
    for (EngineKind engine : {EngineKind::Reference, EngineKind::Optimized}) {
      for (ExecutionMode mode : {ExecutionMode::Fast, ExecutionMode::Exact}) {
        const std::string where = std::string(o.op) + " " + o.direction +
                                  (engine == EngineKind::Reference ? " reference" : " optimized") +
                                  (mode == ExecutionMode::Exact ? " exact" : " fast");
        const auto out = run_in(engine, c, mode);
        ASSERT_EQ(out.size(), c.outputs.size()) << where;
        EXPECT_EQ(out[0].shape(), (Shape{kSeq, o.dirs, kBatch, kHidden})) << where;
        for (std::size_t k = 0; k < out.size(); ++k) {
          const auto got = out[k].to_vector<float>();
          ASSERT_EQ(got.size(), want[k]->size()) << where << " output " << k;
          for (std::size_t i = 0; i < got.size(); ++i) {
            // Both sides differ from the exact values by a few float32 roundings of O(1) numbers
            // per step (ONNX Runtime's own tanh and sigmoid, this project's exact polynomials):
            // 1e-5 is far below what a swapped index (an O(0.1) change) gives.
            EXPECT_NEAR(got[i], (*want[k])[i], 1e-5) << where << " output " << k << " element " << i;
          }
        }
        ++checked;
      }
    }
  }
  EXPECT_EQ(checked, 9 * 4);
}

TEST(Recurrent, UnknownActivationIsRefused) {
  Case c = rnn_case("forward", std::nullopt);
  c.attributes[2] = strings_attr("activations", {"Swish"});
  EXPECT_THROW(run_case(c, ExecutionMode::Fast), SessionError);
}

}  // namespace
}  // namespace onemodel
