// Normalisation, softmax and reduction operators of the reference engine (spec/ops/norms.md).
// Expected values are computed by hand from the rule text (the section is cited next to each),
// never by running the code under test.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "core/ir/resolve.hpp"
#include "onemodel/session.hpp"
#include "reference/ops/canonical_sum.hpp"
#include "tests/support/ir_builder.hpp"

namespace onemodel {
namespace {

using namespace ir_builder;

constexpr float kInf = std::numeric_limits<float>::infinity();

// Runs one node `op` at `opset` on the given inputs (graph inputs, fed at run time), output "y".
Tensor run_one(const std::string& op, const std::vector<NodeInput>& inputs, std::int32_t out_elem,
               std::vector<IrAttribute> attributes, std::int64_t opset,
               ExecutionMode mode = ExecutionMode::Exact) {
  return run_one_node(op, opset, inputs, {unshaped_tensor_value_info("y", out_elem)}, std::move(attributes), mode).at(0);
}

Tensor f32(const Shape& shape, std::vector<float> v) { return Tensor::from_values<float>(DType::F32, shape, v); }
Tensor i64(const Shape& shape, std::vector<std::int64_t> v) {
  return Tensor::from_values<std::int64_t>(DType::I64, shape, v);
}

// Terms for the canonical-sum example: t[0] = 1, t[1..16] = 2^-24 (17 terms).
std::vector<float> seventeen_terms() {
  std::vector<float> t(17, std::ldexp(1.0f, -24));
  t[0] = 1.0f;
  return t;
}

// spec/ops/norms.md section 2, by hand. P[0] = 1 then P[0] = 1 + 2^-24, a tie rounded to even: 1.
// P[1..15] = 2^-24. a[0] = P[0] + P[8] = 1 + 2^-24 = 1 (tie to even); a[1..7] = 2^-23.
// b[0] = a[0] + a[4] = 1 + 2^-23 (exact); b[1..3] = 2^-22. c[0] = b[0] + b[2] = 1 + 3*2^-23;
// c[1] = b[1] + b[3] = 2^-21 = 4*2^-23. Sum = 1 + 7*2^-23 (all exact). Left to right instead:
// 1 + 2^-24 = 1 sixteen times, giving exactly 1.
const float kCanonical17 = 1.0f + 7.0f * std::ldexp(1.0f, -23);

TEST(CanonicalSum, OrderOnAHandComputedExampleDiffersFromLeftToRight) {
  const std::vector<float> t = seventeen_terms();
  const float canonical = canonical_sum16(std::span<const float>(t));
  EXPECT_EQ(float_bits(canonical), float_bits(kCanonical17));
  float naive = 0.0f;
  for (float x : t) naive = naive + x;
  EXPECT_EQ(float_bits(naive), float_bits(1.0f));
  EXPECT_NE(float_bits(canonical), float_bits(naive));
}

TEST(CanonicalSum, EmptyIsPositiveZeroAndMinusZeroTermsGivePositiveZero) {
  EXPECT_EQ(float_bits(canonical_sum16(std::span<const float>())), 0u);
  const std::vector<float> negative_zeros(3, -0.0f);
  // exact-mode.md rule 3: partials start at +0, and +0 + -0 = +0.
  EXPECT_EQ(float_bits(canonical_sum16(std::span<const float>(negative_zeros))), 0u);
}

// spec/ops/norms.md section 6: reducing the last dimension (row layout) uses Sum16; reducing a
// leading dimension whose neighbour is kept (column layout) adds sequentially from +0.
TEST(ReduceSum, RowLayoutUsesTheCanonicalSumAndColumnLayoutIsSequential) {
  const std::vector<float> t = seventeen_terms();
  for (ExecutionMode mode : {ExecutionMode::Fast, ExecutionMode::Exact}) {
    Tensor row = run_one("ReduceSum", {{"x", f32(Shape{1, 17}, t)}, {"axes", i64(Shape{1}, {1})}}, 1,
                         {int_attr("keepdims", 0)}, 13, mode);
    ASSERT_EQ(row.shape(), (Shape{1}));
    EXPECT_EQ(float_bits(row.to_vector<float>()[0]), float_bits(kCanonical17));
    // Column layout: [17, 2] reduced over axis 0; both columns hold the same terms.
    std::vector<float> columns;
    for (float x : t) {
      columns.push_back(x);
      columns.push_back(x);
    }
    Tensor col = run_one("ReduceSum", {{"x", f32(Shape{17, 2}, columns)}, {"axes", i64(Shape{1}, {0})}}, 1,
                         {int_attr("keepdims", 0)}, 13, mode);
    ASSERT_EQ(col.shape(), (Shape{2}));
    EXPECT_EQ(float_bits(col.to_vector<float>()[0]), float_bits(1.0f));
    EXPECT_EQ(float_bits(col.to_vector<float>()[1]), float_bits(1.0f));
  }
}

// The attribute form (opset 11) and keepdims default 1.
TEST(ReduceSum, AttributeAxesAndKeepdims) {
  Tensor y = run_one("ReduceSum", {{"x", f32(Shape{2, 3}, {1, 2, 3, 4, 5, 6})}}, 1, {ints_attr("axes", {-1})}, 11);
  EXPECT_EQ(y.shape(), (Shape{2, 1}));
  EXPECT_EQ(y.to_vector<float>(), (std::vector<float>{6, 15}));
}

// spec/ops/norms.md section 6, "Terms and finishing": empty reductions give the finished identity.
TEST(Reduce, EmptyReductionsGiveTheirIdentities) {
  const Tensor x = f32(Shape{0, 3}, {});
  auto reduce0 = [&](const std::string& op) {
    Tensor y = run_one(op, {{"x", x}, {"axes", i64(Shape{1}, {0})}}, 1, {int_attr("keepdims", 0)}, 18);
    EXPECT_EQ(y.shape(), (Shape{3})) << op;
    return y.to_vector<float>();
  };
  EXPECT_EQ(reduce0("ReduceSum"), (std::vector<float>{0, 0, 0}));
  EXPECT_EQ(reduce0("ReduceMean"), (std::vector<float>{0, 0, 0}));
  EXPECT_EQ(reduce0("ReduceProd"), (std::vector<float>{1, 1, 1}));
  EXPECT_EQ(reduce0("ReduceL1"), (std::vector<float>{0, 0, 0}));
  EXPECT_EQ(reduce0("ReduceL2"), (std::vector<float>{0, 0, 0}));
  EXPECT_EQ(reduce0("ReduceSumSquare"), (std::vector<float>{0, 0, 0}));
  EXPECT_EQ(reduce0("ReduceMax"), (std::vector<float>{-kInf, -kInf, -kInf}));
  EXPECT_EQ(reduce0("ReduceMin"), (std::vector<float>{kInf, kInf, kInf}));
  EXPECT_EQ(reduce0("ReduceLogSum"), (std::vector<float>{-kInf, -kInf, -kInf}));
  EXPECT_EQ(reduce0("ReduceLogSumExp"), (std::vector<float>{-kInf, -kInf, -kInf}));
  // Integers: the lowest value for max (section 6, "Maximum and minimum").
  Tensor yi = run_one("ReduceMax",
                      {{"x", Tensor::from_values<std::int32_t>(DType::I32, Shape{2, 0}, std::vector<std::int32_t>{})},
                       {"axes", i64(Shape{1}, {1})}},
                      6, {}, 18);
  EXPECT_EQ(yi.shape(), (Shape{2, 1}));
  EXPECT_EQ(yi.to_vector<std::int32_t>(),
            (std::vector<std::int32_t>{std::numeric_limits<std::int32_t>::min(), std::numeric_limits<std::int32_t>::min()}));
}

// Section 6, "Axes": empty axes with noop_with_empty_axes apply the operation to each element.
TEST(Reduce, NoopWithEmptyAxesAppliesTheOperationPerElement) {
  const Tensor x = f32(Shape{2}, {3, -2});
  const std::vector<IrAttribute> noop = {int_attr("noop_with_empty_axes", 1)};
  EXPECT_EQ(run_one("ReduceSumSquare", {{"x", x}, {"axes", i64(Shape{0}, {})}}, 1, noop, 18).to_vector<float>(),
            (std::vector<float>{9, 4}));
  EXPECT_EQ(run_one("ReduceL1", {{"x", x}, {"axes", i64(Shape{0}, {})}}, 1, noop, 18).to_vector<float>(),
            (std::vector<float>{3, 2}));
  EXPECT_EQ(run_one("ReduceSum", {{"x", x}}, 1, noop, 13).to_vector<float>(), (std::vector<float>{3, -2}));
  // Without the flag, empty axes reduce everything.
  Tensor all = run_one("ReduceSum", {{"x", x}, {"axes", i64(Shape{0}, {})}}, 1, {}, 13);
  EXPECT_EQ(all.shape(), (Shape{1}));
  EXPECT_EQ(all.to_vector<float>(), (std::vector<float>{1}));
}

// Section 6, "Maximum and minimum and NaN": NaN only wins when first.
TEST(Reduce, MaxIgnoresNaNUnlessFirst) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  Tensor later = run_one("ReduceMax", {{"x", f32(Shape{3}, {1, nan, 2})}}, 1, {int_attr("keepdims", 0)}, 18);
  EXPECT_EQ(later.to_vector<float>(), (std::vector<float>{2}));
  Tensor first = run_one("ReduceMin", {{"x", f32(Shape{3}, {nan, 1, 2})}}, 1, {int_attr("keepdims", 0)}, 18);
  EXPECT_EQ(float_bits(first.to_vector<float>()[0]), 0x7FC00000u);
}

// Section 6, "Other types": integer mean truncates toward zero; sums wrap.
TEST(Reduce, IntegerMeanTruncatesAndSumsWrap) {
  Tensor mean = run_one("ReduceMean",
                        {{"x", Tensor::from_values<std::int32_t>(DType::I32, Shape{3}, std::vector<std::int32_t>{-1, -2, -2})}},
                        6, {int_attr("keepdims", 0)}, 18);
  EXPECT_EQ(mean.to_vector<std::int32_t>(), (std::vector<std::int32_t>{-1}));  // -5 / 3 = -1.67 -> -1
  Tensor sum = run_one("ReduceSum",
                       {{"x", Tensor::from_values<std::uint8_t>(DType::U8, Shape{2}, std::vector<std::uint8_t>{200, 100})}},
                       2, {int_attr("keepdims", 0)}, 13);
  EXPECT_EQ(sum.to_vector<std::uint8_t>(), (std::vector<std::uint8_t>{44}));  // 300 mod 256
}

// spec/ops/norms.md section 7: ties go to the first index, or the last with select_last_index.
TEST(ArgMax, TiesAndSelectLastIndex) {
  const Tensor x = f32(Shape{4}, {1, 3, 3, 2});
  EXPECT_EQ(run_one("ArgMax", {{"x", x}}, 7, {}, 13).to_vector<std::int64_t>(), (std::vector<std::int64_t>{1}));
  EXPECT_EQ(run_one("ArgMax", {{"x", x}}, 7, {int_attr("select_last_index", 1)}, 13).to_vector<std::int64_t>(),
            (std::vector<std::int64_t>{2}));
  const Tensor m = f32(Shape{4}, {2, 1, 1, 5});
  EXPECT_EQ(run_one("ArgMin", {{"x", m}}, 7, {}, 13).to_vector<std::int64_t>(), (std::vector<std::int64_t>{1}));
  EXPECT_EQ(run_one("ArgMin", {{"x", m}}, 7, {int_attr("select_last_index", 1)}, 13).to_vector<std::int64_t>(),
            (std::vector<std::int64_t>{2}));
  // Opset 11 has no select_last_index: the first tie always.
  EXPECT_EQ(run_one("ArgMax", {{"x", x}}, 7, {int_attr("select_last_index", 1)}, 11).to_vector<std::int64_t>(),
            (std::vector<std::int64_t>{1}));
  // NaN wins only when first; keepdims = 0 along axis 1 of [2, 2].
  const float nan = std::numeric_limits<float>::quiet_NaN();
  Tensor y = run_one("ArgMax", {{"x", f32(Shape{2, 2}, {nan, 5, 5, nan})}}, 7,
                     {int_attr("axis", 1), int_attr("keepdims", 0)}, 13);
  EXPECT_EQ(y.shape(), (Shape{2}));
  EXPECT_EQ(y.to_vector<std::int64_t>(), (std::vector<std::int64_t>{0, 0}));
}

// spec/ops/norms.md section 8.
TEST(CumSum, ExclusiveAndReverse) {
  const Tensor x = f32(Shape{3}, {1, 2, 3});
  const Tensor axis = i64(Shape{}, {0});
  EXPECT_EQ(run_one("CumSum", {{"x", x}, {"axis", axis}}, 1, {}, 14).to_vector<float>(), (std::vector<float>{1, 3, 6}));
  EXPECT_EQ(run_one("CumSum", {{"x", x}, {"axis", axis}}, 1, {int_attr("exclusive", 1)}, 14).to_vector<float>(),
            (std::vector<float>{0, 1, 3}));
  EXPECT_EQ(run_one("CumSum", {{"x", x}, {"axis", axis}}, 1, {int_attr("reverse", 1)}, 14).to_vector<float>(),
            (std::vector<float>{6, 5, 3}));
  EXPECT_EQ(run_one("CumSum", {{"x", x}, {"axis", axis}}, 1, {int_attr("exclusive", 1), int_attr("reverse", 1)}, 14)
                .to_vector<float>(),
            (std::vector<float>{5, 3, 0}));
  EXPECT_THROW(run_one("CumSum", {{"x", x}, {"axis", i64(Shape{}, {1})}}, 1, {}, 14), SessionError);
}

// spec/ops/norms.md section 5: exp(0) is exactly 1, so a row of equal values is exactly uniform;
// a row holding +inf is NaN throughout; Hardmax marks the first maximum.
TEST(Softmax, UniformRowsInfinityAndHardmax) {
  Tensor y = run_one("Softmax", {{"x", f32(Shape{2, 2}, {0, 0, 7, kInf})}}, 1, {}, 13);
  const std::vector<float> v = y.to_vector<float>();
  EXPECT_EQ(v[0], 0.5f);
  EXPECT_EQ(v[1], 0.5f);
  EXPECT_EQ(float_bits(v[2]), 0x7FC00000u);
  EXPECT_EQ(float_bits(v[3]), 0x7FC00000u);
  // Opset 11 coerces to 2-D at axis 1: [1, 2, 2] is one row of four equal values.
  Tensor c = run_one("Softmax", {{"x", f32(Shape{1, 2, 2}, {3, 3, 3, 3})}}, 1, {}, 11);
  EXPECT_EQ(c.to_vector<float>(), (std::vector<float>{0.25f, 0.25f, 0.25f, 0.25f}));
  Tensor h = run_one("Hardmax", {{"x", f32(Shape{4}, {1, 4, 4, 0})}}, 1, {}, 13);
  EXPECT_EQ(h.to_vector<float>(), (std::vector<float>{0, 1, 0, 0}));
  // LogSoftmax of two equal values: d = 0, l = 2, y = 0 - log(2) (the library's log, rounded to
  // the nearest float of ln 2 = 0.693147182...).
  Tensor l = run_one("LogSoftmax", {{"x", f32(Shape{2}, {5, 5})}}, 1, {}, 13);
  EXPECT_NEAR(l.to_vector<float>()[0], -0.69314718f, 1e-7f);
}

// spec/ops/norms.md section 3 with the 17-term example as a row: mean = Sum16 / 17.
TEST(LayerNormalization, MeanOutputUsesTheCanonicalSum) {
  const std::vector<float> t = seventeen_terms();
  IrModel m;
  m.ir_version = 8;
  m.opset_imports = {{"", 17}};
  const Shape xs{1, 17}, ss{17}, ms{1, 1};
  m.graph.inputs = {fixed_tensor_value_info("x", 1, xs), fixed_tensor_value_info("scale", 1, ss)};
  IrNode n = node("LayerNormalization", {"x", "scale"}, {"y", "mean", "inv"});
  n.name = "ln";
  m.graph.nodes = {n};
  m.graph.outputs = {fixed_tensor_value_info("y", 1, xs), fixed_tensor_value_info("mean", 1, ms),
                     fixed_tensor_value_info("inv", 1, ms)};
  resolve_model(m, FieldPathStyle::Onnx);
  Session s = reference_session(std::move(m), ExecutionMode::Exact);
  auto out = s.run({{"x", f32(xs, t)}, {"scale", f32(ss, std::vector<float>(17, 1.0f))}});
  EXPECT_EQ(float_bits(out.at(1).to_vector<float>()[0]), float_bits(kCanonical17 / 17.0f));
}

}  // namespace
}  // namespace onemodel
