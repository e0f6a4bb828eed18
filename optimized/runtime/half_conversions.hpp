// The optimized engine's bulk half-precision conversions (spec/half-precision.md sections 6 and
// 8.7): the session's vector path where one exists, the scalar functions of onemodel/half.hpp
// otherwise; the same bits either way.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "optimized/frame/isa.hpp"
#include "optimized/kernels/halfconv/halfconv.hpp"

namespace onemodel::opt {

// The half-precision conversions' registry list: every variant this build has, best first
// (AVX2, also serving the AVX-512 path), the scalar one last.
std::span<const HalfconvVariant> halfconv_variants() noexcept;

void widen_16_to_f32(Isa isa, const std::uint16_t* in, float* out, std::size_t n, bool bfloat16);
void narrow_f32_to_16(Isa isa, const float* in, std::uint16_t* out, std::size_t n, bool bfloat16);

// Each value rounded to the 16-bit format and widened back, in place: the value a node's output
// has once the adapter has stored it and the next node has widened it (spec/half-precision.md
// section 8.6: a fused kernel's rounding between the nodes it replaces).
void round_through_16(Isa isa, float* values, std::size_t n, bool bfloat16);

}  // namespace onemodel::opt
