#include "optimized/runtime/half_conversions.hpp"

#include <span>

#include "onemodel/half.hpp"
#include "optimized/kernels/halfconv/halfconv.hpp"

namespace onemodel::opt {

// The AVX2 variant serves the AVX-512 level too (isa.hpp: that level includes AVX2); the 128-bit
// paths use the scalar loop.
void widen_16_to_f32(Isa isa, const std::uint16_t* in, float* out, std::size_t n, bool bfloat16) {
#if defined(__x86_64__)
  if (isa_level(isa) >= 2) {
    widen_16_to_f32__avx2(in, out, n, bfloat16);
    return;
  }
#endif
  (void)isa;
  if (bfloat16) {
    bfloat16_bits_to_floats(std::span<const std::uint16_t>(in, n), std::span<float>(out, n));
  } else {
    half_bits_to_floats(std::span<const std::uint16_t>(in, n), std::span<float>(out, n));
  }
}

void narrow_f32_to_16(Isa isa, const float* in, std::uint16_t* out, std::size_t n, bool bfloat16) {
#if defined(__x86_64__)
  if (isa_level(isa) >= 2) {
    narrow_f32_to_16__avx2(in, out, n, bfloat16);
    return;
  }
#endif
  (void)isa;
  if (bfloat16) {
    floats_to_bfloat16_bits(std::span<const float>(in, n), std::span<std::uint16_t>(out, n));
  } else {
    floats_to_half_bits(std::span<const float>(in, n), std::span<std::uint16_t>(out, n));
  }
}

void round_through_16(Isa isa, float* values, std::size_t n, bool bfloat16) {
  constexpr std::size_t kChunk = 256;
  std::uint16_t bits[kChunk];
  for (std::size_t i = 0; i < n; i += kChunk) {
    const std::size_t count = n - i < kChunk ? n - i : kChunk;
    narrow_f32_to_16(isa, values + i, bits, count, bfloat16);
    widen_16_to_f32(isa, bits, values + i, count, bfloat16);
  }
}

}  // namespace onemodel::opt
