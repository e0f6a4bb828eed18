// The 8-bit float side of QuantizeLinear and DequantizeLinear (opset 19 on; spec/ops/quantization.md
// section 15): zero points and quantized values of type FLOAT8E4M3FN, FLOAT8E4M3FNUZ, FLOAT8E5M2,
// FLOAT8E5M2FNUZ, read at their exact values and written by Cast's rules (onemodel/float8.hpp).
#pragma once

#include <cstdint>
#include <vector>

#include "onemodel/float8.hpp"
#include "onemodel/tensor.hpp"
#include "onemodel/tensor_error.hpp"

namespace onemodel::quant {

// The quantized 8-bit float types (FLOAT8E8M0 is a scale type only, never a quantized one).
inline bool is_float8_quantized_type(DType t) noexcept {
  return t == DType::F8E4M3FN || t == DType::F8E4M3FNUZ || t == DType::F8E5M2 || t == DType::F8E5M2FNUZ;
}

// Every element of an 8-bit float tensor, row-major, at its exact value (NaN stays NaN).
inline std::vector<double> float8_values(const Tensor& t) {
  if (!dtype_is_float8(t.dtype())) throw TensorError(TensorErrorKind::Type, "not an 8-bit float tensor");
  const auto format = static_cast<Float8Format>(t.dtype());
  std::vector<double> out;
  for (std::uint8_t b : t.to_vector<std::uint8_t>()) out.push_back(float8_bits_to_float(format, b));
  return out;
}

// Section 15: each value rounded once to the output's 8-bit float type, Cast's `saturate` rule.
inline void store_float8(const Tensor& out, const std::vector<double>& values, bool saturate) {
  const auto format = static_cast<Float8Format>(out.dtype());
  auto y = out.mutable_data<std::uint8_t>();
  for (std::size_t i = 0; i < values.size(); ++i) y[i] = double_to_float8_bits(format, values[i], saturate);
}

}  // namespace onemodel::quant
