// Widening a row of 16-bit floats eight at a time (AVX2), for packing compact weights
// (gemm_half.hpp). The same integer arithmetic as the scalar widen_binary16 and widen_bfloat16
// (spec/half-precision.md sections 3 and 5), lane by lane, so the floats are the scalar ones bit
// for bit (checked over all 65536 patterns by compact_weights_test). Not the F16C instruction:
// the project's conversions are defined by the integer rules, on every path alike.
#include <immintrin.h>

#include "optimized/kernels/gemm/gemm_half.hpp"

namespace onemodel::opt::gemm {

void widen_binary16_row__avx2(const std::uint16_t* src, float* dst, std::size_t n) {
  const __m256i sign_mask = _mm256_set1_epi32(0x8000);
  const __m256i mant_mask = _mm256_set1_epi32(0x3FF);
  const __m256i exp_max = _mm256_set1_epi32(0x1F);
  const __m256i zero = _mm256_setzero_si256();
  const __m256i rebias = _mm256_set1_epi32(112 << 23);
  const __m256i infinity = _mm256_set1_epi32(0x7F800000);
  const __m256i quiet = _mm256_set1_epi32(0x400000);
  const __m256 subnormal_unit = _mm256_set1_ps(0x1p-24f);
  std::size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m256i h = _mm256_cvtepu16_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i)));
    const __m256i sign = _mm256_slli_epi32(_mm256_and_si256(h, sign_mask), 16);
    const __m256i e = _mm256_and_si256(_mm256_srli_epi32(h, 10), exp_max);
    const __m256i m = _mm256_and_si256(h, mant_mask);
    const __m256i m13 = _mm256_slli_epi32(m, 13);
    // E in 1..30: ((E + 112) << 23) | (M << 13).
    const __m256i normal = _mm256_or_si256(_mm256_add_epi32(_mm256_slli_epi32(e, 23), rebias), m13);
    // E == 31: infinity, or NaN with the payload moved up and the quiet bit forced.
    const __m256i nan_bit = _mm256_andnot_si256(_mm256_cmpeq_epi32(m, zero), quiet);
    const __m256i special = _mm256_or_si256(_mm256_or_si256(infinity, m13), nan_bit);
    // E == 0: M * 2^-24, an exact product.
    const __m256i small = _mm256_castps_si256(_mm256_mul_ps(_mm256_cvtepi32_ps(m), subnormal_unit));
    __m256i magnitude = _mm256_blendv_epi8(normal, special, _mm256_cmpeq_epi32(e, exp_max));
    magnitude = _mm256_blendv_epi8(magnitude, small, _mm256_cmpeq_epi32(e, zero));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst + i), _mm256_or_si256(sign, magnitude));
  }
  for (; i < n; ++i) dst[i] = widen_binary16(src[i]);
}

void widen_bfloat16_row__avx2(const std::uint16_t* src, float* dst, std::size_t n) {
  const __m256i abs_mask = _mm256_set1_epi32(0x7FFFFFFF);
  const __m256i infinity = _mm256_set1_epi32(0x7F800000);
  const __m256i quiet = _mm256_set1_epi32(0x400000);
  std::size_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m256i b = _mm256_cvtepu16_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(src + i)));
    const __m256i bits = _mm256_slli_epi32(b, 16);
    // NaN: |bits| > infinity as signed integers (both below 2^31).
    const __m256i is_nan = _mm256_cmpgt_epi32(_mm256_and_si256(bits, abs_mask), infinity);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(dst + i),
                        _mm256_or_si256(bits, _mm256_and_si256(is_nan, quiet)));
  }
  for (; i < n; ++i) dst[i] = widen_bfloat16(src[i]);
}

}  // namespace onemodel::opt::gemm
