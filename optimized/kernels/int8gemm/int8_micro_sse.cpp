// The SSE4.1 pair kernel, 3 x 16 (int8.md, "Product kernel"; the x86 pair layout, G = 2): pmaddwd
// on 128-bit registers, the AVX2 kernel's arithmetic four lanes at a time. B's pairs are widened
// from int8 to int16 by pmovsxbw (four columns per register), A's pairs (int16) broadcast,
// pmaddwd forms a0*b0 + a1*b1 per 32-bit lane (exact on shifted operands:
// proofs/int8_accumulation), paddd accumulates modulo 2^32. Three rows: 12 accumulators, 3
// broadcasts and one B register fill the 16 xmm registers of x86-64 without spilling.
#include <smmintrin.h>

#include "optimized/kernels/int8gemm/int8_gemm.hpp"

namespace onemodel::opt::int8 {

// Named accumulators, not an array: GCC 12 kept an array of them on the stack (int8_micro_avx512.cpp).
#define ONEMODEL_SSE_COLUMNS(X) X(0) X(1) X(2) X(3)

void micro_sse_3x16(std::size_t pairs, const std::int16_t* a_panel, const std::int8_t* b_panel, std::int32_t* tile) {
#define ONEMODEL_DECLARE(j) __m128i r0_##j = _mm_setzero_si128(), r1_##j = _mm_setzero_si128(), r2_##j = _mm_setzero_si128();
  ONEMODEL_SSE_COLUMNS(ONEMODEL_DECLARE)
#undef ONEMODEL_DECLARE
  for (std::size_t p = 0; p < pairs; ++p) {
    const std::int8_t* b = b_panel + p * 32;
    const std::int16_t* a = a_panel + p * 6;
    std::int32_t pair[3];
    __builtin_memcpy(pair, a, sizeof pair);
    const __m128i a0 = _mm_set1_epi32(pair[0]), a1 = _mm_set1_epi32(pair[1]), a2 = _mm_set1_epi32(pair[2]);
#define ONEMODEL_STEP(j) /* columns 4j..4j+3: 8 bytes of pairs */                                          \
  {                                                                                                     \
    const __m128i bj = _mm_cvtepi8_epi16(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(b + (j) * 8))); \
    r0_##j = _mm_add_epi32(r0_##j, _mm_madd_epi16(a0, bj));                                             \
    r1_##j = _mm_add_epi32(r1_##j, _mm_madd_epi16(a1, bj));                                             \
    r2_##j = _mm_add_epi32(r2_##j, _mm_madd_epi16(a2, bj));                                             \
  }
    ONEMODEL_SSE_COLUMNS(ONEMODEL_STEP)
#undef ONEMODEL_STEP
  }
#define ONEMODEL_STORE(j)                                                          \
  _mm_storeu_si128(reinterpret_cast<__m128i*>(tile + (j) * 4), r0_##j);            \
  _mm_storeu_si128(reinterpret_cast<__m128i*>(tile + 16 + (j) * 4), r1_##j);       \
  _mm_storeu_si128(reinterpret_cast<__m128i*>(tile + 32 + (j) * 4), r2_##j);
  ONEMODEL_SSE_COLUMNS(ONEMODEL_STORE)
#undef ONEMODEL_STORE
}

#undef ONEMODEL_SSE_COLUMNS

}  // namespace onemodel::opt::int8
