// float16 tensors computed in float32 (spec/ops/attention.md sections 1 and 9): the operands are
// widened exactly, the results rounded back once. Shared by Attention and FlexAttention.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "core/graph/op_kernel.hpp"
#include "onemodel/half.hpp"

namespace onemodel {

// The values of a float32 or float16 tensor as float32 (float16 widened exactly), in row-major order.
inline std::vector<float> widen_f16_to_f32(const Tensor& tensor) {
  const Tensor t = tensor.contiguous();
  if (t.dtype() == DType::F16) {
    const std::span<const std::uint16_t> raw = t.data<std::uint16_t>();
    std::vector<float> out(raw.size());
    for (std::size_t n = 0; n < raw.size(); ++n) out[n] = half_bits_to_float(raw[n]);
    return out;
  }
  const std::span<const float> values = t.data<float>();
  return std::vector<float>(values.begin(), values.end());
}

// Stores float32 results into a contiguous float32 or float16 output, every NaN canonical
// (spec/exact-mode.md rule 4); a float16 output rounds once to nearest even. The NaN is made
// canonical before the narrowing, so the float16 NaN (0x7E00) does not depend on the payload.
inline void store_f32_as_output(const Tensor& out, const std::vector<float>& values) {
  if (out.dtype() == DType::F16) {
    const std::span<std::uint16_t> o = out.mutable_data<std::uint16_t>();
    for (std::size_t n = 0; n < values.size(); ++n) o[n] = float_to_half_bits(canonical_nan_f32(values[n]));
    return;
  }
  const std::span<float> o = out.mutable_data<float>();
  for (std::size_t n = 0; n < values.size(); ++n) o[n] = canonical_nan_f32(values[n]);
}

}  // namespace onemodel
