// The AVX-512 pair kernel, 12 x 32 (int8.md, "Product kernel": AVX-512 tile 12x32): the AVX2
// kernel's arithmetic on 512-bit registers, B's 32 columns of pairs widened from int8 to int16
// (two zmm of 16 column pairs), A's pairs broadcast, vpmaddwd per 32-bit lane (exact on shifted
// operands: proofs/int8_accumulation), vpaddd accumulating. 24 accumulators, 2 B registers and
// one broadcast: 27 of the 32 zmm registers.
#include <immintrin.h>

#include "optimized/kernels/int8gemm/int8_gemm.hpp"

namespace onemodel::opt::int8 {

void micro_avx512_12x32(std::size_t pairs, const std::int16_t* a_panel, const std::int8_t* b_panel, std::int32_t* tile) {
  __m512i acc[12][2];
  for (auto& row : acc) row[0] = row[1] = _mm512_setzero_si512();
  for (std::size_t p = 0; p < pairs; ++p) {
    const std::int8_t* b = b_panel + p * 64;
    const __m512i b_lo = _mm512_cvtepi8_epi16(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(b)));       // columns 0..15
    const __m512i b_hi = _mm512_cvtepi8_epi16(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(b + 32)));  // columns 16..31
    const std::int16_t* a = a_panel + p * 24;
    for (int r = 0; r < 12; ++r) {
      std::int32_t pair;
      __builtin_memcpy(&pair, a + r * 2, sizeof pair);
      const __m512i av = _mm512_set1_epi32(pair);
      acc[r][0] = _mm512_add_epi32(acc[r][0], _mm512_madd_epi16(av, b_lo));
      acc[r][1] = _mm512_add_epi32(acc[r][1], _mm512_madd_epi16(av, b_hi));
    }
  }
  for (int r = 0; r < 12; ++r) {
    _mm512_storeu_si512(tile + r * 32, acc[r][0]);
    _mm512_storeu_si512(tile + r * 32 + 16, acc[r][1]);
  }
}

}  // namespace onemodel::opt::int8
