// Round half to even and saturation of the quantization operators (spec/ops/quantization.md
// section 1), apart from quant_helpers.hpp so that the optimized kernels (which see no graph or
// tensor types) use the reference's own arithmetic for their scalar path and tails
// (optimized/kernels/quantize/quantize_scalar.cpp). Standard library only.
#pragma once

#include <cmath>
#include <cstdint>

namespace onemodel::quant {

// spec/ops/quantization.md section 1 (int8.md "Operators"): round half to even, written out so
// that it does not depend on the floating-point environment's rounding mode. `v` - floor(v) is
// exact for every double, so the tie test is exact. NaN and infinities are returned unchanged.
inline double round_half_even(double v) noexcept {
  if (!std::isfinite(v)) return v;
  const double f = std::floor(v);
  const double d = v - f;
  if (d > 0.5) return f + 1.0;
  if (d < 0.5) return f;
  return std::fmod(f, 2.0) == 0.0 ? f : f + 1.0;
}

// The range of a quantized integer type (section 1): uint8 [0, 255], int8 [-128, 127], uint16
// [0, 65535], int16 [-32768, 32767]; int32 for DequantizeLinear inputs only.
struct Range {
  std::int64_t lo = 0;
  std::int64_t hi = 0;
};

// Section 1, saturation: NaN gives the smallest value of the type (int8.md), -inf and values
// below the range the smallest, +inf and values above it the largest. `v` is already integral.
inline std::int64_t saturate(double v, Range r) noexcept {
  if (std::isnan(v)) return r.lo;
  if (v <= static_cast<double>(r.lo)) return r.lo;
  if (v >= static_cast<double>(r.hi)) return r.hi;
  return static_cast<std::int64_t>(v);
}

}  // namespace onemodel::quant
