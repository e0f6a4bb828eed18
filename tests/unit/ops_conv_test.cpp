// The reference engine's products, convolution, pooling and resize (spec/ops/products-conv.md).
// Every expected value is worked out by hand from the text; models are built by hand, one node
// whose inputs are all graph inputs.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>

#include "onemodel/session.hpp"
#include "tests/support/ir_builder.hpp"

namespace onemodel {
namespace {

using namespace ir_builder;

// Runs one node of `op` at `opset` in the reference engine and returns output 0.
Tensor run_node(const std::string& op, int opset, const std::vector<NodeInput>& inputs, std::vector<IrAttribute> attributes,
                const Shape& out_shape, ExecutionMode mode = ExecutionMode::Exact) {
  auto outputs = run_one_node(op, opset, inputs, {fixed_tensor_value_info("y", 1, out_shape)}, std::move(attributes), mode);
  EXPECT_EQ(outputs.at(0).shape(), out_shape);
  return outputs.at(0);
}

Tensor f32(const Shape& shape, std::vector<float> v) {
  return Tensor::from_values<float>(DType::F32, shape, std::span<const float>(v));
}
Tensor i64(const Shape& shape, std::vector<std::int64_t> v) {
  return Tensor::from_values<std::int64_t>(DType::I64, shape, std::span<const std::int64_t>(v));
}

// spec/ops/products-conv.md section 2: increasing p from +0. (+0 + 1) + 2^24 rounds to 2^24 (ties to
// even), then - 2^24 gives 0. Decreasing order would give (-2^24 + 2^24) + 1 = 1.
TEST(OpsConv, MatMulSumsInIncreasingOrderFromPositiveZero) {
  const float big = 16777216.0f;
  for (ExecutionMode mode : {ExecutionMode::Exact, ExecutionMode::Fast}) {
    Tensor y = run_node("MatMul", 13, {{"a", f32({1, 3}, {1.0f, big, -big})}, {"b", f32({3, 1}, {1.0f, 1.0f, 1.0f})}}, {},
                        Shape{1, 1}, mode);
    EXPECT_EQ(float_bits(y.to_vector<float>()[0]), 0u);  // +0, not 1
  }
  // A single -0 term: +0 + (-0) = +0.
  Tensor z = run_node("MatMul", 13, {{"a", f32({1, 1}, {-0.0f})}, {"b", f32({1, 1}, {1.0f})}}, {}, Shape{1, 1});
  EXPECT_EQ(float_bits(z.to_vector<float>()[0]), 0u);
}

// Section 4: a 1-D first operand and broadcast batch axes.
TEST(OpsConv, MatMulOneDimensionalAndBroadcastBatch) {
  Tensor y = run_node("MatMul", 13, {{"a", f32({2}, {1.0f, 2.0f})}, {"b", f32({2, 2, 1}, {3.0f, 4.0f, 5.0f, 6.0f})}}, {},
                      Shape{2, 1});
  EXPECT_EQ(y.to_vector<float>(), (std::vector<float>{11.0f, 17.0f}));
}

// Section 5: alpha * acc and beta * C rounded separately, then added.
TEST(OpsConv, GemmEpilogueIsSeparateMultipliesAndAnAdd) {
  Tensor y = run_node("Gemm", 13, {{"a", f32({1, 2}, {1.0f, 2.0f})}, {"b", f32({2, 1}, {3.0f, 4.0f})}, {"c", f32({1}, {10.0f})}},
                      {float_attr("alpha", 0.5f), float_attr("beta", 2.0f)}, Shape{1, 1});
  EXPECT_EQ(y.to_vector<float>()[0], 0.5f * 11.0f + 20.0f);  // 25.5
}

// Section 6: a padding tap is a real product with +0, so an infinite weight meeting padding gives
// inf * 0 = NaN, stored as 0x7FC00000.
TEST(OpsConv, ConvPaddingTapsAreRealProducts) {
  const float inf = std::numeric_limits<float>::infinity();
  Tensor y = run_node("Conv", 11, {{"x", f32({1, 1, 1, 1}, {1.0f})}, {"w", f32({1, 1, 1, 2}, {1.0f, inf})}},
                      {ints_attr("pads", {0, 0, 0, 1})}, Shape{1, 1, 1, 1});
  EXPECT_EQ(float_bits(y.to_vector<float>()[0]), 0x7FC00000u);
  // Without the padding tap: 1 * 1 = 1 (kernel 1x1 only).
  Tensor z = run_node("Conv", 11, {{"x", f32({1, 1, 1, 2}, {1.0f, 2.0f})}, {"w", f32({1, 1, 1, 1}, {3.0f})}, {"b", f32({1}, {0.5f})}}, {},
                      Shape{1, 1, 1, 2});
  EXPECT_EQ(z.to_vector<float>(), (std::vector<float>{3.5f, 6.5f}));
}

// Section 8.3: kernel 3, stride 2, pads [1, 0], ceil_mode on [1, 2, 3]: out = ceil((4 - 3) / 2) + 1 = 2.
// Window 0 covers -1, 0, 1 (sum 3), window 1 covers 1, 2, 3 with 3 in the ceil_mode overhang (sum 5).
TEST(OpsConv, AveragePoolDivisors) {
  const std::vector<IrAttribute> base{ints_attr("kernel_shape", {3}), ints_attr("strides", {2}), ints_attr("pads", {1, 0}), int_attr("ceil_mode", 1)};
  Tensor excl = run_node("AveragePool", 19, {{"x", f32({1, 1, 3}, {1.0f, 2.0f, 3.0f})}}, base, Shape{1, 1, 2});
  EXPECT_EQ(excl.to_vector<float>(), (std::vector<float>{1.5f, 2.5f}));  // 3 / 2, 5 / 2
  auto with_pad = base;
  with_pad.push_back(int_attr("count_include_pad", 1));
  Tensor incl = run_node("AveragePool", 19, {{"x", f32({1, 1, 3}, {1.0f, 2.0f, 3.0f})}}, with_pad, Shape{1, 1, 2});
  // Window 0 counts the declared pad (3 / 3); window 1 never counts the overhang (5 / 2).
  EXPECT_EQ(incl.to_vector<float>(), (std::vector<float>{1.0f, 2.5f}));
}

// Section 8.2: NaN taps ignored unless all are NaN; padding never wins.
TEST(OpsConv, MaxPoolNanAndPadding) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  Tensor y = run_node("MaxPool", 12, {{"x", f32({1, 1, 3}, {nan, -5.0f, nan})}}, {ints_attr("kernel_shape", {3})}, Shape{1, 1, 1});
  EXPECT_EQ(y.to_vector<float>()[0], -5.0f);
  Tensor all = run_node("MaxPool", 12, {{"x", f32({1, 1, 2}, {nan, nan})}}, {ints_attr("kernel_shape", {2})}, Shape{1, 1, 1});
  EXPECT_TRUE(std::isnan(all.to_vector<float>()[0]));
  // A window half in the padding over -3: the padding (0) does not win.
  Tensor pad = run_node("MaxPool", 12, {{"x", f32({1, 1, 1}, {-3.0f})}}, {ints_attr("kernel_shape", {2}), ints_attr("pads", {1, 0})},
                        Shape{1, 1, 1});
  EXPECT_EQ(pad.to_vector<float>()[0], -3.0f);
}

// Resize-10 takes (X, scales) and resizes with asymmetric coordinates and nearest mode floor (the
// ONNX Resize-10 definition): [0, 10, 20] at scale 2 is 0, 0, 10, 10, 20, 20; linear at scale 2
// gives x(j / 2) clamped at the edge: 0, 5, 10, 15, 20, 20. (The reference once skipped input 1
// when shaping, as if it were the opset-11 roi, and refused every Resize-10 node.)
TEST(OpsConv, Resize10ReadsItsScales) {
  const Tensor nearest = run_node("Resize", 10, {{"x", f32({3}, {0.0f, 10.0f, 20.0f})}, {"scales", f32({1}, {2.0f})}},
                                  {}, Shape{6});
  EXPECT_EQ(nearest.to_vector<float>(), (std::vector<float>{0.0f, 0.0f, 10.0f, 10.0f, 20.0f, 20.0f}));
  const Tensor linear = run_node("Resize", 10, {{"x", f32({3}, {0.0f, 10.0f, 20.0f})}, {"scales", f32({1}, {2.0f})}},
                                 {string_attr("mode", "linear")}, Shape{6});
  EXPECT_EQ(linear.to_vector<float>(), (std::vector<float>{0.0f, 5.0f, 10.0f, 15.0f, 20.0f, 20.0f}));
}

// Section 10.2: linear on [0, 10] doubled to 4 outputs (scale 2).
TEST(OpsConv, ResizeCoordinateModes) {
  auto linear = [](const std::string& mode) {
    return run_node("Resize", 19, {{"x", f32({2}, {0.0f, 10.0f})}, {"", {}}, {"scales", f32({1}, {2.0f})}},
                    {string_attr("mode", "linear"), string_attr("coordinate_transformation_mode", mode)}, Shape{4})
        .to_vector<float>();
  };
  // asymmetric j / 2: 0, 0.5, 1, 1.5 (clamped to 1).
  EXPECT_EQ(linear("asymmetric"), (std::vector<float>{0.0f, 5.0f, 10.0f, 10.0f}));
  // half_pixel (j + 0.5) / 2 - 0.5: -0.25 (clamped to 0), 0.25, 0.75, 1.25 (clamped to 1).
  EXPECT_EQ(linear("half_pixel"), (std::vector<float>{0.0f, 2.5f, 7.5f, 10.0f}));
  // align_corners j * 1 / 3: the weight of sample 10 is 1/3 rounded to float32.
  const float third = 1.0f / 3.0f, two_thirds = 2.0f / 3.0f;
  EXPECT_EQ(linear("align_corners"), (std::vector<float>{0.0f, third * 10.0f, two_thirds * 10.0f, 10.0f}));
  // pytorch_half_pixel with one output: coordinate 0; half_pixel would give 1.5 -> 15.
  Tensor one = run_node("Resize", 19, {{"x", f32({4}, {0.0f, 10.0f, 20.0f, 30.0f})}, {"", {}}, {"", {}}, {"sizes", i64({1}, {1})}},
                        {string_attr("mode", "linear"), string_attr("coordinate_transformation_mode", "pytorch_half_pixel")}, Shape{1});
  EXPECT_EQ(one.to_vector<float>()[0], 0.0f);
  Tensor hp = run_node("Resize", 19, {{"x", f32({4}, {0.0f, 10.0f, 20.0f, 30.0f})}, {"", {}}, {"", {}}, {"sizes", i64({1}, {1})}},
                       {string_attr("mode", "linear")}, Shape{1});
  EXPECT_EQ(hp.to_vector<float>()[0], 15.0f);
  // tf_crop_and_resize, roi [0, 2] on [0, 10], 3 outputs: coordinates 0, 1, 2; 2 lies outside.
  Tensor crop = run_node("Resize", 19,
                         {{"x", f32({2}, {0.0f, 10.0f})}, {"roi", f32({2}, {0.0f, 2.0f})}, {"", {}}, {"sizes", i64({1}, {3})}},
                         {string_attr("mode", "linear"), string_attr("coordinate_transformation_mode", "tf_crop_and_resize"),
                          float_attr("extrapolation_value", 7.0f)},
                         Shape{3});
  EXPECT_EQ(crop.to_vector<float>(), (std::vector<float>{0.0f, 10.0f, 7.0f}));
}

// Section 10.3: nearest modes on [0, 10, 20] to 2 outputs with asymmetric coordinates 0 and 1.5.
TEST(OpsConv, ResizeNearestModes) {
  auto nearest = [](const std::string& mode) {
    return run_node("Resize", 19, {{"x", f32({3}, {0.0f, 10.0f, 20.0f})}, {"", {}}, {"scales", f32({1}, {2.0f / 3.0f})}},
                    {string_attr("coordinate_transformation_mode", "asymmetric"), string_attr("nearest_mode", mode)}, Shape{2})
        .to_vector<float>();
  };
  // 1 / (2/3) = 1.5 in float32 (1.49999994 or 1.5): the floor/ceil results do not depend on it.
  EXPECT_EQ(nearest("floor"), (std::vector<float>{0.0f, 10.0f}));
  EXPECT_EQ(nearest("ceil"), (std::vector<float>{0.0f, 20.0f}));
}

}  // namespace
}  // namespace onemodel
