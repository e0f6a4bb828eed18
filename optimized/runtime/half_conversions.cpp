#include "optimized/runtime/half_conversions.hpp"

#include <span>

#include "onemodel/half.hpp"
#include "optimized/frame/kernel_registry.hpp"
#include "optimized/kernels/halfconv/halfconv.hpp"

namespace onemodel::opt {

namespace {

void widen_16_to_f32__scalar(const std::uint16_t* in, float* out, std::size_t n, bool bfloat16) {
  if (bfloat16) {
    bfloat16_bits_to_floats(std::span<const std::uint16_t>(in, n), std::span<float>(out, n));
  } else {
    half_bits_to_floats(std::span<const std::uint16_t>(in, n), std::span<float>(out, n));
  }
}

void narrow_f32_to_16__scalar(const float* in, std::uint16_t* out, std::size_t n, bool bfloat16) {
  if (bfloat16) {
    floats_to_bfloat16_bits(std::span<const float>(in, n), std::span<std::uint16_t>(out, n));
  } else {
    floats_to_half_bits(std::span<const float>(in, n), std::span<std::uint16_t>(out, n));
  }
}

// The registry list (docs/design.md, "Kernel registry"), best first: the AVX2 variant serves the
// AVX-512 path too (isa.hpp: that level includes AVX2); the 128-bit paths use the scalar loop.
constexpr HalfconvVariant kHalfconvVariants[] = {
#if defined(__x86_64__)
    {"f16_halfconv__avx2", Isa::Avx2, widen_16_to_f32__avx2, narrow_f32_to_16__avx2},
#endif
    {"f16_halfconv__scalar", Isa::Scalar, widen_16_to_f32__scalar, narrow_f32_to_16__scalar},
};

// The variant serving each path: the first listed one allowed there (kernel_registry.hpp).
const HalfconvVariant& halfconv_variant_for(Isa isa) noexcept {
  static const VariantChoice<HalfconvVariant> choice{std::span<const HalfconvVariant>(kHalfconvVariants)};
  return choice[isa];
}

}  // namespace

std::span<const HalfconvVariant> halfconv_variants() noexcept { return kHalfconvVariants; }

void widen_16_to_f32(Isa isa, const std::uint16_t* in, float* out, std::size_t n, bool bfloat16) {
  halfconv_variant_for(isa).widen(in, out, n, bfloat16);
}

void narrow_f32_to_16(Isa isa, const float* in, std::uint16_t* out, std::size_t n, bool bfloat16) {
  halfconv_variant_for(isa).narrow(in, out, n, bfloat16);
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
