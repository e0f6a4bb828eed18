// The AVX2 pair kernel, 6 x 16 (int8.md, "Product kernel"): B's pairs widened from int8 to int16
// in registers, A's pairs (int16) broadcast, vpmaddwd forming a0*b0 + a1*b1 per 32-bit lane,
// vpaddd accumulating. With |a|, |b| <= 128 each lane is at most 2^15 in magnitude, so vpmaddwd
// never meets its one wrapping case (both pairs -32768; proofs/int8_accumulation), unlike
// vpmaddubsw, which saturates at 2^15.
#include <immintrin.h>

#include "optimized/kernels/int8gemm/int8_gemm.hpp"

namespace onemodel::opt::int8 {

// Named accumulators, not an array: GCC 12 kept an array of them on the stack (int8_micro_avx512.cpp).
#define ONEMODEL_AVX2_ROWS(X) X(0) X(1) X(2) X(3) X(4) X(5)

void micro_avx2_6x16(std::size_t pairs, const std::int16_t* a_panel, const std::int8_t* b_panel, std::int32_t* tile) {
#define ONEMODEL_DECLARE(r) __m256i lo##r = _mm256_setzero_si256(), hi##r = _mm256_setzero_si256();
  ONEMODEL_AVX2_ROWS(ONEMODEL_DECLARE)
#undef ONEMODEL_DECLARE
  for (std::size_t p = 0; p < pairs; ++p) {
    const std::int8_t* b = b_panel + p * 32;
    const __m256i b_lo = _mm256_cvtepi8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(b)));       // columns 0..7
    const __m256i b_hi = _mm256_cvtepi8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(b + 16)));  // columns 8..15
    const std::int16_t* a = a_panel + p * 12;
#define ONEMODEL_STEP(r)                                              \
  {                                                                   \
    std::int32_t pair;                                                \
    __builtin_memcpy(&pair, a + (r) * 2, sizeof pair);                \
    const __m256i av = _mm256_set1_epi32(pair);                       \
    lo##r = _mm256_add_epi32(lo##r, _mm256_madd_epi16(av, b_lo));     \
    hi##r = _mm256_add_epi32(hi##r, _mm256_madd_epi16(av, b_hi));     \
  }
    ONEMODEL_AVX2_ROWS(ONEMODEL_STEP)
#undef ONEMODEL_STEP
  }
#define ONEMODEL_STORE(r)                                                          \
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(tile + (r) * 16), lo##r);         \
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(tile + (r) * 16 + 8), hi##r);
  ONEMODEL_AVX2_ROWS(ONEMODEL_STORE)
#undef ONEMODEL_STORE
}

#undef ONEMODEL_AVX2_ROWS

}  // namespace onemodel::opt::int8
