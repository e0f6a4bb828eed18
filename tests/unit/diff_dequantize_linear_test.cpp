// Differential test of the DequantizeLinear override (optimized/ops/op_dequantize_linear.cpp)
// against the reference kernel through diff/op_harness.hpp: the reference's bits in both modes on
// every path at 1 and 2 threads, for uint8, int8, uint16, int16 and int32 inputs, per-tensor and
// per-axis scales (negative axes included), zero points given and not, several chunks of work; and
// the cases it hands to the reference kernel (blocked scales, a float16 scale) labelled as such.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "diff/op_harness.hpp"
#include "tests/support/diff_test_helpers.hpp"
#include "tests/support/ir_builder.hpp"

namespace onemodel::diff {
namespace {

Tensor integers(DType type, const Shape& shape, std::mt19937& rng) {
  std::vector<std::uint8_t> v(static_cast<std::size_t>(shape.element_count()) * dtype_size(type));
  for (auto& x : v) x = static_cast<std::uint8_t>(rng());
  return Tensor::from_bytes(type, shape, std::as_bytes(std::span<const std::uint8_t>(v)));
}

// Scales with specials among them: a NaN with a payload (a product the store must make the
// canonical NaN), infinities (0 * inf is NaN), a negative zero.
Tensor scales(const Shape& shape, std::mt19937& rng) {
  std::vector<float> v(static_cast<std::size_t>(shape.element_count()));
  for (float& x : v) x = static_cast<float>(rng() % 100000 + 1) / 3.0e5f;
  const float specials[] = {__builtin_bit_cast(float, 0x7FFFFFFFu), __builtin_bit_cast(float, 0x7F800000u),
                            __builtin_bit_cast(float, 0xFF800000u), -0.0f};
  if (v.size() > 1) {
    for (std::size_t i = 0; i < v.size() && i < 4; i += 2) v[i] = specials[rng() % 4];  // per-axis scales only
  }
  return Tensor::from_values<float>(DType::F32, shape, std::span<const float>(v));
}

TEST(DiffDequantizeLinear, ReferenceBitsEverywhere) {
  CaseTally tally;
  std::mt19937 rng(53);
  for (DType type : {DType::U8, DType::I8, DType::U16, DType::I16, DType::I32}) {
    for (const std::int64_t axis : {std::int64_t{1}, std::int64_t{-1}}) {
      for (const bool per_axis : {false, true}) {
        for (const bool with_zero : {false, true}) {
          if (type == DType::I32 && with_zero) continue;  // ONNX: an int32 input has no zero point
          const Shape x_shape{3, 70, 181};                 // 38010 elements: three chunks
          const std::int64_t extent = axis == 1 ? 70 : 181;
          const Shape s_shape = per_axis ? Shape{extent} : Shape{};
          OpCase c;
          c.op = "DequantizeLinear";
          c.opset = 13;
          c.attributes = {ir_builder::int_attr("axis", axis)};
          c.inputs = {integers(type, x_shape, rng), scales(s_shape, rng)};
          if (with_zero) c.inputs.push_back(integers(type, s_shape, rng));
          c.constant.assign(c.inputs.size(), true);
          c.constant[0] = false;
          const std::string d = test_helpers::compare_everywhere(c, &tally);
          EXPECT_TRUE(d.empty()) << d << " for " << dtype_name(type) << " axis " << axis << (per_axis ? " per axis" : "");
        }
      }
    }
  }
  EXPECT_EQ(tally.fallback_cases, 0u) << tally.summary();
  EXPECT_GT(tally.shared_cases, 0u) << tally.summary();
  // Handed to the reference kernel, and labelled so: a blocked scale (opset 21).
  CaseTally fallback;
  OpCase blocked;
  blocked.op = "DequantizeLinear";
  blocked.opset = 21;
  blocked.attributes = {ir_builder::int_attr("axis", 1), ir_builder::int_attr("block_size", 4)};
  blocked.inputs = {integers(DType::U8, Shape{2, 8}, rng), scales(Shape{2, 2}, rng), integers(DType::U8, Shape{2, 2}, rng)};
  const std::string d = test_helpers::compare_everywhere(blocked, &fallback);
  EXPECT_TRUE(d.empty()) << d;
  EXPECT_EQ(fallback.fallback_cases, 1u) << fallback.summary();
}

}  // namespace
}  // namespace onemodel::diff
