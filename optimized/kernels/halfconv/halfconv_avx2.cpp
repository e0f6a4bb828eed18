// spec/half-precision.md sections 2-5, eight values per step; the tails use the same vector code on
// a padded copy. binary16 by the F16C instructions (the AVX2 level requires F16C, isa.cpp), which
// compute exactly the rules of sections 2 and 3: round to nearest even with subnormals and
// overflow to infinity, a NaN kept with its upper payload bits and made quiet, widening exact
// (tests/unit/half_vector_conversion_test.cpp checks every widening pattern and 2.6 million
// narrowing ones, tools/halfconv_sweep all 2^32). bfloat16 by the integer rules of sections 4 and
// 5 (comparisons are signed 32-bit, right because every compared quantity is below 2^31).
#include <immintrin.h>

#include <cstring>

#include "optimized/kernels/halfconv/halfconv.hpp"

namespace onemodel::opt {
namespace {

__m256i set1(std::uint32_t v) { return _mm256_set1_epi32(static_cast<int>(v)); }

// Section 5: bfloat16 bits to binary32 bits.
__m256i widen_bfloat16(__m256i h) {
  const __m256i bits = _mm256_slli_epi32(h, 16);
  const __m256i is_nan = _mm256_cmpgt_epi32(_mm256_and_si256(bits, set1(0x7FFFFFFF)), set1(0x7F800000));
  return _mm256_or_si256(bits, _mm256_and_si256(is_nan, set1(0x00400000)));
}

// Section 4: binary32 bits to bfloat16 bits.
__m256i narrow_bfloat16(__m256i bits) {
  const __m256i upper = _mm256_srli_epi32(bits, 16);
  const __m256i rounded = _mm256_srli_epi32(
      _mm256_add_epi32(_mm256_add_epi32(bits, set1(0x7FFF)), _mm256_and_si256(upper, set1(1))), 16);
  const __m256i is_nan = _mm256_cmpgt_epi32(_mm256_and_si256(bits, set1(0x7FFFFFFF)), set1(0x7F800000));
  return _mm256_blendv_epi8(rounded, _mm256_or_si256(upper, set1(0x40)), is_nan);
}

// Eight 32-bit lanes holding 16-bit values, packed to eight uint16_t.
__m128i pack_low16(__m256i v) {
  const __m256i packed = _mm256_packus_epi32(v, v);  // per 128-bit half: 4 values, twice
  return _mm256_castsi256_si128(_mm256_permute4x64_epi64(packed, 0x08));
}

void widen8(const std::uint16_t* in, float* out, bool bfloat16) {
  const __m128i h = _mm_loadu_si128(reinterpret_cast<const __m128i*>(in));
  if (bfloat16) {
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out), widen_bfloat16(_mm256_cvtepu16_epi32(h)));
  } else {
    _mm256_storeu_ps(out, _mm256_cvtph_ps(h));
  }
}

void narrow8(const float* in, std::uint16_t* out, bool bfloat16) {
  if (bfloat16) {
    const __m256i bits = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(in));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out), pack_low16(narrow_bfloat16(bits)));
  } else {
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out), _mm256_cvtps_ph(_mm256_loadu_ps(in), _MM_FROUND_TO_NEAREST_INT));
  }
}

}  // namespace

void widen_16_to_f32__avx2(const std::uint16_t* in, float* out, std::size_t n, bool bfloat16) {
  std::size_t i = 0;
  for (; i + 8 <= n; i += 8) widen8(in + i, out + i, bfloat16);
  if (i == n) return;
  std::uint16_t tail_in[8] = {};
  float tail_out[8];
  std::memcpy(tail_in, in + i, (n - i) * sizeof(std::uint16_t));
  widen8(tail_in, tail_out, bfloat16);
  std::memcpy(out + i, tail_out, (n - i) * sizeof(float));
}

void narrow_f32_to_16__avx2(const float* in, std::uint16_t* out, std::size_t n, bool bfloat16) {
  std::size_t i = 0;
  for (; i + 8 <= n; i += 8) narrow8(in + i, out + i, bfloat16);
  if (i == n) return;
  float tail_in[8] = {};
  std::uint16_t tail_out[8];
  std::memcpy(tail_in, in + i, (n - i) * sizeof(float));
  narrow8(tail_in, tail_out, bfloat16);
  std::memcpy(out + i, tail_out, (n - i) * sizeof(std::uint16_t));
}

}  // namespace onemodel::opt
