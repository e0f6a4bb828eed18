// DynamicQuantizeLinear's scale and zero point from the range [lo, hi] of its input
// (spec/ops/quantization.md section 6, steps 2 and 3; int8.md "Operators"), shared by the
// reference kernel (reference/ops/op_dynamic_quantize_linear.cpp) and the optimized override
// (optimized/ops/op_dynamic_quantize_linear.cpp) so that both compute them with the same code.
#pragma once

#include <cstdint>

#include "reference/ops/quant_helpers.hpp"

namespace onemodel::quant {

struct DynamicParams {
  float scale = 1.0f;
  std::int64_t zero_point = 0;
};

// `lo` = min(0, min x) and `hi` = max(0, max x), NaN elements skipped (step 1).
inline DynamicParams dynamic_params(float lo, float hi) noexcept {
  // scale = (hi - lo) / 255 in binary32; an empty range (all zeros) gives scale 1 (int8.md).
  const float scale = hi == lo ? 1.0f : (hi - lo) / 255.0f;
  // zp = clamp(round_half_even(0 - lo / scale), 0, 255), each operation in binary32.
  const float zp_real = 0.0f - lo / scale;
  return {scale, saturate(round_half_even(static_cast<double>(zp_real)), Range{0, 255})};
}

}  // namespace onemodel::quant
