// The AVX-512 pair kernel, 12 x 32 (int8.md, "Product kernel": AVX-512 tile 12x32): the AVX2
// kernel's arithmetic on 512-bit registers, B's 32 columns of pairs widened from int8 to int16
// (two zmm of 16 column pairs), A's pairs broadcast, vpmaddwd per 32-bit lane (exact on shifted
// operands: proofs/int8_accumulation), vpaddd accumulating. 24 accumulators, 2 B registers and
// one broadcast: 27 of the 32 zmm registers.
#include <immintrin.h>

#include "optimized/kernels/int8gemm/int8_gemm.hpp"

namespace onemodel::opt::int8 {

// The accumulators are 24 named variables, not an array: with an array GCC 12 kept them on the
// stack, an extra load and store per vpaddd (bench_int8_gemm --micro: 69 against 100+ MAC/ns).
#define ONEMODEL_AVX512_ROWS(X) X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7) X(8) X(9) X(10) X(11)

void micro_avx512_12x32(std::size_t pairs, const std::int16_t* a_panel, const std::int8_t* b_panel, std::int32_t* tile) {
#define ONEMODEL_DECLARE(r) __m512i lo##r = _mm512_setzero_si512(), hi##r = _mm512_setzero_si512();
  ONEMODEL_AVX512_ROWS(ONEMODEL_DECLARE)
#undef ONEMODEL_DECLARE
  for (std::size_t p = 0; p < pairs; ++p) {
    const std::int8_t* b = b_panel + p * 64;
    const __m512i b_lo = _mm512_cvtepi8_epi16(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(b)));       // columns 0..15
    const __m512i b_hi = _mm512_cvtepi8_epi16(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(b + 32)));  // columns 16..31
    const std::int16_t* a = a_panel + p * 24;
#define ONEMODEL_STEP(r)                                                 \
  {                                                                      \
    std::int32_t pair;                                                   \
    __builtin_memcpy(&pair, a + (r) * 2, sizeof pair);                   \
    const __m512i av = _mm512_set1_epi32(pair);                          \
    lo##r = _mm512_add_epi32(lo##r, _mm512_madd_epi16(av, b_lo));        \
    hi##r = _mm512_add_epi32(hi##r, _mm512_madd_epi16(av, b_hi));        \
  }
    ONEMODEL_AVX512_ROWS(ONEMODEL_STEP)
#undef ONEMODEL_STEP
  }
#define ONEMODEL_STORE(r)                              \
  _mm512_storeu_si512(tile + (r) * 32, lo##r);         \
  _mm512_storeu_si512(tile + (r) * 32 + 16, hi##r);
  ONEMODEL_AVX512_ROWS(ONEMODEL_STORE)
#undef ONEMODEL_STORE
}

#undef ONEMODEL_AVX512_ROWS

}  // namespace onemodel::opt::int8
