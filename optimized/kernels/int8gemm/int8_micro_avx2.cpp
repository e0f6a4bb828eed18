// The AVX2 pair kernel, 6 x 16 (int8.md, "Product kernel"): B's pairs widened from int8 to int16
// in registers, A's pairs (int16) broadcast, vpmaddwd forming a0*b0 + a1*b1 per 32-bit lane,
// vpaddd accumulating. With |a|, |b| <= 128 each lane is at most 2^15 in magnitude, so vpmaddwd
// never meets its one wrapping case (both pairs -32768; proofs/int8_accumulation), unlike
// vpmaddubsw, which saturates at 2^15.
#include <immintrin.h>

#include "optimized/kernels/int8gemm/int8_gemm.hpp"

namespace onemodel::opt::int8 {

void micro_avx2_6x16(std::size_t pairs, const std::int16_t* a_panel, const std::int8_t* b_panel, std::int32_t* tile) {
  __m256i acc[6][2];
  for (auto& row : acc) row[0] = row[1] = _mm256_setzero_si256();
  for (std::size_t p = 0; p < pairs; ++p) {
    const std::int8_t* b = b_panel + p * 32;
    const __m256i b_lo = _mm256_cvtepi8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(b)));       // columns 0..7
    const __m256i b_hi = _mm256_cvtepi8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(b + 16)));  // columns 8..15
    const std::int16_t* a = a_panel + p * 12;
    for (int r = 0; r < 6; ++r) {
      std::int32_t pair;
      __builtin_memcpy(&pair, a + r * 2, sizeof pair);
      const __m256i av = _mm256_set1_epi32(pair);
      acc[r][0] = _mm256_add_epi32(acc[r][0], _mm256_madd_epi16(av, b_lo));
      acc[r][1] = _mm256_add_epi32(acc[r][1], _mm256_madd_epi16(av, b_hi));
    }
  }
  for (int r = 0; r < 6; ++r) {
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(tile + r * 16), acc[r][0]);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(tile + r * 16 + 8), acc[r][1]);
  }
}

}  // namespace onemodel::opt::int8
