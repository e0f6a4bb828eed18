// The requantization epilogue of QLinearConv and QLinearMatMul (spec/ops/quantization.md section
// 10; int8.md "Operators"): y = saturate(round_half_even(float(acc + bias) * mult) + zy) with the
// bias added modulo 2^32 and `mult` the float32 multiplier (sx * sw) / sy, which the callers work
// out once per output channel or column with quant::requant_multiplier (the same two float32
// operations on the same values as the reference's per-element call, so the same bits).
// The scalar path is quant::requantize itself. The SSE4.1 and AVX2 paths give the same bits:
// cvtdq2ps rounds to nearest even as the scalar conversion does (the same MXCSR), one float32
// multiplication, roundps to nearest even is exact and is the reference's tie rule; a NaN product
// is sent below the range by maxps (which returns its second operand for a NaN), as saturate()
// sends NaN to the smallest value; +-inf and out-of-range values are clamped to +-2^23 first
// (far outside every 8-bit range once the zero point is added), converted exactly and clamped.
#pragma once

#include <cstddef>
#include <cstdint>

#include "optimized/frame/isa.hpp"
#include "reference/ops/quant_helpers.hpp"

namespace onemodel::opt {

// out[i] = the requantized acc[i] for i < count, stored as bytes (uint8, or int8 as two's
// complement, by `range`: [0, 255] or [-128, 127]). mult[i * mult_step] and bias[i * bias_step]
// (steps 0 or 1; bias may be nullptr: none).
void requantize_bytes(const std::int32_t* acc, std::size_t count, const float* mult, std::size_t mult_step,
                      const std::int32_t* bias, std::size_t bias_step, std::int32_t zy, quant::Range range,
                      std::uint8_t* out, Isa isa);

}  // namespace onemodel::opt
