// NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss of the reference engine
// (spec/ops/losses.md). Expected values are computed by hand from the rule text (the section is
// cited next to each): inputs are binary fractions, so most results are exact; quotients are the
// correctly rounded quotient of exact operands, which the C++ division of those operands gives.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "onemodel/half.hpp"
#include "onemodel/session.hpp"
#include "tests/support/ir_builder.hpp"

namespace onemodel {
namespace {

using namespace ir_builder;

constexpr float kInf = std::numeric_limits<float>::infinity();

IrAttribute reduction(const std::string& s) { return string_attr("reduction", s); }

// Runs one node `op` at `opset` (graph inputs fed at run time); outputs "y" and, when
// `outputs` is 2, "log_prob".
std::vector<Tensor> run_node(const std::string& op, const std::vector<NodeInput>& inputs, std::int32_t out_elem,
                             std::vector<IrAttribute> attributes, std::int64_t opset,
                             ExecutionMode mode = ExecutionMode::Exact, int outputs = 1) {
  std::vector<IrValueInfo> declared{unshaped_tensor_value_info("y", out_elem)};
  if (outputs == 2) declared.push_back(unshaped_tensor_value_info("log_prob", out_elem));
  return run_one_node(op, opset, inputs, declared, std::move(attributes), mode);
}

Tensor nll(const std::vector<NodeInput>& inputs, std::vector<IrAttribute> attributes, ExecutionMode mode = ExecutionMode::Exact,
           std::int32_t elem = 1) {
  return run_node("NegativeLogLikelihoodLoss", inputs, elem, std::move(attributes), 22, mode).at(0);
}

Tensor f32(const Shape& shape, std::vector<float> v) { return Tensor::from_values<float>(DType::F32, shape, v); }
Tensor f64(const Shape& shape, std::vector<double> v) { return Tensor::from_values<double>(DType::F64, shape, v); }
Tensor i64(const Shape& shape, std::vector<std::int64_t> v) {
  return Tensor::from_values<std::int64_t>(DType::I64, shape, v);
}
Tensor i32(const Shape& shape, std::vector<std::int32_t> v) {
  return Tensor::from_values<std::int32_t>(DType::I32, shape, v);
}

// The example of spec/ops/losses.md section 3: N = 4, C = 2, target [1, 0, 1, 7], ignore_index 7,
// weight [0.5, 2]. Gathered L: -0.5 (class 1), -0.25 (class 0), -2 (class 1); position 3 ignored
// (its row holds a NaN, which must not leak). Losses 0.5*2 = 1, 0.25*0.5 = 0.125, 2*2 = 4, +0.
Tensor example_input() { return f32(Shape{4, 2}, {9.0f, -0.5f, -0.25f, 9.0f, 9.0f, -2.0f, NAN, NAN}); }
Tensor example_target() { return i64(Shape{4}, {1, 0, 1, 7}); }
Tensor example_weight() { return f32(Shape{2}, {0.5f, 2.0f}); }

TEST(NegativeLogLikelihoodLoss, NoneSumAndWeightedMeanWithAnIgnoredTarget) {
  for (ExecutionMode mode : {ExecutionMode::Fast, ExecutionMode::Exact}) {
    const std::vector<NodeInput> in{{"x", example_input()}, {"t", example_target()}, {"w", example_weight()}};
    Tensor none = nll(in, {reduction("none"), int_attr("ignore_index", 7)}, mode);
    ASSERT_EQ(none.shape(), (Shape{4}));
    const std::vector<float> losses = none.to_vector<float>();
    EXPECT_EQ(losses, (std::vector<float>{1.0f, 0.125f, 4.0f, 0.0f}));
    EXPECT_EQ(float_bits(losses[3]), 0u);  // section 3: an ignored position is +0
    Tensor sum = nll(in, {reduction("sum"), int_attr("ignore_index", 7)}, mode);
    ASSERT_EQ(sum.shape(), Shape{});
    EXPECT_EQ(sum.to_vector<float>()[0], 5.125f);
    // Weighted mean: D = w[1] + w[0] + w[1] (ignored position adds +0) = 4.5.
    Tensor mean = nll(in, {int_attr("ignore_index", 7)}, mode);  // reduction defaults to mean
    EXPECT_EQ(float_bits(mean.to_vector<float>()[0]), float_bits(5.125f / 4.5f));
  }
}

// Section 3, mean without weight: the denominator counts the positions not ignored (3, not 4).
TEST(NegativeLogLikelihoodLoss, UnweightedMeanCountsOnlyPositionsNotIgnored) {
  Tensor mean = nll({{"x", example_input()}, {"t", example_target()}}, {reduction("mean"), int_attr("ignore_index", 7)});
  // Losses 0.5, 0.25, 2: sum 2.75, divided by 3.
  EXPECT_EQ(float_bits(mean.to_vector<float>()[0]), float_bits(2.75f / 3.0f));
}

// Section 3: the sum is the canonical Sum16 in position order. Terms 1 then sixteen 2^-24
// (spec/ops/norms.md section 2's hand computation: 1 + 7*2^-23; left to right would give 1).
TEST(NegativeLogLikelihoodLoss, SumUsesTheCanonicalSixteenPartialOrder) {
  std::vector<float> x(17, -std::ldexp(1.0f, -24));
  x[0] = -1.0f;
  const float expected = 1.0f + 7.0f * std::ldexp(1.0f, -23);
  Tensor sum = nll({{"x", f32(Shape{17, 1}, x)}, {"t", i64(Shape{17}, std::vector<std::int64_t>(17, 0))}},
                   {reduction("sum")});
  EXPECT_EQ(float_bits(sum.to_vector<float>()[0]), float_bits(expected));
  // The same with weight 1 and mean: the denominator Sum16 of seventeen ones is 17.
  Tensor mean = nll({{"x", f32(Shape{17, 1}, x)}, {"t", i64(Shape{17}, std::vector<std::int64_t>(17, 0))},
                     {"w", f32(Shape{1}, {1.0f})}},
                    {reduction("mean")});
  EXPECT_EQ(float_bits(mean.to_vector<float>()[0]), float_bits(expected / 17.0f));
}

// Section 3 with k = 2: input [N=1, C=3, d1=2, d2=1], target [1, 2, 1] of int32.
// Position (0,0,0) takes class 2: -x[0,2,0,0] = -(-3) = 3; position (0,1,0) takes class 0:
// -x[0,0,1,0] = -(-0.5) = 0.5.
TEST(NegativeLogLikelihoodLoss, SpatialDimensionsAndInt32Targets) {
  const Tensor x = f32(Shape{1, 3, 2, 1}, {-1.0f, -0.5f, -2.0f, -4.0f, -3.0f, -8.0f});
  Tensor none = nll({{"x", x}, {"t", i32(Shape{1, 2, 1}, {2, 0})}}, {reduction("none")});
  ASSERT_EQ(none.shape(), (Shape{1, 2, 1}));
  EXPECT_EQ(none.to_vector<float>(), (std::vector<float>{3.0f, 0.5f}));
  Tensor mean = nll({{"x", x}, {"t", i32(Shape{1, 2, 1}, {2, 0})}}, {});
  EXPECT_EQ(mean.to_vector<float>()[0], 1.75f);
}

// Section 2: a negative ignore_index is a value, not an index from the end; other negative or
// too-large targets are InvalidInput; with no ignore_index, 0 is an ordinary class.
TEST(NegativeLogLikelihoodLoss, NegativeIgnoreIndexAndOutOfRangeTargets) {
  const Tensor x = f32(Shape{2, 2}, {-1.0f, -2.0f, -4.0f, -8.0f});
  Tensor mean = nll({{"x", x}, {"t", i64(Shape{2}, {-1, 1})}}, {int_attr("ignore_index", -1)});
  EXPECT_EQ(mean.to_vector<float>()[0], 8.0f);  // one position counted: 8 / 1
  Tensor plain = nll({{"x", x}, {"t", i64(Shape{2}, {0, 1})}}, {reduction("sum")});
  EXPECT_EQ(plain.to_vector<float>()[0], 9.0f);
  EXPECT_EQ(session_error_kind_of([&] { nll({{"x", x}, {"t", i64(Shape{2}, {-1, 1})}}, {}); }), SessionErrorKind::InvalidInput);
  EXPECT_EQ(session_error_kind_of([&] { nll({{"x", x}, {"t", i64(Shape{2}, {0, 2})}}, {int_attr("ignore_index", -1)}); }),
            SessionErrorKind::InvalidInput);
}

// Section 3: all positions ignored gives 0 / 0, a canonical NaN.
TEST(NegativeLogLikelihoodLoss, MeanOfOnlyIgnoredTargetsIsCanonicalNaN) {
  const Tensor x = f32(Shape{2, 2}, {-1.0f, -2.0f, -4.0f, -8.0f});
  Tensor mean = nll({{"x", x}, {"t", i64(Shape{2}, {5, 5})}, {"w", f32(Shape{2}, {1.0f, 1.0f})}},
                    {int_attr("ignore_index", 5)});
  EXPECT_EQ(float_bits(mean.to_vector<float>()[0]), 0x7FC00000u);
}

// Section 1: float64 follows the same rules; float16 runs through the half-precision adapter
// (spec/half-precision.md section 8: widened, computed in binary32, rounded back); unknown
// reduction and bad shapes are InvalidModel.
TEST(NegativeLogLikelihoodLoss, TypesAndModelErrors) {
  Tensor y = nll({{"x", f64(Shape{2, 2}, {-0.5, -1.5, -2.25, -4.0})}, {"t", i64(Shape{2}, {1, 0})},
                  {"w", f64(Shape{2}, {2.0, 0.25})}},
                 {}, ExecutionMode::Exact, 11);
  // Losses 1.5*0.25 = 0.375 and 2.25*2 = 4.5; D = 0.25 + 2 = 2.25.
  EXPECT_EQ(y.to_vector<double>()[0], 4.875 / 2.25);
  Tensor half = Tensor::empty(DType::F16, Shape{2, 2});
  const float half_values[] = {-1.0f, -2.0f, -4.0f, -8.0f};
  for (std::size_t i = 0; i < 4; ++i) half.mutable_data<std::uint16_t>()[i] = float_to_half_bits(half_values[i]);
  // Losses -x[0][1] = 2 and -x[1][0] = 4, mean 3: exact in binary16.
  const Tensor half_loss = nll({{"x", half}, {"t", i64(Shape{2}, {1, 0})}}, {}, ExecutionMode::Fast, 10);
  ASSERT_EQ(half_loss.dtype(), DType::F16);
  EXPECT_EQ(half_loss.to_vector<std::uint16_t>()[0], float_to_half_bits(3.0f));
  const Tensor x = f32(Shape{2, 2}, {-1.0f, -2.0f, -4.0f, -8.0f});
  EXPECT_EQ(session_error_kind_of([&] { nll({{"x", x}, {"t", i64(Shape{2}, {0, 0})}}, {reduction("average")}); }),
            SessionErrorKind::InvalidModel);
  EXPECT_EQ(session_error_kind_of([&] { nll({{"x", x}, {"t", i64(Shape{3}, {0, 0, 0})}}, {}); }), SessionErrorKind::InvalidModel);
  EXPECT_EQ(session_error_kind_of([&] { nll({{"x", x}, {"t", i64(Shape{2}, {0, 0})}, {"w", f32(Shape{3}, {1, 1, 1})}}, {}); }),
            SessionErrorKind::InvalidModel);
}

// spec/ops/losses.md section 5. Scores [0, -inf]: m = 0, d = [0, -inf], exp = [1, 0], l = 1,
// log(1) = 0, so log_prob = [0, -inf] exactly. Four equal scores: log_prob = -ln 4 each.
TEST(SoftmaxCrossEntropyLoss, LogProbOutputAndLoss) {
  const Tensor x = f32(Shape{2, 2}, {0.0f, -kInf, 5.0f, -kInf});
  auto out = run_node("SoftmaxCrossEntropyLoss", {{"x", x}, {"t", i64(Shape{2}, {0, 0})}}, 1, {reduction("none")}, 13,
                      ExecutionMode::Fast, 2);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[1].shape(), (Shape{2, 2}));
  EXPECT_EQ(out[1].to_vector<float>(), (std::vector<float>{0.0f, -kInf, 0.0f, -kInf}));
  EXPECT_EQ(out[0].to_vector<float>(), (std::vector<float>{0.0f, 0.0f}));

  // [N=1, C=4, d1=2]: column 0 all equal (2), column 1 equal (-3); targets 3 and ignored (-1).
  const Tensor s = f32(Shape{1, 4, 2}, {2, -3, 2, -3, 2, -3, 2, -3});
  const double ln4 = 1.3862943611198906;
  Tensor mean = run_node("SoftmaxCrossEntropyLoss", {{"x", s}, {"t", i64(Shape{1, 2}, {3, -1})}}, 1,
                         {int_attr("ignore_index", -1)}, 12, ExecutionMode::Fast)
                    .at(0);
  EXPECT_NEAR(mean.to_vector<float>()[0], ln4, 1e-6);
  Tensor weighted = run_node("SoftmaxCrossEntropyLoss",
                             {{"x", f64(Shape{1, 4, 2}, {2, -3, 2, -3, 2, -3, 2, -3})},
                              {"t", i64(Shape{1, 2}, {3, 1})},
                              {"w", f64(Shape{4}, {1, 0.5, 1, 0.25})}},
                             11, {reduction("sum")}, 13, ExecutionMode::Fast)
                        .at(0);
  EXPECT_NEAR(weighted.to_vector<double>()[0], 0.75 * ln4, 1e-12);
}

// Section 5: exact in both modes (issue 17, past the source's refusal). Four equal scores give
// d = 0, l = 4 and log_prob = -ln 4: the correctly rounded -ln 4 in float64
// (-1.3862943611198906, 0xBFF62E42FEFA39EF) and in float32 (-1.38629436f); exact mode and fast mode
// give the same bits.
TEST(SoftmaxCrossEntropyLoss, ExactModeRunsAndGivesTheFastBits) {
  const Tensor x64 = f64(Shape{1, 4}, {0.5, 0.5, 0.5, 0.5});
  for (ExecutionMode mode : {ExecutionMode::Exact, ExecutionMode::Fast}) {
    auto out = run_node("SoftmaxCrossEntropyLoss", {{"x", x64}, {"t", i64(Shape{1}, {2})}}, 11, {}, 13, mode, 2);
    EXPECT_EQ(out[1].to_vector<double>(), (std::vector<double>(4, -1.3862943611198906)));
    EXPECT_EQ(out[0].to_vector<double>()[0], 1.3862943611198906);  // mean of one term
  }
  const Tensor x32 = f32(Shape{1, 4}, {-7.0f, -7.0f, -7.0f, -7.0f});
  auto out32 = run_node("SoftmaxCrossEntropyLoss", {{"x", x32}, {"t", i64(Shape{1}, {0})}}, 1, {}, 13,
                        ExecutionMode::Exact, 2);
  EXPECT_EQ(out32[1].to_vector<float>(), (std::vector<float>(4, -1.38629436f)));
  // A mixed input: the exact result equals the fast one bit for bit, and log_prob equals the
  // LogSoftmax node along axis 1 (section 5 step 1 is that operator's row).
  const Tensor mixed = f32(Shape{2, 3, 2}, {0.25f, -1.5f, 3.0f, 2.5f, -0.75f, 8.0f, 1.0f, 1.0f, -2.0f, 0.5f, 4.0f, -6.0f});
  const std::vector<NodeInput> in{{"x", mixed}, {"t", i64(Shape{2, 2}, {0, 2, 1, 1})}, {"w", f32(Shape{3}, {0.5f, 2.0f, 1.25f})}};
  auto exact = run_node("SoftmaxCrossEntropyLoss", in, 1, {}, 13, ExecutionMode::Exact, 2);
  auto fast = run_node("SoftmaxCrossEntropyLoss", in, 1, {}, 13, ExecutionMode::Fast, 2);
  EXPECT_EQ(float_bits(exact[0].to_vector<float>()[0]), float_bits(fast[0].to_vector<float>()[0]));
  const Tensor lsm = run_node("LogSoftmax", {{"x", mixed}}, 1, {int_attr("axis", 1)}, 13, ExecutionMode::Exact).at(0);
  EXPECT_EQ(exact[1].to_vector<float>(), lsm.to_vector<float>());
}

// ---- Operators placed in this family (spec/ops/losses.md sections 6-9), by hand. ----

// Section 6: [1, 2, 3, 4] gives products 1, 2, 6, 24; reverse exclusive gives 24, 12, 4, 1.
TEST(CumProd, InclusiveAndReverseExclusive) {
  const Tensor x = f32(Shape{4}, {1, 2, 3, 4});
  Tensor y = run_node("CumProd", {{"x", x}, {"a", i64(Shape{}, {0})}}, 1, {}, 26).at(0);
  EXPECT_EQ(y.to_vector<float>(), (std::vector<float>{1, 2, 6, 24}));
  Tensor r = run_node("CumProd", {{"x", x}, {"a", i32(Shape{1}, {-1})}}, 1,
                      {int_attr("exclusive", 1), int_attr("reverse", 1)}, 26)
                 .at(0);
  EXPECT_EQ(r.to_vector<float>(), (std::vector<float>{24, 12, 4, 1}));
  EXPECT_EQ(session_error_kind_of([&] { run_node("CumProd", {{"x", x}, {"a", i64(Shape{}, {1})}}, 1, {}, 26); }),
            SessionErrorKind::InvalidInput);
}

// Section 7: p = 2 on [3, 4] (norm 5), p = 1 on [1, -3] (norm 4), a zero line gives zeros.
TEST(LpNormalization, NormsAndZeroLine) {
  Tensor y2 = run_node("LpNormalization", {{"x", f32(Shape{2, 2}, {3, 4, 0, 0})}}, 1, {}, 22).at(0);
  const std::vector<float> v2 = y2.to_vector<float>();
  EXPECT_EQ(float_bits(v2[0]), float_bits(3.0f / 5.0f));
  EXPECT_EQ(float_bits(v2[1]), float_bits(4.0f / 5.0f));
  EXPECT_EQ(float_bits(v2[2]), 0u);
  EXPECT_EQ(float_bits(v2[3]), 0u);
  // p = 1 along axis 0 of [[1], [-3]].
  Tensor y1 = run_node("LpNormalization", {{"x", f32(Shape{2, 1}, {1, -3})}}, 1,
                       {int_attr("p", 1), int_attr("axis", 0)}, 1)
                  .at(0);
  EXPECT_EQ(y1.to_vector<float>(), (std::vector<float>{0.25f, -0.75f}));
}

// Section 8, default axes [0, 2, 3] on [1, 2, 1, 2]: channel 0 holds [1, 3] (mean 2, v = 1, s = 1),
// channel 1 holds [5, 5] (s = 0: zeros).
TEST(MeanVarianceNormalization, PerChannelAndZeroVariance) {
  Tensor y = run_node("MeanVarianceNormalization", {{"x", f32(Shape{1, 2, 1, 2}, {1, 3, 5, 5})}}, 1, {}, 13).at(0);
  EXPECT_EQ(y.to_vector<float>(), (std::vector<float>{-1, 1, 0, 0}));
  // axes [1] on [2, 2]: rows [0, 4] -> mean 2, v = 4, s = 2 -> [-1, 1]; [6, 6] -> zeros.
  Tensor z = run_node("MeanVarianceNormalization", {{"x", f64(Shape{2, 2}, {0, 4, 6, 6})}}, 11,
                      {ints_attr("axes", {1})}, 13)
                 .at(0);
  EXPECT_EQ(z.to_vector<double>(), (std::vector<double>{-1, 1, 0, 0}));
}

// Section 9: [[0, 2], [3, 4]] swaps rows (pivot 3), det = -(3 * 2) = -6; diag(2, 3, 4) gives 24.
TEST(Det, PivotingAndBatch) {
  Tensor y = run_node("Det", {{"x", f32(Shape{2, 2}, {0, 2, 3, 4})}}, 1, {}, 22).at(0);
  ASSERT_EQ(y.shape(), Shape{});
  EXPECT_EQ(y.to_vector<float>()[0], -6.0f);
  Tensor b = run_node("Det", {{"x", f64(Shape{2, 3, 3}, {2, 0, 0, 0, 3, 0, 0, 0, 4, 1, 2, 3, 2, 4, 6, 0, 0, 1})}}, 11,
                      {}, 22)
                 .at(0);
  EXPECT_EQ(b.to_vector<double>(), (std::vector<double>{24, 0}));  // second matrix is singular
}

}  // namespace
}  // namespace onemodel
