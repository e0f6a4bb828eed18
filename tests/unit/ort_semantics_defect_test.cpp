// Issue 10, defect 5: three open semantics settled against ONNX Runtime 1.31.1 (build/venv,
// CPUExecutionProvider, one-node models made with onnx.helper; the outputs it printed are the
// literals below): Pad `wrap` with negative pads (spec/ops/shape-indexing.md section 4), the
// integer ReduceMean of sums that overflow the element type (spec/ops/norms.md section 6), and
// the comparison of the recurrent activation ThresholdedRelu (spec/ops/recurrent.md section 4).
// Both engines, both modes.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "onemodel/session.hpp"
#include "tests/support/ir_builder.hpp"

namespace onemodel {
namespace {

using namespace ir_builder;

template <class T>
Tensor tensor(DType type, const Shape& shape, const std::vector<T>& v) {
  return Tensor::from_values<T>(type, shape, std::span<const T>(v));
}

// One node in both engines and both modes; every run must give `want` (element type T).
template <class T>
void expect_everywhere(const std::string& op, std::int64_t opset, const std::vector<NodeInput>& inputs,
                       std::vector<IrAttribute> attributes, DType out_type, const Shape& want_shape,
                       const std::vector<T>& want, const std::string& what) {
  for (EngineKind engine : {EngineKind::Reference, EngineKind::Optimized}) {
    for (ExecutionMode mode : {ExecutionMode::Exact, ExecutionMode::Fast}) {
      SessionOptions options;
      options.engine = engine;
      options.mode = mode;
      options.intra_op_threads = 2;
      const Session session = Session::create(
          one_node_model(op, opset, inputs, {unshaped_tensor_value_info("y", onnx_elem_type(out_type))}, attributes),
          options);
      const Tensor y = session.run(feeds_of(inputs)).at(0);
      const std::string where = what + (engine == EngineKind::Reference ? " reference" : " optimized") +
                                (mode == ExecutionMode::Exact ? " exact" : " fast");
      EXPECT_EQ(y.shape(), want_shape) << where;
      EXPECT_EQ(y.to_vector<T>(), want) << where;
    }
  }
}

// ---- Pad, mode wrap, opset 19, negative pads ----
// ONNX Runtime crops the negative pads first and repeats what is left (its period is the kept
// extent), e.g. [1..5] with pads [-1, 2]: kept [2, 3, 4, 5], then 2 and 3 again.

struct PadCase {
  Shape shape;
  std::vector<std::int64_t> pads;
  Shape out;
  std::vector<float> ort;
};

TEST(OrtSemanticsDefect, PadWrapWithNegativePadsCropsThenWraps) {
  const std::vector<float> x5 = {1, 2, 3, 4, 5};
  std::vector<float> x12(12);
  for (std::size_t i = 0; i < 12; ++i) x12[i] = static_cast<float>(i);
  const std::vector<PadCase> cases = {
      {Shape{5}, {2, 2}, Shape{9}, {4, 5, 1, 2, 3, 4, 5, 1, 2}},
      {Shape{5}, {-1, 2}, Shape{6}, {2, 3, 4, 5, 2, 3}},
      {Shape{5}, {2, -1}, Shape{6}, {3, 4, 1, 2, 3, 4}},
      {Shape{5}, {-2, 3}, Shape{6}, {3, 4, 5, 3, 4, 5}},
      {Shape{5}, {-1, -1}, Shape{3}, {2, 3, 4}},
      {Shape{5}, {3, -2}, Shape{6}, {1, 2, 3, 1, 2, 3}},
      {Shape{5}, {-2, 7}, Shape{10}, {3, 4, 5, 3, 4, 5, 3, 4, 5, 3}},
      {Shape{5}, {6, -3}, Shape{8}, {1, 2, 1, 2, 1, 2, 1, 2}},
      {Shape{5}, {-4, 1}, Shape{2}, {5, 5}},
      {Shape{5}, {1, -4}, Shape{2}, {1, 1}},
      {Shape{3, 4}, {-1, 1, 1, -2}, Shape{3, 3}, {5, 4, 5, 9, 8, 9, 5, 4, 5}},
      {Shape{3, 4}, {1, -1, -1, 2}, Shape{3, 5}, {5, 6, 7, 5, 6, 1, 2, 3, 1, 2, 5, 6, 7, 5, 6}},
      {Shape{3, 4}, {0, -2, 0, 3}, Shape{3, 5}, {2, 3, 2, 3, 2, 6, 7, 6, 7, 6, 10, 11, 10, 11, 10}},
  };
  for (const PadCase& c : cases) {
    const std::vector<float>& x = c.shape.rank() == 1 ? x5 : x12;
    const Shape pads_shape{static_cast<std::int64_t>(c.pads.size())};
    expect_everywhere<float>("Pad", 19,
                             {{"data", tensor<float>(DType::F32, c.shape, x)},
                              {"pads", tensor<std::int64_t>(DType::I64, pads_shape, c.pads)}},
                             {string_attr("mode", "wrap")}, DType::F32, c.out, c.ort,
                             "pads " + ::testing::PrintToString(c.pads));
  }
}

// ONNX Runtime refuses wrap on an axis cropped to nothing ("zero effective input extent");
// here that is refused when the output needs elements from it: InvalidInput, since the pads are a
// graph input here (spec/errors.md section 3.2; InvalidModel when they are an initializer).
TEST(OrtSemanticsDefect, PadWrapOnAnAxisCroppedToNothingIsRefused) {
  for (const std::vector<std::int64_t>& pads : {std::vector<std::int64_t>{-5, 2}, std::vector<std::int64_t>{-6, 3},
                                                std::vector<std::int64_t>{2, -5}}) {
    const std::vector<NodeInput> inputs = {{"data", tensor<float>(DType::F32, Shape{5}, {1, 2, 3, 4, 5})},
                                           {"pads", tensor<std::int64_t>(DType::I64, Shape{2}, pads)}};
    EXPECT_EQ(SessionErrorKind::InvalidInput, session_error_kind_of([&] {
                (void)run_one_node("Pad", 19, inputs, {unshaped_tensor_value_info("y", 1)},
                                   {string_attr("mode", "wrap")}, ExecutionMode::Exact);
              }))
        << ::testing::PrintToString(pads);
  }
}

// ---- ReduceMean on int32 and int64 whose sums overflow ----
// ONNX Runtime returns the mean of the values, never a wrapped sum: [max, max] gives max, and the
// quotient is truncated toward zero ([-7, 0] gives -3).

template <class T>
struct MeanCase {
  std::vector<T> x;
  T ort;
};

template <class T>
void check_means(DType type, const std::vector<MeanCase<T>>& cases) {
  for (const MeanCase<T>& c : cases) {
    const std::int64_t n = static_cast<std::int64_t>(c.x.size());
    const std::string what = "ReduceMean " + ::testing::PrintToString(c.x);
    // Opset 18 with axes [0] over [n] (row layout), and over [n, 1] (axis 0, the kept trailing
    // axis of extent 1 is dropped), and opset 13 with no axes (every axis).
    expect_everywhere<T>("ReduceMean", 18,
                         {{"x", tensor<T>(type, Shape{n}, c.x)}, {"axes", tensor<std::int64_t>(DType::I64, Shape{1}, {0})}},
                         {int_attr("keepdims", 0)}, type, Shape{}, {c.ort}, what + " [n]");
    expect_everywhere<T>("ReduceMean", 18,
                         {{"x", tensor<T>(type, Shape{n, 1}, c.x)},
                          {"axes", tensor<std::int64_t>(DType::I64, Shape{1}, {0})}},
                         {int_attr("keepdims", 0)}, type, Shape{1}, {c.ort}, what + " [n, 1]");
    expect_everywhere<T>("ReduceMean", 13, {{"x", tensor<T>(type, Shape{n}, c.x)}}, {int_attr("keepdims", 1)}, type,
                         Shape{1}, {c.ort}, what + " opset 13");
  }
}

TEST(OrtSemanticsDefect, Int32MeanOfAnOverflowingSumIsTheTruncatedMean) {
  constexpr std::int32_t kMax = std::numeric_limits<std::int32_t>::max();
  constexpr std::int32_t kMin = std::numeric_limits<std::int32_t>::min();
  check_means<std::int32_t>(DType::I32, {{{kMax, kMax}, 2147483647},
                                         {{kMax, 1}, 1073741824},
                                         {{kMin, kMin}, -2147483647 - 1},
                                         {{kMin, -1}, -1073741824},
                                         {{kMax, kMax, kMax}, 2147483647},
                                         {{kMax, kMax, -1}, 1431655764},
                                         {{kMin, kMin, kMin, 1}, -1610612735},
                                         {{kMax, kMax, kMax, kMax, kMax, 3}, 1789569706},
                                         {{-7, 0}, -3},
                                         {{-7, 0, 0}, -2},
                                         {{7, 0, 0, 0}, 1}});
}

TEST(OrtSemanticsDefect, Int64MeanOfAnOverflowingSumIsTheTruncatedMean) {
  constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();
  constexpr std::int64_t kMin = std::numeric_limits<std::int64_t>::min();
  constexpr std::int64_t k62 = std::int64_t{1} << 62;
  check_means<std::int64_t>(DType::I64, {{{kMax, kMax}, 9223372036854775807},
                                         {{kMax, 1}, 4611686018427387904},
                                         {{kMax, 2}, 4611686018427387904},
                                         {{kMin, kMin}, kMin},
                                         {{kMin, -1}, -4611686018427387904},
                                         {{kMax, kMax, kMax}, 9223372036854775807},
                                         {{kMax, kMax, kMax, 5}, 6917529027641081856},
                                         {{k62, k62, k62}, 4611686018427387904},
                                         {{-k62, -k62, -k62, -1}, -3458764513820540928},
                                         {{3, 4, 1}, 2},
                                         {{-3, -4, -1}, -2},
                                         {{-7, 0}, -3}});
}

// Where ONNX Runtime's int64 mean shows double rounding (it returns 6148914691236516864 for
// [max, max, -1]), this library gives the exact truncated mean (spec/ops/norms.md section 6):
// (2 * (2^63 - 1) - 1) / 3 = (2^64 - 3) / 3 = 6148914691236517204 remainder 1, by hand. And the
// unsigned types ONNX Runtime does not serve follow the same rule: two uint64 maxima give the max.
TEST(OrtSemanticsDefect, IntegerMeanIsExactBeyondDoublePrecision) {
  constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();
  check_means<std::int64_t>(DType::I64, {{{kMax, kMax, -1}, 6148914691236517204}});
  constexpr std::uint64_t kUMax = std::numeric_limits<std::uint64_t>::max();
  check_means<std::uint64_t>(DType::U64, {{{kUMax, kUMax}, kUMax}, {{kUMax, 1}, std::uint64_t{1} << 63}});
  check_means<std::int8_t>(DType::I8, {{{127, 127, 127}, 127}, {{-128, -128, -1}, -85}});
}

// ---- Recurrent activation ThresholdedRelu: x > alpha ? x : 0 ----
// The RNN operator text lists "x if x >= alpha else 0"; the ThresholdedRelu operator text says
// "y = x for x > alpha", the source (ops-recurrent.md "Activations") says x > alpha, and ONNX
// Runtime's RNN gives 0 at x == alpha. So x == alpha gives 0 (one activation function serves RNN,
// GRU and LSTM: reference/ops/recurrent_helpers.cpp).
TEST(OrtSemanticsDefect, RecurrentThresholdedReluIsStrict) {
  // RNN, hidden 1, W = 1, R = 0, no bias: Y = ThresholdedRelu_{alpha = 1.5}(x) for one step.
  // ONNX Runtime: x = 1.5 -> 0, x = 1.5000001 -> 1.5000001, x = 2 -> 2.
  for (const auto& [x, want] : std::vector<std::pair<float, float>>{{1.5f, 0.0f}, {1.5000001f, 1.5000001f}, {2.0f, 2.0f}}) {
    expect_everywhere<float>("RNN", 14,
                             {{"X", tensor<float>(DType::F32, Shape{1, 1, 1}, {x})},
                              {"W", tensor<float>(DType::F32, Shape{1, 1, 1}, {1.0f})},
                              {"R", tensor<float>(DType::F32, Shape{1, 1, 1}, {0.0f})}},
                             {int_attr("hidden_size", 1), strings_attr("activations", {"ThresholdedRelu"}),
                              floats_attr("activation_alpha", {1.5f})},
                             DType::F32, Shape{1, 1, 1, 1}, {want}, "RNN x " + std::to_string(x));
  }
}

}  // namespace
}  // namespace onemodel
