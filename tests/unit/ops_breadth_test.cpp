// Operators added for issue 17's breadth (branch breadth): Swish, LpPool, LRN and the ones after
// them. Expected values are computed by hand from the ONNX operator text and the spec sections
// cited next to each (spec/ops/*.md), never by running the code under test; the refusals of
// untrusted attributes and inputs are checked for their kind and their message.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "onemodel/session.hpp"
#include "tests/support/ir_builder.hpp"

namespace onemodel {
namespace {

using namespace ir_builder;

constexpr std::int32_t kF32 = 1;
constexpr std::int32_t kI64 = 7;
constexpr std::int32_t kF64 = 11;

Tensor f32(const Shape& shape, std::vector<float> v) { return Tensor::from_values<float>(DType::F32, shape, v); }
Tensor f64(const Shape& shape, std::vector<double> v) { return Tensor::from_values<double>(DType::F64, shape, v); }
Tensor i64(const Shape& shape, std::vector<std::int64_t> v) {
  return Tensor::from_values<std::int64_t>(DType::I64, shape, v);
}

// One node `op` at `opset`, output "y" of element type `out_elem`, in the reference engine.
Tensor run_one(const std::string& op, std::int64_t opset, const std::vector<NodeInput>& inputs, std::int32_t out_elem,
               std::vector<IrAttribute> attributes, ExecutionMode mode = ExecutionMode::Exact) {
  return run_one_node(op, opset, inputs, {unshaped_tensor_value_info("y", out_elem)}, std::move(attributes), mode).at(0);
}

// The error a one-node run raises: its kind, and that its message names the operator and says
// `why` (`<Kind>: <message>`, spec/errors.md).
void expect_refused(SessionErrorKind kind, const std::string& why, const std::string& op, std::int64_t opset,
                    const std::vector<NodeInput>& inputs, std::vector<IrAttribute> attributes,
                    std::int32_t out_elem = kF32, std::size_t outputs = 1) {
  std::vector<IrValueInfo> outs{unshaped_tensor_value_info("y", out_elem)};
  for (std::size_t i = 1; i < outputs; ++i) outs.push_back(unshaped_tensor_value_info("y" + std::to_string(i), kI64));
  try {
    run_one_node(op, opset, inputs, outs, std::move(attributes), ExecutionMode::Fast);
    ADD_FAILURE() << op << ": no error, expected one saying '" << why << "'";
  } catch (const SessionError& e) {
    EXPECT_EQ(e.kind(), kind) << e.what();
    const std::string message = e.what();
    EXPECT_NE(message.find(op + ":"), std::string::npos) << message;
    EXPECT_NE(message.find(why), std::string::npos) << message;
  }
}

std::vector<float> values(const Tensor& t) { return t.to_vector<float>(); }

// ---- Swish (spec/ops/elementwise.md section 9): x * sigmoid(alpha * x) ----------------------

// alpha = 0 makes the sigmoid 1/2 exactly, so Swish is x / 2; alpha = 1 at x = 0 gives 0.
TEST(Swish, AlphaZeroHalvesAndZeroStaysZero) {
  for (ExecutionMode mode : {ExecutionMode::Fast, ExecutionMode::Exact}) {
    const Tensor y = run_one("Swish", 24, {{"x", f32(Shape{3}, {2.0f, -3.0f, 5.5f})}}, kF32, {float_attr("alpha", 0.0f)}, mode);
    EXPECT_EQ(values(y), (std::vector<float>{1.0f, -1.5f, 2.75f}));
    const Tensor z = run_one("Swish", 24, {{"x", f32(Shape{2}, {0.0f, 40.0f})}}, kF32, {}, mode);
    // sigmoid(40) rounds to 1 in binary32 (e^-40 < 2^-25), so Swish(40) = 40.
    EXPECT_EQ(values(z), (std::vector<float>{0.0f, 40.0f}));
  }
  const Tensor d = run_one("Swish", 24, {{"x", f64(Shape{1}, {3.0})}}, kF64, {float_attr("alpha", 0.0f)}, ExecutionMode::Fast);
  EXPECT_EQ(d.to_vector<double>(), (std::vector<double>{1.5}));
}

TEST(Swish, IntegersAreUnsupported) {
  expect_refused(SessionErrorKind::Unsupported, "I32", "Swish", 24, {{"x", Tensor::from_values<std::int32_t>(DType::I32, Shape{1}, {1})}},
                 {}, 6);
}

// ---- LpPool (spec/ops/products-conv.md section 8.5) -----------------------------------------

// p = 1: sums of |x|; p = 2 on (3, 4): 5 exactly (the exact Pow is within 0.501 ulp of 25^0.5).
TEST(LpPool, HandComputedNorms) {
  const Tensor x = f32(Shape{1, 1, 4}, {1.0f, -2.0f, 3.0f, 4.0f});
  EXPECT_EQ(values(run_one("LpPool", 18, {{"x", x}}, kF32, {ints_attr("kernel_shape", {2}), int_attr("p", 1)})),
            (std::vector<float>{3.0f, 5.0f, 7.0f}));
  EXPECT_EQ(values(run_one("LpPool", 18, {{"x", x}}, kF32, {ints_attr("kernel_shape", {2}), ints_attr("strides", {2})})),
            (std::vector<float>{std::sqrt(5.0f), 5.0f}));
  // Padding adds nothing: a window over [pad, 1] with p = 3 is |1| = 1.
  EXPECT_EQ(values(run_one("LpPool", 18, {{"x", x}}, kF32,
                           {ints_attr("kernel_shape", {2}), ints_attr("pads", {1, 0}), int_attr("p", 3)}))[0],
            1.0f);
}

TEST(LpPool, RefusesBadAttributes) {
  const std::vector<NodeInput> in{{"x", f32(Shape{1, 1, 4}, {1, 2, 3, 4})}};
  expect_refused(SessionErrorKind::InvalidModel, "not a positive norm order", "LpPool", 18, in,
                 {ints_attr("kernel_shape", {2}), int_attr("p", 0)});
  expect_refused(SessionErrorKind::InvalidModel, "not a positive norm order", "LpPool", 18, in,
                 {ints_attr("kernel_shape", {2}), int_attr("p", -2)});
  expect_refused(SessionErrorKind::InvalidModel, "'kernel_shape' is required", "LpPool", 18, in, {});
  expect_refused(SessionErrorKind::InvalidModel, "does not fit", "LpPool", 18, in, {ints_attr("kernel_shape", {5})});
  expect_refused(SessionErrorKind::InvalidModel, "rank 3 or more", "LpPool", 18, {{"x", f32(Shape{4}, {1, 2, 3, 4})}},
                 {ints_attr("kernel_shape", {2})});
  expect_refused(SessionErrorKind::InvalidModel, "pad -1", "LpPool", 18, in,
                 {ints_attr("kernel_shape", {2}), ints_attr("pads", {-1, 0})});
}

// ---- LRN (spec/ops/norms.md section 10) ------------------------------------------------------

// size 2: the region of channel c is [c - floor(1/2), c + ceil(1/2)] = [c, c + 1] (ONNX text), so
// for X = (1, 2), alpha 2, beta 1, bias 1: c = 0 sums 1 + 4 = 5, Y = 1 / (1 + 1 * 5) = 1/6;
// c = 1 sums 4, Y = 2 / (1 + 4) = 2/5. (A window centred the other way, [c - 1, c], would give
// 1/2 and 2/6.)
TEST(Lrn, EvenSizeRegionIsTheOnnxOne) {
  const Tensor y = run_one("LRN", 13, {{"x", f32(Shape{1, 2, 1, 1}, {1.0f, 2.0f})}}, kF32,
                           {int_attr("size", 2), float_attr("alpha", 2.0f), float_attr("beta", 1.0f)});
  EXPECT_EQ(values(y), (std::vector<float>{1.0f / 6.0f, 2.0f / 5.0f}));
  const Tensor d = run_one("LRN", 13, {{"x", f64(Shape{1, 2, 1, 1}, {1.0, 2.0})}}, kF64,
                           {int_attr("size", 2), float_attr("alpha", 2.0f), float_attr("beta", 1.0f)});
  EXPECT_EQ(d.to_vector<double>(), (std::vector<double>{1.0 / 6.0, 2.0 / 5.0}));
}

// Rank 3 and rank 5 inputs give the values of the same data shaped [N, C, H, 1] (rank 4 is what
// the oracle cases check against ONNX Runtime).
TEST(Lrn, OtherRanksMatchRankFour) {
  std::vector<float> data;
  for (int i = 0; i < 2 * 5 * 6; ++i) data.push_back(static_cast<float>((i * 7) % 11) - 5.0f);
  const std::vector<IrAttribute> attrs{int_attr("size", 3), float_attr("alpha", 0.3f), float_attr("beta", 0.8f)};
  const auto four = values(run_one("LRN", 13, {{"x", f32(Shape{2, 5, 6, 1}, data)}}, kF32, attrs));
  EXPECT_EQ(values(run_one("LRN", 13, {{"x", f32(Shape{2, 5, 6}, data)}}, kF32, attrs)), four);
  EXPECT_EQ(values(run_one("LRN", 13, {{"x", f32(Shape{2, 5, 2, 3, 1}, data)}}, kF32, attrs)), four);
}

TEST(Lrn, RefusesBadSizeAndRank) {
  const std::vector<NodeInput> in{{"x", f32(Shape{1, 2, 1, 1}, {1, 2})}};
  expect_refused(SessionErrorKind::InvalidModel, "'size' must be given and positive", "LRN", 13, in, {});
  expect_refused(SessionErrorKind::InvalidModel, "'size' must be given and positive", "LRN", 13, in, {int_attr("size", -3)});
  expect_refused(SessionErrorKind::InvalidModel, "rank 3 or more", "LRN", 13, {{"x", f32(Shape{2, 2}, {1, 2, 3, 4})}},
                 {int_attr("size", 3)});
}

// ---- Compress (spec/ops/shape-indexing.md section 2) -----------------------------------------

Tensor bools(std::vector<std::uint8_t> v) {
  return Tensor::from_values<std::uint8_t>(DType::Bool, Shape{static_cast<std::int64_t>(v.size())}, v);
}

// [[1, 2, 3], [4, 5, 6]]: axis 1 with (false, true, true, false) keeps columns 1 and 2 (the false
// tail past the extent is allowed); no axis with (true, false, false, true) reads 1, 2, 3, 4 and
// keeps 1 and 4.
TEST(Compress, HandComputedSelections) {
  const Tensor x = f32(Shape{2, 3}, {1, 2, 3, 4, 5, 6});
  const Tensor y = run_one("Compress", 11, {{"x", x}, {"c", bools({0, 1, 1, 0})}}, kF32, {int_attr("axis", 1)});
  EXPECT_EQ(y.shape(), (Shape{2, 2}));
  EXPECT_EQ(values(y), (std::vector<float>{2, 3, 5, 6}));
  const Tensor flat = run_one("Compress", 11, {{"x", x}, {"c", bools({1, 0, 0, 1})}}, kF32, {});
  EXPECT_EQ(flat.shape(), (Shape{2}));
  EXPECT_EQ(values(flat), (std::vector<float>{1, 4}));
}

TEST(Compress, RefusesBadConditionAndAxis) {
  const Tensor x = f32(Shape{2, 3}, {1, 2, 3, 4, 5, 6});
  // A true entry past the axis, from the caller: InvalidInput.
  expect_refused(SessionErrorKind::InvalidInput, "condition entry 3 is true but the axis has 3 slices", "Compress", 11,
                 {{"x", x}, {"c", bools({0, 0, 0, 1})}}, {int_attr("axis", 1)});
  expect_refused(SessionErrorKind::InvalidModel, "axis 2 outside [-2, 2)", "Compress", 11, {{"x", x}, {"c", bools({1})}},
                 {int_attr("axis", 2)});
  expect_refused(SessionErrorKind::InvalidModel, "condition must be bool", "Compress", 11,
                 {{"x", x}, {"c", f32(Shape{1}, {1})}}, {int_attr("axis", 0)});
  expect_refused(SessionErrorKind::InvalidModel, "condition must have rank 1", "Compress", 11,
                 {{"x", x}, {"c", Tensor::from_values<std::uint8_t>(DType::Bool, Shape{1, 1}, {1})}}, {int_attr("axis", 0)});
}

// ---- ReverseSequence (spec/ops/shape-indexing.md section 2) ---------------------------------

// The ONNX text's example 2: batch_axis 0, time_axis 1, lengths 1, 2, 3, 4.
TEST(ReverseSequence, OnnxExampleTwo) {
  std::vector<float> x;
  for (int i = 0; i < 16; ++i) x.push_back(static_cast<float>(i));
  const Tensor y = run_one("ReverseSequence", 10, {{"x", f32(Shape{4, 4}, x)}, {"lens", i64(Shape{4}, {1, 2, 3, 4})}},
                           kF32, {int_attr("batch_axis", 0), int_attr("time_axis", 1)});
  EXPECT_EQ(values(y), (std::vector<float>{0, 1, 2, 3, 5, 4, 6, 7, 10, 9, 8, 11, 15, 14, 13, 12}));
}

TEST(ReverseSequence, RefusesBadAxesShapesAndLengths) {
  const std::vector<NodeInput> in{{"x", f32(Shape{2, 2}, {1, 2, 3, 4})}, {"lens", i64(Shape{2}, {1, 2})}};
  expect_refused(SessionErrorKind::InvalidModel, "batch_axis and time_axis are both 0", "ReverseSequence", 10, in,
                 {int_attr("batch_axis", 0)});
  expect_refused(SessionErrorKind::InvalidModel, "time_axis must be 0 or 1, not 2", "ReverseSequence", 10, in,
                 {int_attr("time_axis", 2)});
  expect_refused(SessionErrorKind::InvalidModel, "rank 2 or more", "ReverseSequence", 10,
                 {{"x", f32(Shape{2}, {1, 2})}, {"lens", i64(Shape{2}, {1, 2})}}, {});
  expect_refused(SessionErrorKind::InvalidModel, "sequence_lens must have shape [2]", "ReverseSequence", 10,
                 {{"x", f32(Shape{2, 2}, {1, 2, 3, 4})}, {"lens", i64(Shape{3}, {1, 2, 1})}}, {});
  expect_refused(SessionErrorKind::InvalidInput, "sequence_lens[1] = 3 outside [0, 2]", "ReverseSequence", 10,
                 {{"x", f32(Shape{2, 2}, {1, 2, 3, 4})}, {"lens", i64(Shape{2}, {1, 3})}}, {});
  expect_refused(SessionErrorKind::InvalidInput, "sequence_lens[0] = -1 outside [0, 2]", "ReverseSequence", 10,
                 {{"x", f32(Shape{2, 2}, {1, 2, 3, 4})}, {"lens", i64(Shape{2}, {-1, 1})}}, {});
}

// ---- Unique (spec/ops/shape-indexing.md section 2) ------------------------------------------

std::vector<Tensor> run_unique(const Tensor& x, std::vector<IrAttribute> attrs, std::int32_t elem = kF32) {
  return run_one_node("Unique", 11, {{"x", x}},
                      {unshaped_tensor_value_info("y", elem), unshaped_tensor_value_info("indices", kI64),
                       unshaped_tensor_value_info("inverse", kI64), unshaped_tensor_value_info("counts", kI64)},
                      std::move(attrs), ExecutionMode::Exact);
}

// The ONNX text's example 1 (sorted 0) and example 2 (sorted 1).
TEST(Unique, OnnxExamplesOneAndTwo) {
  const auto one = run_unique(f32(Shape{6}, {2, 1, 1, 3, 4, 3}), {int_attr("sorted", 0)});
  EXPECT_EQ(values(one[0]), (std::vector<float>{2, 1, 3, 4}));
  EXPECT_EQ(one[1].to_vector<std::int64_t>(), (std::vector<std::int64_t>{0, 1, 3, 4}));
  EXPECT_EQ(one[2].to_vector<std::int64_t>(), (std::vector<std::int64_t>{0, 1, 1, 2, 3, 2}));
  EXPECT_EQ(one[3].to_vector<std::int64_t>(), (std::vector<std::int64_t>{1, 2, 2, 1}));
  const auto two = run_unique(f32(Shape{2, 2}, {1, 3, 2, 3}), {int_attr("sorted", 1)});
  EXPECT_EQ(values(two[0]), (std::vector<float>{1, 2, 3}));
  EXPECT_EQ(two[1].to_vector<std::int64_t>(), (std::vector<std::int64_t>{0, 2, 1}));
  EXPECT_EQ(two[2].to_vector<std::int64_t>(), (std::vector<std::int64_t>{0, 2, 1, 2}));
  EXPECT_EQ(two[3].to_vector<std::int64_t>(), (std::vector<std::int64_t>{1, 1, 2}));
}

// The ONNX text's example 4: slices along axis 1 of a [2, 4, 2] input.
TEST(Unique, OnnxExampleFourAlongAnAxis) {
  const auto r = run_unique(f32(Shape{2, 4, 2}, {1, 1, 0, 1, 2, 1, 0, 1, 1, 1, 0, 1, 2, 1, 0, 1}),
                            {int_attr("sorted", 1), int_attr("axis", 1)});
  EXPECT_EQ(r[0].shape(), (Shape{2, 3, 2}));
  EXPECT_EQ(values(r[0]), (std::vector<float>{0, 1, 1, 1, 2, 1, 0, 1, 1, 1, 2, 1}));
  EXPECT_EQ(r[1].to_vector<std::int64_t>(), (std::vector<std::int64_t>{1, 0, 2}));
  EXPECT_EQ(r[2].to_vector<std::int64_t>(), (std::vector<std::int64_t>{1, 0, 2, 0}));
  EXPECT_EQ(r[3].to_vector<std::int64_t>(), (std::vector<std::int64_t>{2, 1, 1}));
}

// NaNs are one value ordered last; -0 and +0 are one value whose bits are the first occurrence's.
TEST(Unique, NanAndSignedZeros) {
  const float nan = std::nanf("");
  const auto r = run_unique(f32(Shape{6}, {nan, -0.0f, 1.0f, nan, 0.0f, -1.0f}), {});
  const std::vector<float> y = values(r[0]);
  ASSERT_EQ(y.size(), 4u);
  EXPECT_EQ(y[0], -1.0f);
  EXPECT_EQ(float_bits(y[1]), float_bits(-0.0f));
  EXPECT_EQ(y[2], 1.0f);
  EXPECT_TRUE(std::isnan(y[3]));
  EXPECT_EQ(r[1].to_vector<std::int64_t>(), (std::vector<std::int64_t>{5, 1, 2, 0}));
  EXPECT_EQ(r[3].to_vector<std::int64_t>(), (std::vector<std::int64_t>{1, 2, 1, 2}));
}

TEST(Unique, RefusesBadAttributes) {
  const Tensor x = f32(Shape{2, 2}, {1, 2, 3, 4});
  expect_refused(SessionErrorKind::InvalidModel, "sorted must be 0 or 1, not 2", "Unique", 11, {{"x", x}},
                 {int_attr("sorted", 2)});
  expect_refused(SessionErrorKind::InvalidModel, "axis -3 outside [-2, 2)", "Unique", 11, {{"x", x}}, {int_attr("axis", -3)});
}

// ---- Scatter (spec/ops/shape-indexing.md section 2) -----------------------------------------

// The ONNX text's example 1 (axis 0) at opset 9.
TEST(Scatter, OnnxExampleOne) {
  const Tensor y = run_one("Scatter", 9,
                           {{"data", f32(Shape{3, 3}, {0, 0, 0, 0, 0, 0, 0, 0, 0})},
                            {"indices", i64(Shape{2, 3}, {1, 0, 2, 0, 2, 1})},
                            {"updates", f32(Shape{2, 3}, {1.0f, 1.1f, 1.2f, 2.0f, 2.1f, 2.2f})}},
                           kF32, {});
  EXPECT_EQ(values(y), (std::vector<float>{2.0f, 1.1f, 0.0f, 1.0f, 0.0f, 2.2f, 0.0f, 2.1f, 1.2f}));
}

TEST(Scatter, RefusesReductionAndIndicesOutside) {
  const std::vector<NodeInput> in{{"data", f32(Shape{1, 3}, {1, 2, 3})}, {"indices", i64(Shape{1, 1}, {3})},
                                  {"updates", f32(Shape{1, 1}, {9})}};
  expect_refused(SessionErrorKind::InvalidModel, "no 'reduction' attribute", "Scatter", 10, in,
                 {int_attr("axis", 1), string_attr("reduction", "add")});
  expect_refused(SessionErrorKind::InvalidInput, "an index is outside its extent", "Scatter", 10, in, {int_attr("axis", 1)});
}

// ---- TensorScatter (spec/ops/shape-indexing.md section 2) -----------------------------------

// past [2, 4] (batch 2, axis 1 of 4 positions), update [2, 2]: batch 0 written at 1 and 2;
// batch 1 circular at 3 and (3 + 1) mod 4 = 0.
TEST(TensorScatter, LinearAndCircularWrites) {
  const Tensor past = f32(Shape{2, 4}, {0, 1, 2, 3, 10, 11, 12, 13});
  const Tensor update = f32(Shape{2, 2}, {-1, -2, -3, -4});
  const Tensor linear = run_one("TensorScatter", 24, {{"past", past}, {"update", update}, {"w", i64(Shape{2}, {1, 2})}},
                                kF32, {int_attr("axis", 1)});
  EXPECT_EQ(values(linear), (std::vector<float>{0, -1, -2, 3, 10, 11, -3, -4}));
  const Tensor circular = run_one("TensorScatter", 24, {{"past", past}, {"update", update}, {"w", i64(Shape{2}, {1, 3})}},
                                  kF32, {int_attr("axis", 1), string_attr("mode", "circular")});
  EXPECT_EQ(values(circular), (std::vector<float>{0, -1, -2, 3, -4, 11, 12, -3}));
  // No write_indices: both batches written from 0; axis -2 is the default.
  const Tensor zero = run_one("TensorScatter", 24, {{"past", f32(Shape{2, 4, 1}, {0, 1, 2, 3, 10, 11, 12, 13})},
                                                    {"update", f32(Shape{2, 2, 1}, {-1, -2, -3, -4})}},
                              kF32, {});
  EXPECT_EQ(values(zero), (std::vector<float>{-1, -2, 2, 3, -3, -4, 12, 13}));
}

TEST(TensorScatter, RefusesBadAttributesShapesAndIndices) {
  const Tensor past = f32(Shape{2, 4}, {0, 1, 2, 3, 10, 11, 12, 13});
  const Tensor update = f32(Shape{2, 2}, {-1, -2, -3, -4});
  expect_refused(SessionErrorKind::InvalidModel, "mode 'wrap'", "TensorScatter", 24, {{"past", past}, {"update", update}},
                 {int_attr("axis", 1), string_attr("mode", "wrap")});
  expect_refused(SessionErrorKind::InvalidModel, "batch axis 0", "TensorScatter", 24, {{"past", past}, {"update", update}},
                 {int_attr("axis", 0)});
  expect_refused(SessionErrorKind::InvalidModel, "axis 2 outside", "TensorScatter", 24, {{"past", past}, {"update", update}},
                 {int_attr("axis", 2)});
  expect_refused(SessionErrorKind::InvalidModel, "exceeds past_cache's 4", "TensorScatter", 24,
                 {{"past", past}, {"update", f32(Shape{2, 5}, std::vector<float>(10, 0))}}, {int_attr("axis", 1)});
  expect_refused(SessionErrorKind::InvalidModel, "differs from past_cache's 2", "TensorScatter", 24,
                 {{"past", past}, {"update", f32(Shape{1, 2}, {1, 2})}}, {int_attr("axis", 1)});
  expect_refused(SessionErrorKind::InvalidModel, "write_indices must have shape [2]", "TensorScatter", 24,
                 {{"past", past}, {"update", update}, {"w", i64(Shape{3}, {0, 0, 0})}}, {int_attr("axis", 1)});
  // Linear: 3 + 2 > 4.
  expect_refused(SessionErrorKind::InvalidInput, "write_indices[1] = 3 outside [0, 2] (linear mode)", "TensorScatter", 24,
                 {{"past", past}, {"update", update}, {"w", i64(Shape{2}, {0, 3})}}, {int_attr("axis", 1)});
  expect_refused(SessionErrorKind::InvalidInput, "write_indices[0] = -1", "TensorScatter", 24,
                 {{"past", past}, {"update", update}, {"w", i64(Shape{2}, {-1, 0})}},
                 {int_attr("axis", 1), string_attr("mode", "circular")});
}

// ---- BitCast (spec/ops/shape-indexing.md section 2) -----------------------------------------

// -1.5f is 0xBFC00000 (sign 1, exponent 127, mantissa 0x400000); 1.0 as binary64 is
// 0x3FF0000000000000.
TEST(BitCast, HandComputedPatterns) {
  const Tensor y = run_one("BitCast", 26, {{"x", f32(Shape{2}, {-1.5f, 0.0f})}}, 12, {int_attr("to", 12)});
  EXPECT_EQ(y.to_vector<std::uint32_t>(), (std::vector<std::uint32_t>{0xBFC00000u, 0u}));
  const Tensor d = run_one("BitCast", 26, {{"x", i64(Shape{1}, {0x3FF0000000000000})}}, kF64, {int_attr("to", 11)});
  EXPECT_EQ(d.to_vector<double>(), (std::vector<double>{1.0}));
}

TEST(BitCast, RefusesOtherWidthsUnstoredTypesAndNonBoolBytes) {
  const std::vector<NodeInput> in{{"x", f32(Shape{2}, {1, 2})}};
  expect_refused(SessionErrorKind::InvalidModel, "cannot reinterpret F32 (32 bits) as I64 (64 bits)", "BitCast", 26, in,
                 {int_attr("to", 7)}, kI64);
  expect_refused(SessionErrorKind::Unsupported, "to = 8 (STRING) is not a type the library stores", "BitCast", 26, in,
                 {int_attr("to", 8)});
  expect_refused(SessionErrorKind::Unsupported, "to = -4", "BitCast", 26, in, {int_attr("to", -4)});
  expect_refused(SessionErrorKind::InvalidModel, "attribute 'to' is required", "BitCast", 26, in, {});
  expect_refused(SessionErrorKind::InvalidInput, "byte 2 at element 1 is not a bool", "BitCast", 26,
                 {{"x", Tensor::from_values<std::uint8_t>(DType::U8, Shape{2}, {1, 2})}}, {int_attr("to", 9)}, 9);
}

// ---- CenterCropPad (spec/ops/shape-indexing.md section 2) -----------------------------------

// Crop 5 to 2 starts at floor(3 / 2) = 1; pad 1 to 4 puts floor(3 / 2) = 1 zero before and 2 after.
TEST(CenterCropPad, CropStartsLeftPadExtraGoesRight) {
  const Tensor crop = run_one("CenterCropPad", 18, {{"x", f32(Shape{5}, {0, 1, 2, 3, 4})}, {"s", i64(Shape{1}, {2})}}, kF32, {});
  EXPECT_EQ(values(crop), (std::vector<float>{1, 2}));
  const Tensor pad = run_one("CenterCropPad", 18, {{"x", f32(Shape{2, 1}, {7, 8})}, {"s", i64(Shape{1}, {4})}}, kF32,
                             {ints_attr("axes", {-1})});
  EXPECT_EQ(pad.shape(), (Shape{2, 4}));
  EXPECT_EQ(values(pad), (std::vector<float>{0, 7, 0, 0, 0, 8, 0, 0}));
}

TEST(CenterCropPad, RefusesBadTargetsAndAxes) {
  const Tensor x = f32(Shape{2, 3}, {1, 2, 3, 4, 5, 6});
  expect_refused(SessionErrorKind::InvalidInput, "target extent -1 is negative", "CenterCropPad", 18,
                 {{"x", x}, {"s", i64(Shape{2}, {2, -1})}}, {});
  expect_refused(SessionErrorKind::InvalidInput, "shape has 1 entries for 2 axes", "CenterCropPad", 18,
                 {{"x", x}, {"s", i64(Shape{1}, {2})}}, {});
  expect_refused(SessionErrorKind::InvalidInput, "axis -2 is listed twice", "CenterCropPad", 18,
                 {{"x", x}, {"s", i64(Shape{2}, {2, 2})}}, {ints_attr("axes", {0, -2})});
  expect_refused(SessionErrorKind::InvalidInput, "axis 2 outside", "CenterCropPad", 18, {{"x", x}, {"s", i64(Shape{1}, {2})}},
                 {ints_attr("axes", {2})});
}

// ---- Col2Im (spec/ops/products-conv.md section 11) ------------------------------------------

// Image [4] from blocks of 2 at stride 1: 3 positions. Column rows (offset 0, 1) = (a0 a1 a2),
// (b0 b1 b2): pixel p sums a_p (p < 3) and b_{p-1} (p >= 1).
TEST(Col2Im, OverlappingBlocksAreSummed) {
  const Tensor y = run_one("Col2Im", 18,
                           {{"x", f32(Shape{1, 2, 3}, {1, 2, 3, 10, 20, 30})}, {"image", i64(Shape{1}, {4})},
                            {"block", i64(Shape{1}, {2})}},
                           kF32, {});
  EXPECT_EQ(y.shape(), (Shape{1, 1, 4}));
  EXPECT_EQ(values(y), (std::vector<float>{1, 12, 23, 30}));
  // pads (1, 0): positions start at -1; the tap at -1 (a0 = 1) falls in the padding and is dropped.
  const Tensor padded = run_one("Col2Im", 18,
                                {{"x", f32(Shape{1, 2, 4}, {1, 2, 3, 4, 10, 20, 30, 40})}, {"image", i64(Shape{1}, {4})},
                                 {"block", i64(Shape{1}, {2})}},
                                kF32, {ints_attr("pads", {1, 0})});
  EXPECT_EQ(values(padded), (std::vector<float>{2 + 10, 3 + 20, 4 + 30, 40}));
}

TEST(Col2Im, RefusesInconsistentShapes) {
  const Tensor x = f32(Shape{1, 2, 3}, {1, 2, 3, 4, 5, 6});
  const auto run = [&](SessionErrorKind kind, const std::string& why, Tensor image, Tensor block, std::vector<IrAttribute> attrs,
                       Tensor input) {
    expect_refused(kind, why, "Col2Im", 18, {{"x", input}, {"image", image}, {"block", block}}, std::move(attrs));
  };
  run(SessionErrorKind::InvalidInput, "L = 3 is not the number of block positions", i64(Shape{1}, {5}), i64(Shape{1}, {2}), {}, x);
  run(SessionErrorKind::InvalidInput, "is not a multiple of prod(block_shape) 4", i64(Shape{1}, {6}), i64(Shape{1}, {4}), {},
      f32(Shape{1, 6, 3}, std::vector<float>(18, 1)));
  run(SessionErrorKind::InvalidInput, "prod(block_shape) exceeds", i64(Shape{1}, {4}), i64(Shape{1}, {3}), {}, x);
  run(SessionErrorKind::InvalidInput, "block extent 0 is not positive", i64(Shape{1}, {4}), i64(Shape{1}, {0}), {}, x);
  run(SessionErrorKind::InvalidInput, "image extent -4", i64(Shape{1}, {-4}), i64(Shape{1}, {2}), {}, x);
  run(SessionErrorKind::InvalidInput, "does not fit the padded image extent 1", i64(Shape{1}, {1}), i64(Shape{1}, {2}), {}, x);
  run(SessionErrorKind::InvalidInput, "same positive length", i64(Shape{2}, {4, 4}), i64(Shape{1}, {2}), {}, x);
  run(SessionErrorKind::InvalidInput, "stride 0 is not positive", i64(Shape{1}, {4}), i64(Shape{1}, {2}), {ints_attr("strides", {0})}, x);
  run(SessionErrorKind::InvalidInput, "pads must have 2 entries", i64(Shape{1}, {4}), i64(Shape{1}, {2}), {ints_attr("pads", {0})}, x);
  run(SessionErrorKind::InvalidModel, "input must have rank 3", i64(Shape{1}, {4}), i64(Shape{1}, {2}), {},
      f32(Shape{2, 3}, {1, 2, 3, 4, 5, 6}));
  // 2^20 block positions on the first axis: refused by the comparison with L before the second
  // axis is multiplied in.
  run(SessionErrorKind::InvalidInput, "L = 3 is not the number of block positions", i64(Shape{2}, {1 << 20, 1}),
      i64(Shape{2}, {1, 2}), {}, x);
}

// ---- MaxUnpool (spec/ops/products-conv.md section 12) ---------------------------------------

// X [1, 1, 2] from a kernel 2, stride 2 pool of 4: U has extent 4; indices 1 and 2. With
// output_shape [1, 1, 6], U sits at the start: (0, 5, 6, 0, 0, 0).
TEST(MaxUnpool, IndicesIntoTheUnpooledTensor) {
  const std::vector<IrAttribute> attrs{ints_attr("kernel_shape", {2}), ints_attr("strides", {2})};
  const Tensor x = f32(Shape{1, 1, 2}, {5, 6});
  const Tensor i = i64(Shape{1, 1, 2}, {1, 2});
  EXPECT_EQ(values(run_one("MaxUnpool", 11, {{"x", x}, {"i", i}}, kF32, attrs)), (std::vector<float>{0, 5, 6, 0}));
  const Tensor y = run_one("MaxUnpool", 11, {{"x", x}, {"i", i}, {"o", i64(Shape{3}, {1, 1, 6})}}, kF32, attrs);
  EXPECT_EQ(values(y), (std::vector<float>{0, 5, 6, 0, 0, 0}));
}

TEST(MaxUnpool, RefusesBadAttributesShapesAndIndices) {
  const std::vector<IrAttribute> attrs{ints_attr("kernel_shape", {2}), ints_attr("strides", {2})};
  const Tensor x = f32(Shape{1, 1, 2}, {5, 6});
  expect_refused(SessionErrorKind::InvalidInput, "index 4 at element 1 outside [0, 4)", "MaxUnpool", 11,
                 {{"x", x}, {"i", i64(Shape{1, 1, 2}, {0, 4})}}, attrs);
  expect_refused(SessionErrorKind::InvalidInput, "index -1 at element 0", "MaxUnpool", 11,
                 {{"x", x}, {"i", i64(Shape{1, 1, 2}, {-1, 0})}}, attrs);
  expect_refused(SessionErrorKind::InvalidModel, "'kernel_shape' is required", "MaxUnpool", 11,
                 {{"x", x}, {"i", i64(Shape{1, 1, 2}, {0, 1})}}, {});
  expect_refused(SessionErrorKind::InvalidModel, "stride 0 is not positive", "MaxUnpool", 11,
                 {{"x", x}, {"i", i64(Shape{1, 1, 2}, {0, 1})}}, {ints_attr("kernel_shape", {2}), ints_attr("strides", {0})});
  expect_refused(SessionErrorKind::InvalidModel, "I must have X's shape", "MaxUnpool", 11,
                 {{"x", x}, {"i", i64(Shape{1, 2}, {0, 1})}}, attrs);
  expect_refused(SessionErrorKind::InvalidModel, "X must have rank 4", "MaxUnpool", 11,
                 {{"x", x}, {"i", i64(Shape{1, 1, 2}, {0, 1})}}, {ints_attr("kernel_shape", {2, 2})});
  expect_refused(SessionErrorKind::InvalidModel, "unpooled extent -2", "MaxUnpool", 11,
                 {{"x", x}, {"i", i64(Shape{1, 1, 2}, {0, 1})}}, {ints_attr("kernel_shape", {1}), ints_attr("pads", {2, 2})});
  expect_refused(SessionErrorKind::InvalidInput, "output_shape[2] = 3 is below the unpooled extent 4", "MaxUnpool", 11,
                 {{"x", x}, {"i", i64(Shape{1, 1, 2}, {0, 1})}, {"o", i64(Shape{3}, {1, 1, 3})}}, attrs);
}

// ---- Einsum (spec/ops/products-conv.md section 13) ------------------------------------------

// Trace, diagonal, transpose and a product by hand on A = [[1, 2], [3, 4]].
TEST(Einsum, HandComputedForms) {
  const Tensor a = f32(Shape{2, 2}, {1, 2, 3, 4});
  EXPECT_EQ(values(run_one("Einsum", 12, {{"a", a}}, kF32, {string_attr("equation", "ii")})), (std::vector<float>{5}));
  EXPECT_EQ(values(run_one("Einsum", 12, {{"a", a}}, kF32, {string_attr("equation", "ii->i")})), (std::vector<float>{1, 4}));
  EXPECT_EQ(values(run_one("Einsum", 12, {{"a", a}}, kF32, {string_attr("equation", "ij -> ji")})),
            (std::vector<float>{1, 3, 2, 4}));
  // Implicit "ij,jk": i and k occur once -> "ik", the matrix product: [[7, 10], [15, 22]].
  EXPECT_EQ(values(run_one("Einsum", 12, {{"a", a}, {"b", a}}, kF32, {string_attr("equation", "ij,jk")})),
            (std::vector<float>{7, 10, 15, 22}));
  // Implicit "Ba": B < a in ASCII, so the output is "Ba" itself (no transpose).
  EXPECT_EQ(values(run_one("Einsum", 12, {{"a", a}}, kF32, {string_attr("equation", "Ba")})), (std::vector<float>{1, 2, 3, 4}));
  // Ellipsis broadcast: [2] . [1] -> each row scaled.
  const Tensor y = run_one("Einsum", 12, {{"a", a}, {"b", f32(Shape{1}, {3})}}, kF32, {string_attr("equation", "...i,...->...i")});
  EXPECT_EQ(values(y), (std::vector<float>{3, 6, 9, 12}));
}

TEST(Einsum, RefusesBadEquations) {
  const Tensor a = f32(Shape{2, 3}, {1, 2, 3, 4, 5, 6});
  const auto refused = [&](const std::string& why, const std::string& equation, std::vector<NodeInput> in) {
    expect_refused(SessionErrorKind::InvalidModel, why, "Einsum", 12, in, {string_attr("equation", equation)});
  };
  refused("attribute 'equation' is required", "", {{"a", a}});
  refused("2 input terms for 1 inputs", "ij,jk->ik", {{"a", a}});
  refused("input 0 has rank 2 for a term of 3 letters", "ijk->i", {{"a", a}});
  refused("a label has extents 2 and 3", "ii->i", {{"a", a}});
  refused("output label repeated", "ij->ii", {{"a", a}});
  refused("output label not in any input term", "ij->k", {{"a", a}});
  refused("is not a letter", "i1->i", {{"a", a}});
  refused("more than one ellipsis", "......->", {{"a", a}});
  refused("ellipsis stands for different numbers of axes", "...,...->...", {{"a", a}, {"b", f32(Shape{2}, {1, 2})}});
  refused("do not broadcast", "...,...->...", {{"a", a}, {"b", f32(Shape{2, 2}, {1, 2, 3, 4})}});
}

}  // namespace
}  // namespace onemodel
