// The sub-byte types of QuantizeLinear and DequantizeLinear (opsets 21 on; spec/ops/quantization.md
// section 5.1): UINT4, INT4, UINT2, INT2 are integer types with their own ranges (quant_helpers.hpp
// range_of); FLOAT4E2M1 is a float type: QuantizeLinear rounds x / y_scale + y_zero_point by
// Cast's FLOAT4E2M1 rule (nearest, ties to even code, saturating at +-6), DequantizeLinear
// computes (x - x_zero_point) * x_scale from the decoded values. Tensors of these types hold one
// element per byte (spec/tensors.md section 2.2).
#pragma once

#include <cstdint>
#include <vector>

#include "core/tensor/subbyte.hpp"
#include "onemodel/tensor.hpp"
#include "onemodel/tensor_error.hpp"

namespace onemodel::quant {

// ONNX codes UINT4 (21), INT4 (22), FLOAT4E2M1 (23), UINT2 (25), INT2 (26).
inline bool is_subbyte_quantized_code(std::int64_t code) noexcept {
  return code == 21 || code == 22 || code == 23 || code == 25 || code == 26;
}

// Every element of a FLOAT4E2M1 tensor as its (exact) binary32 value, row-major.
inline std::vector<float> float4_values_of(const Tensor& t) {
  if (t.dtype() != DType::F4E2M1) throw TensorError(TensorErrorKind::Type, "not a FLOAT4E2M1 tensor");
  std::vector<float> out;
  for (std::uint8_t code : t.to_vector<std::uint8_t>()) out.push_back(float4e2m1_to_float(code));
  return out;
}

// Section 5.1: y = FLOAT4E2M1(q + zero_point), the sum formed in binary64 (exact whenever it can
// matter: a q too small for the sum to be exact leaves it far from every rounding midpoint) and
// rounded once.
inline std::uint8_t quantize_float4(float q, float zero_point) noexcept {
  return double_to_float4e2m1(static_cast<double>(q) + static_cast<double>(zero_point));
}

}  // namespace onemodel::quant
