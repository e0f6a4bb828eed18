// QuantizeLinear and DequantizeLinear with the 4- and 2-bit types (spec/ops/quantization.md
// section 6). Every expected value is worked out by hand from the text: x / scale rounded half to
// even, plus the zero point, saturated to [0, 15], [-8, 7], [0, 3], [-2, 1]; FLOAT4E2M1 by Cast's
// rule (nearest, ties to the even code, saturating at +-6); dequantization (x - zp) * scale.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "core/graph/tensor_bytes.hpp"
#include "onemodel/session.hpp"
#include "tests/support/ir_builder.hpp"

namespace onemodel {
namespace {

using namespace ir_builder;

constexpr ExecutionMode kModes[] = {ExecutionMode::Exact, ExecutionMode::Fast};

Tensor f32(const Shape& shape, std::vector<float> v) { return Tensor::from_values<float>(DType::F32, shape, std::span<const float>(v)); }
// A sub-byte tensor from its in-memory bytes (sign-extended values for I4, I2; codes for F4E2M1).
Tensor sub(DType type, const Shape& shape, std::vector<int> v) {
  Tensor t = Tensor::zeros(type, shape);
  auto out = mutable_tensor_bytes(t);
  for (std::size_t k = 0; k < v.size(); ++k) out[k] = static_cast<std::byte>(v[k] & 0xFF);
  return t;
}
std::vector<int> ints_of(const Tensor& t) {
  std::vector<int> v;
  if (t.dtype() == DType::I4 || t.dtype() == DType::I2) {
    for (std::int8_t x : t.to_vector<std::int8_t>()) v.push_back(x);
  } else {
    for (std::uint8_t x : t.to_vector<std::uint8_t>()) v.push_back(x);
  }
  return v;
}

Tensor run(const std::string& op, const std::vector<NodeInput>& inputs, std::vector<IrAttribute> attributes, DType out,
           const Shape& shape, ExecutionMode mode, int opset = 25) {
  auto outputs = run_one_node(op, opset, inputs, {fixed_tensor_value_info("y", onnx_elem_type(out), shape)},
                              std::move(attributes), mode);
  EXPECT_EQ(outputs.at(0).dtype(), out);
  return outputs.at(0);
}

TEST(OpsQuantSubbyte, QuantizeToTwoBitTypesRoundsHalfEvenAndSaturates) {
  for (ExecutionMode mode : kModes) {
    // uint2: 0.5 -> 0, 1.5 -> 2, 2.5 -> 2, 3.5 -> 4 -> 3, -1 -> 0, 7 -> 3.
    Tensor u = run("QuantizeLinear", {{"x", f32({6}, {0.5f, 1.5f, 2.5f, 3.5f, -1.0f, 7.0f})}, {"s", f32({}, {1.0f})},
                                      {"z", sub(DType::U2, {}, {0})}},
                   {}, DType::U2, Shape{6}, mode);
    EXPECT_EQ(ints_of(u), (std::vector<int>{0, 2, 2, 3, 0, 3}));
    // int2: -3 -> -2, -2.5 -> -2, -1.5 -> -2, 0.5 -> 0, 1.5 -> 2 -> 1, 9 -> 1.
    Tensor i = run("QuantizeLinear", {{"x", f32({6}, {-3.0f, -2.5f, -1.5f, 0.5f, 1.5f, 9.0f})}, {"s", f32({}, {1.0f})},
                                      {"z", sub(DType::I2, {}, {0})}},
                   {}, DType::I2, Shape{6}, mode);
    EXPECT_EQ(ints_of(i), (std::vector<int>{-2, -2, -2, 0, 1, 1}));
    // output_dtype alone (no zero point) chooses the type: uint4, 20 -> 15.
    Tensor o = run("QuantizeLinear", {{"x", f32({3}, {20.0f, 4.5f, -2.0f})}, {"s", f32({}, {1.0f})}},
                   {int_attr("output_dtype", 21)}, DType::U4, Shape{3}, mode);
    EXPECT_EQ(ints_of(o), (std::vector<int>{15, 4, 0}));
  }
}

// Blocked int4 (block_size 2 along axis 1): scales [[1, 2], [4, 0.5]], zero points [[0, -1], [2, 0]].
// Row 0: 3 -> 3; -9 -> -8 (saturated); 5/2 = 2.5 -> 2, -1 -> 1; 6/2 = 3, -1 -> 2.
// Row 1: 10/4 = 2.5 -> 2, +2 -> 4; -10/4 = -2.5 -> -2, +2 -> 0; 1.25/0.5 = 2.5 -> 2; -3/0.5 = -6.
TEST(OpsQuantSubbyte, QuantizeBlockedInt4) {
  for (ExecutionMode mode : kModes) {
    Tensor y = run("QuantizeLinear",
                   {{"x", f32({2, 4}, {3.0f, -9.0f, 5.0f, 6.0f, 10.0f, -10.0f, 1.25f, -3.0f})},
                    {"s", f32({2, 2}, {1.0f, 2.0f, 4.0f, 0.5f})},
                    {"z", sub(DType::I4, {2, 2}, {0, -1, 2, 0})}},
                   {int_attr("axis", 1), int_attr("block_size", 2)}, DType::I4, Shape{2, 4}, mode);
    EXPECT_EQ(ints_of(y), (std::vector<int>{3, -8, 1, 2, 4, 0, 2, -6}));
  }
}

// FLOAT4E2M1: x / 2 = 0.25 -> 0, 0.5 -> code 1, 1.3 -> 1.5 (code 3), -3.5 -> -4 (tie to even, code
// 14), 50 -> 6 (code 7), -0 + 0 = +0 (code 0). With zero point 1.0 (code 2): 1.25 -> 1 (code 2),
// 1.5 (3), 2.3 -> 2 (4), -2.5 -> -2 (tie, code 12), 51 -> 6 (7), 1 (2).
TEST(OpsQuantSubbyte, QuantizeToFloat4) {
  for (ExecutionMode mode : kModes) {
    const Tensor x = f32({6}, {0.5f, 1.0f, 2.6f, -7.0f, 100.0f, -0.0f});
    Tensor y = run("QuantizeLinear", {{"x", x}, {"s", f32({}, {2.0f})}, {"z", sub(DType::F4E2M1, {}, {0})}}, {},
                   DType::F4E2M1, Shape{6}, mode);
    EXPECT_EQ(ints_of(y), (std::vector<int>{0, 1, 3, 14, 7, 0}));
    Tensor z = run("QuantizeLinear", {{"x", x}, {"s", f32({}, {2.0f})}, {"z", sub(DType::F4E2M1, {}, {2})}}, {},
                   DType::F4E2M1, Shape{6}, mode);
    EXPECT_EQ(ints_of(z), (std::vector<int>{2, 3, 4, 12, 7, 2}));
  }
}

std::vector<std::uint32_t> bits_of(const Tensor& t) {
  std::vector<std::uint32_t> out;
  for (float f : t.to_vector<float>()) out.push_back(float_bits(f));
  return out;
}

TEST(OpsQuantSubbyte, DequantizeIntegersAndFloat4) {
  for (ExecutionMode mode : kModes) {
    // int4, zero point -2, scale 0.5: (x + 2) * 0.5.
    Tensor a = run("DequantizeLinear", {{"x", sub(DType::I4, {4}, {-8, -1, 0, 7})}, {"s", f32({}, {0.5f})},
                                        {"z", sub(DType::I4, {}, {-2})}},
                   {}, DType::F32, Shape{4}, mode);
    EXPECT_EQ(a.to_vector<float>(), (std::vector<float>{-3.0f, 0.5f, 1.0f, 4.5f}));
    // uint2 per axis 0: scales [2, 10], zero points [1, 3].
    Tensor b = run("DequantizeLinear", {{"x", sub(DType::U2, {2, 2}, {0, 3, 1, 2})}, {"s", f32({2}, {2.0f, 10.0f})},
                                        {"z", sub(DType::U2, {2}, {1, 3})}},
                   {int_attr("axis", 0)}, DType::F32, Shape{2, 2}, mode);
    EXPECT_EQ(b.to_vector<float>(), (std::vector<float>{-2.0f, 4.0f, -20.0f, -10.0f}));
    // FLOAT4E2M1 codes 1 (0.5), 15 (-6), 8 (-0), 7 (6); zero point code 2 (1.0); scale 3.
    const Tensor x = sub(DType::F4E2M1, {4}, {1, 15, 8, 7});
    Tensor c = run("DequantizeLinear", {{"x", x}, {"s", f32({}, {3.0f})}, {"z", sub(DType::F4E2M1, {}, {2})}}, {},
                   DType::F32, Shape{4}, mode);
    EXPECT_EQ(c.to_vector<float>(), (std::vector<float>{-1.5f, -21.0f, -3.0f, 15.0f}));
    Tensor d = run("DequantizeLinear", {{"x", x}, {"s", f32({}, {3.0f})}}, {}, DType::F32, Shape{4}, mode);
    EXPECT_EQ(bits_of(d), bits_of(f32({4}, {1.5f, -18.0f, -0.0f, 18.0f})));  // -0 stays -0
  }
}

TEST(OpsQuantSubbyte, RefusesMismatchedTypes) {
  // output_dtype int4 with a uint8 zero point: InvalidModel.
  EXPECT_EQ(session_error_kind_of([] {
              (void)run_one_node("QuantizeLinear", 25,
                                 {{"x", f32({1}, {1.0f})}, {"s", f32({}, {1.0f})},
                                  {"z", Tensor::from_values<std::uint8_t>(DType::U8, Shape{}, {std::uint8_t{0}})}},
                                 {fixed_tensor_value_info("y", 22, Shape{1})}, {int_attr("output_dtype", 22)},
                                 ExecutionMode::Fast);
            }),
            SessionErrorKind::InvalidModel);
  // DequantizeLinear: x int4 with a uint4 zero point.
  EXPECT_EQ(session_error_kind_of([] {
              (void)run_one_node("DequantizeLinear", 25,
                                 {{"x", sub(DType::I4, {1}, {1})}, {"s", f32({}, {1.0f})}, {"z", sub(DType::U4, {}, {1})}},
                                 {fixed_tensor_value_info("y", 1, Shape{1})}, {}, ExecutionMode::Fast);
            }),
            SessionErrorKind::InvalidModel);
}

}  // namespace
}  // namespace onemodel
