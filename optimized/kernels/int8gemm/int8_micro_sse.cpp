// The SSE4.1 pair kernel, 3 x 16 (int8.md, "Product kernel"; the x86 pair layout, G = 2): pmaddwd
// on 128-bit registers, the AVX2 kernel's arithmetic four lanes at a time. B's pairs are widened
// from int8 to int16 by pmovsxbw (four columns per register), A's pairs (int16) broadcast,
// pmaddwd forms a0*b0 + a1*b1 per 32-bit lane (exact on shifted operands:
// proofs/int8_accumulation), paddd accumulates modulo 2^32. Three rows: 12 accumulators, 3
// broadcasts and one B register fill the 16 xmm registers of x86-64 without spilling.
#include <smmintrin.h>

#include "optimized/kernels/int8gemm/int8_gemm.hpp"

namespace onemodel::opt::int8 {

void micro_sse_3x16(std::size_t pairs, const std::int16_t* a_panel, const std::int8_t* b_panel, std::int32_t* tile) {
  constexpr int mr = 3;
  __m128i acc[mr][4];
  for (auto& row : acc) {
    for (auto& v : row) v = _mm_setzero_si128();
  }
  for (std::size_t p = 0; p < pairs; ++p) {
    const std::int8_t* b = b_panel + p * 32;
    const std::int16_t* a = a_panel + p * mr * 2;
    __m128i av[mr];
    for (int r = 0; r < mr; ++r) {
      std::int32_t pair;
      __builtin_memcpy(&pair, a + r * 2, sizeof pair);
      av[r] = _mm_set1_epi32(pair);
    }
    for (int j = 0; j < 4; ++j) {  // columns 4j..4j+3: 8 bytes of pairs
      const __m128i bj = _mm_cvtepi8_epi16(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(b + j * 8)));
      for (int r = 0; r < mr; ++r) acc[r][j] = _mm_add_epi32(acc[r][j], _mm_madd_epi16(av[r], bj));
    }
  }
  for (int r = 0; r < mr; ++r) {
    for (int j = 0; j < 4; ++j) _mm_storeu_si128(reinterpret_cast<__m128i*>(tile + r * 16 + j * 4), acc[r][j]);
  }
}

}  // namespace onemodel::opt::int8
