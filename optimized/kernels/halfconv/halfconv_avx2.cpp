// The integer rules of spec/half-precision.md sections 2-5, eight values per step; the tails use
// the same vector code on a padded copy. Comparisons are signed 32-bit, which is right because every compared
// quantity is below 2^31 (the sign is masked off first).
#include <immintrin.h>

#include <cstring>

#include "optimized/kernels/halfconv/halfconv.hpp"

namespace onemodel::opt {
namespace {

__m256i set1(std::uint32_t v) { return _mm256_set1_epi32(static_cast<int>(v)); }

// Section 3: binary16 bits (zero-extended to 32) to binary32 bits.
__m256i widen_binary16(__m256i h) {
  const __m256i sign = _mm256_slli_epi32(_mm256_and_si256(h, set1(0x8000)), 16);
  const __m256i exponent = _mm256_and_si256(_mm256_srli_epi32(h, 10), set1(0x1F));
  const __m256i mantissa = _mm256_and_si256(h, set1(0x3FF));
  // Normal: rebias the exponent (15 -> 127), move the mantissa up 13 bits.
  const __m256i normal =
      _mm256_or_si256(_mm256_slli_epi32(_mm256_add_epi32(exponent, set1(112)), 23), _mm256_slli_epi32(mantissa, 13));
  // Subnormal and zero: mantissa * 2^-24, exact in binary32.
  const __m256 small = _mm256_mul_ps(_mm256_cvtepi32_ps(mantissa), _mm256_set1_ps(5.9604644775390625e-8f));
  // Infinity and NaN: all-ones exponent, payload moved up 13 bits, quiet bit forced for NaN.
  const __m256i is_nan = _mm256_andnot_si256(_mm256_cmpeq_epi32(mantissa, _mm256_setzero_si256()), set1(0xFFFFFFFFu));
  const __m256i special = _mm256_or_si256(_mm256_or_si256(set1(0x7F800000), _mm256_slli_epi32(mantissa, 13)),
                                          _mm256_and_si256(is_nan, set1(0x00400000)));
  __m256i out = _mm256_blendv_epi8(normal, _mm256_castps_si256(small), _mm256_cmpeq_epi32(exponent, _mm256_setzero_si256()));
  out = _mm256_blendv_epi8(out, special, _mm256_cmpeq_epi32(exponent, set1(0x1F)));
  return _mm256_or_si256(out, sign);
}

// Section 2: binary32 bits to binary16 bits (in the low 16 bits of each lane).
__m256i narrow_binary16(__m256i bits) {
  const __m256i a = _mm256_and_si256(bits, set1(0x7FFFFFFF));
  const __m256i sign = _mm256_and_si256(_mm256_srli_epi32(bits, 16), set1(0x8000));
  // 2.5 subnormal: r = mant >> shift, rounded to nearest even on the dropped bits.
  const __m256i mant = _mm256_or_si256(_mm256_and_si256(a, set1(0x7FFFFF)), set1(0x800000));
  const __m256i shift = _mm256_sub_epi32(set1(126), _mm256_srli_epi32(a, 23));
  const __m256i r = _mm256_srlv_epi32(mant, shift);
  const __m256i one = set1(1);
  const __m256i rem = _mm256_and_si256(mant, _mm256_sub_epi32(_mm256_sllv_epi32(one, shift), one));
  const __m256i half = _mm256_sllv_epi32(one, _mm256_sub_epi32(shift, one));
  const __m256i up = _mm256_or_si256(_mm256_cmpgt_epi32(rem, half),
                                     _mm256_and_si256(_mm256_cmpeq_epi32(rem, half),
                                                      _mm256_cmpeq_epi32(_mm256_and_si256(r, one), one)));
  __m256i out = _mm256_sub_epi32(r, up);  // up is all ones (-1) where rounding up
  // 2.4 zero.
  out = _mm256_blendv_epi8(out, _mm256_setzero_si256(), _mm256_cmpgt_epi32(set1(0x33000001), a));
  // 2.3 normal.
  const __m256i m = _mm256_sub_epi32(a, set1(112u << 23));
  const __m256i normal = _mm256_srli_epi32(
      _mm256_add_epi32(_mm256_add_epi32(m, set1(0xFFF)), _mm256_and_si256(_mm256_srli_epi32(m, 13), one)), 13);
  out = _mm256_blendv_epi8(out, normal, _mm256_cmpgt_epi32(a, set1(0x387FFFFF)));
  // 2.2 infinity or overflow.
  out = _mm256_blendv_epi8(out, set1(0x7C00), _mm256_cmpgt_epi32(a, set1(0x477FEFFF)));
  // 2.1 NaN.
  const __m256i nan = _mm256_or_si256(set1(0x7E00), _mm256_and_si256(_mm256_srli_epi32(a, 13), set1(0x1FF)));
  out = _mm256_blendv_epi8(out, nan, _mm256_cmpgt_epi32(a, set1(0x7F800000)));
  return _mm256_or_si256(out, sign);
}

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
  const __m256i h = _mm256_cvtepu16_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(in)));
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(out), bfloat16 ? widen_bfloat16(h) : widen_binary16(h));
}

void narrow8(const float* in, std::uint16_t* out, bool bfloat16) {
  const __m256i bits = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(in));
  _mm_storeu_si128(reinterpret_cast<__m128i*>(out), pack_low16(bfloat16 ? narrow_bfloat16(bits) : narrow_binary16(bits)));
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
