// Cast, CastLike, QuantizeLinear and DequantizeLinear with 8-bit floats (spec/ops/elementwise.md
// section 7.1, spec/ops/quantization.md section 6) in the reference engine, both modes. Expected
// codes are worked out by hand from the formats' definitions (spec/tensors.md section 2.1):
// E4M3FN 1.0 = 0x38 (exponent 7 = bias, mantissa 0), 0.5 = 0x30, 448 = 0x7E, NaN 0x7F / 0xFF;
// E5M2 1.0 = 0x3C, 57344 = 0x7B, 2^-16 = 0x01; E8M0 2^k = k + 127.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "onemodel/session.hpp"
#include "tests/support/ir_builder.hpp"

namespace onemodel {
namespace {

using namespace ir_builder;

constexpr ExecutionMode kModes[] = {ExecutionMode::Exact, ExecutionMode::Fast};

Tensor run_node(const std::string& op, int opset, const std::vector<NodeInput>& inputs, std::vector<IrAttribute> attributes,
                DType out_type, const Shape& out_shape, ExecutionMode mode) {
  auto outputs = run_one_node(op, opset, inputs, {fixed_tensor_value_info("y", onnx_elem_type(out_type), out_shape)},
                              std::move(attributes), mode);
  EXPECT_EQ(outputs.at(0).dtype(), out_type);
  return outputs.at(0);
}

Tensor f32(std::vector<float> v) {
  return Tensor::from_values<float>(DType::F32, Shape{static_cast<std::int64_t>(v.size())}, std::span<const float>(v));
}
Tensor f64(std::vector<double> v) {
  return Tensor::from_values<double>(DType::F64, Shape{static_cast<std::int64_t>(v.size())}, std::span<const double>(v));
}
Tensor i64(std::vector<std::int64_t> v) {
  return Tensor::from_values<std::int64_t>(DType::I64, Shape{static_cast<std::int64_t>(v.size())},
                                           std::span<const std::int64_t>(v));
}
Tensor f8(DType type, std::vector<std::uint8_t> v, Shape shape = {}) {
  if (shape.rank() == 0 && v.size() != 1) shape = Shape{static_cast<std::int64_t>(v.size())};
  return Tensor::from_values<std::uint8_t>(type, shape, std::span<const std::uint8_t>(v));
}
std::vector<int> codes(const Tensor& t) {
  std::vector<int> out;
  for (std::uint8_t b : t.to_vector<std::uint8_t>()) out.push_back(b);
  return out;
}

TEST(OpsCastFloat8, CastFloat32SaturateAndNot) {
  const float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  for (const ExecutionMode mode : kModes) {
    const Tensor x = f32({1.0f, 0.5f, 1000.0f, -1000.0f, inf, nan, -0.0f});
    EXPECT_EQ(codes(run_node("Cast", 19, {{"x", x}}, {int_attr("to", 17)}, DType::F8E4M3FN, Shape{7}, mode)),
              (std::vector<int>{0x38, 0x30, 0x7E, 0xFE, 0x7E, 0x7F, 0x80}));
    EXPECT_EQ(codes(run_node("Cast", 19, {{"x", x}}, {int_attr("to", 17), int_attr("saturate", 0)}, DType::F8E4M3FN,
                             Shape{7}, mode)),
              (std::vector<int>{0x38, 0x30, 0x7F, 0xFF, 0x7F, 0x7F, 0x80}));
    // E5M2 without saturate keeps infinities; FNUZ has one NaN and no -0.
    EXPECT_EQ(codes(run_node("Cast", 21, {{"x", x}}, {int_attr("to", 19), int_attr("saturate", 0)}, DType::F8E5M2,
                             Shape{7}, mode)),
              (std::vector<int>{0x3C, 0x38, 0x64, 0xE4, 0x7C, 0x7E, 0x80}));
    EXPECT_EQ(codes(run_node("Cast", 25, {{"x", x}}, {int_attr("to", 20), int_attr("saturate", 0)}, DType::F8E5M2FNUZ,
                             Shape{7}, mode)),
              (std::vector<int>{0x40, 0x3C, 0x68, 0xE8, 0x80, 0x80, 0x00}));
  }
}

// A float64 source rounds once: 1 + 1/16 + 2^-40 is above the tie between 1 (0x38) and 1.125
// (0x39), so it goes to 0x39; through binary32 it would become the tie and go to the even 0x38.
// A 64-bit integer is not rounded to double first: 2^60 + 1 rounds Up to 2^61 in E8M0 (188).
TEST(OpsCastFloat8, WideSourcesRoundOnce) {
  for (const ExecutionMode mode : kModes) {
    const double x = 1.0 + 1.0 / 16 + std::ldexp(1.0, -40);
    EXPECT_EQ(codes(run_node("Cast", 19, {{"x", f64({x, -x})}}, {int_attr("to", 17)}, DType::F8E4M3FN, Shape{2}, mode)),
              (std::vector<int>{0x39, 0xB9}));
    const std::int64_t big = (std::int64_t{1} << 60) + 1;
    EXPECT_EQ(codes(run_node("Cast", 25, {{"x", i64({big, std::int64_t{1} << 60, 3, 1000})}}, {int_attr("to", 24)},
                             DType::F8E8M0, Shape{4}, mode)),
              (std::vector<int>{188, 187, 129, 137}));
    EXPECT_EQ(codes(run_node("Cast", 25, {{"x", i64({3, 5, 6})}}, {int_attr("to", 24), string_attr("round_mode", "nearest")},
                             DType::F8E8M0, Shape{3}, mode)),
              (std::vector<int>{129, 129, 130}));
    EXPECT_EQ(codes(run_node("Cast", 25, {{"x", i64({3, 5, 6})}}, {int_attr("to", 24), string_attr("round_mode", "down")},
                             DType::F8E8M0, Shape{3}, mode)),
              (std::vector<int>{128, 129, 129}));
    // Integer to E4M3FN: 1000 saturates to 448, or is NaN without saturate; -3 is exact (0xC4).
    EXPECT_EQ(codes(run_node("Cast", 19, {{"x", i64({1000, -3})}}, {int_attr("to", 17), int_attr("saturate", 0)},
                             DType::F8E4M3FN, Shape{2}, mode)),
              (std::vector<int>{0x7F, 0xC4}));
  }
}

TEST(OpsCastFloat8, FromFloat8ToOtherTypes) {
  for (const ExecutionMode mode : kModes) {
    // E4M3FN 448, -0.5, NaN, 2^-9 -> float32 exactly (NaN canonical).
    const Tensor x = f8(DType::F8E4M3FN, {0x7E, 0xB0, 0x7F, 0x01});
    const std::vector<float> y = run_node("Cast", 19, {{"x", x}}, {int_attr("to", 1)}, DType::F32, Shape{4}, mode).to_vector<float>();
    EXPECT_EQ(y[0], 448.0f);
    EXPECT_EQ(y[1], -0.5f);
    EXPECT_TRUE(std::isnan(y[2]));
    EXPECT_EQ(y[3], std::ldexp(1.0f, -9));
    // To int32: truncation toward zero, NaN gives 0 (Cast's float -> integer rule).
    EXPECT_EQ(run_node("Cast", 19, {{"x", x}}, {int_attr("to", 6)}, DType::I32, Shape{4}, mode).to_vector<std::int32_t>(),
              (std::vector<std::int32_t>{448, 0, 0, 0}));
    // E8M0 2^127 to E4M3FN saturates to 448; to float16 overflows to infinity (0x7C00).
    const Tensor e = f8(DType::F8E8M0, {254, 127});
    EXPECT_EQ(codes(run_node("Cast", 25, {{"x", e}}, {int_attr("to", 17)}, DType::F8E4M3FN, Shape{2}, mode)),
              (std::vector<int>{0x7E, 0x38}));
    EXPECT_EQ(run_node("Cast", 25, {{"x", e}}, {int_attr("to", 10)}, DType::F16, Shape{2}, mode).to_vector<std::uint16_t>(),
              (std::vector<std::uint16_t>{0x7C00, 0x3C00}));
    // CastLike takes the type of its second input and Cast's attributes.
    EXPECT_EQ(codes(run_node("CastLike", 19, {{"x", f32({1000.0f})}, {"t", f8(DType::F8E4M3FN, {0})}},
                             {int_attr("saturate", 0)}, DType::F8E4M3FN, Shape{1}, mode)),
              (std::vector<int>{0x7F}));
  }
}

TEST(OpsCastFloat8, BadAttributesAndOpsetsAreInvalidModel) {
  const auto cast = [](int opset, std::vector<IrAttribute> attributes, DType to) {
    return [=] { run_node("Cast", opset, {{"x", f32({1.0f})}}, attributes, to, Shape{1}, ExecutionMode::Exact); };
  };
  EXPECT_EQ(session_error_kind_of(cast(25, {int_attr("to", 24), string_attr("round_mode", "sideways")}, DType::F8E8M0)),
            SessionErrorKind::InvalidModel);
  EXPECT_EQ(session_error_kind_of(cast(19, {int_attr("to", 17), int_attr("saturate", 2)}, DType::F8E4M3FN)),
            SessionErrorKind::InvalidModel);
  EXPECT_EQ(session_error_kind_of(cast(13, {int_attr("to", 17)}, DType::F8E4M3FN)), SessionErrorKind::InvalidModel);
  EXPECT_EQ(session_error_kind_of(cast(23, {int_attr("to", 24)}, DType::F8E8M0)), SessionErrorKind::InvalidModel);
  // Still not stored: FLOAT6E2M3.
  EXPECT_EQ(session_error_kind_of(cast(25, {int_attr("to", 27)}, DType::F32)), SessionErrorKind::Unsupported);
}

// QuantizeLinear: x / scale then the zero point, rounded once to the 8-bit type (no rounding to
// an integer); saturate as Cast's.
TEST(OpsCastFloat8, QuantizeLinearToFloat8) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  for (const ExecutionMode mode : kModes) {
    const Tensor x = f32({0.0f, 1.0f, 2.0f, 1000.0f, -1000.0f, nan, 2.25f});
    const Tensor s = f32({2.0f});
    // 2.25 / 2 = 1.125 = 0x39 exactly.
    EXPECT_EQ(codes(run_node("QuantizeLinear", 19, {{"x", x}, {"s", s}, {"z", f8(DType::F8E4M3FN, {0})}}, {},
                             DType::F8E4M3FN, Shape{7}, mode)),
              (std::vector<int>{0x00, 0x30, 0x38, 0x7E, 0xFE, 0x7F, 0x39}));
    EXPECT_EQ(codes(run_node("QuantizeLinear", 21, {{"x", x}, {"s", s}, {"z", f8(DType::F8E4M3FN, {0})}},
                             {int_attr("saturate", 0)}, DType::F8E4M3FN, Shape{7}, mode)),
              (std::vector<int>{0x00, 0x30, 0x38, 0x7F, 0xFF, 0x7F, 0x39}));
    // A non-zero zero point (E5M2 1.0 = 0x3C) is added: 0 + 1 = 1 (0x3C), 0.5 + 1 = 1.5 (0x3E).
    EXPECT_EQ(codes(run_node("QuantizeLinear", 25, {{"x", f32({0.0f, 1.0f})}, {"s", s}, {"z", f8(DType::F8E5M2, {0x3C})}},
                             {}, DType::F8E5M2, Shape{2}, mode)),
              (std::vector<int>{0x3C, 0x3E}));
    // output_dtype without a zero point.
    EXPECT_EQ(codes(run_node("QuantizeLinear", 21, {{"x", f32({1.0f})}, {"s", s}}, {int_attr("output_dtype", 18)},
                             DType::F8E4M3FNUZ, Shape{1}, mode)),
              (std::vector<int>{0x38}));  // 0.5 in E4M3FNUZ: exponent 7 = bias - 1
  }
}

// DequantizeLinear: (x - zero point) * scale with x and the zero point at their exact values.
TEST(OpsCastFloat8, DequantizeLinearFromFloat8) {
  for (const ExecutionMode mode : kModes) {
    const Tensor x = f8(DType::F8E5M2, {0x3C, 0x7B, 0x01, 0x7E});
    const std::vector<float> y =
        run_node("DequantizeLinear", 19, {{"x", x}, {"s", f32({2.0f})}, {"z", f8(DType::F8E5M2, {0x3C})}}, {}, DType::F32,
                 Shape{4}, mode)
            .to_vector<float>();
    EXPECT_EQ(y[0], 0.0f);
    EXPECT_EQ(y[1], 114686.0f);                          // (57344 - 1) * 2
    EXPECT_EQ(y[2], (std::ldexp(1.0f, -16) - 1.0f) * 2);  // exact in binary32
    EXPECT_TRUE(std::isnan(y[3]));
    // A zero point of another type is InvalidModel.
    EXPECT_EQ(session_error_kind_of([&] {
                run_node("DequantizeLinear", 19, {{"x", x}, {"s", f32({2.0f})}, {"z", f8(DType::F8E4M3FN, {0})}}, {},
                         DType::F32, Shape{4}, mode);
              }),
              SessionErrorKind::InvalidModel);
  }
}

}  // namespace
}  // namespace onemodel
