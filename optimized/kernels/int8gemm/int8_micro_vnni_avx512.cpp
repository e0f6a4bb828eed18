// The AVX-512 VNNI pair kernel, 12 x 32 (int8.md, "Product kernel": AVX-512 tile 12x32, VNNI where
// the CPU has it): the 12x32 kernel's layout and arithmetic with vpdpwssd, which adds a0*b0 + a1*b1
// to each 32-bit lane in one instruction instead of vpmaddwd then vpaddd. vpdpwssd, not vpdpwssds:
// the non-saturating form wraps modulo 2^32 like vpaddd, so the sum is the other paths' bit for bit
// (and on shifted operands nothing wraps before K passes kMaxK: proofs/int8_accumulation).
// Only called when the CPU reports AVX512_VNNI (int8_cpu.cpp); the file gets the _avx512 flags and
// the function alone the VNNI target, so nothing else in the file can use the instruction.
#include <immintrin.h>

#include "optimized/kernels/int8gemm/int8_gemm.hpp"

namespace onemodel::opt::int8 {

// The accumulators are 24 named variables, not an array: with an array GCC 12 copies every
// vpdpwssd's destination through the stack on each pair (the destination is also a source),
// which halved the kernel's speed (bench_int8_gemm --micro).
#define ONEMODEL_VNNI_ROWS(X) X(0) X(1) X(2) X(3) X(4) X(5) X(6) X(7) X(8) X(9) X(10) X(11)

__attribute__((target("avx512vnni"))) void micro_avx512_vnni_12x32(std::size_t pairs, const std::int16_t* a_panel,
                                                                   const std::int8_t* b_panel, std::int32_t* tile) {
#define ONEMODEL_DECLARE(r) __m512i lo##r = _mm512_setzero_si512(), hi##r = _mm512_setzero_si512();
  ONEMODEL_VNNI_ROWS(ONEMODEL_DECLARE)
#undef ONEMODEL_DECLARE
  for (std::size_t p = 0; p < pairs; ++p) {
    const std::int8_t* b = b_panel + p * 64;
    const __m512i b_lo = _mm512_cvtepi8_epi16(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(b)));       // columns 0..15
    const __m512i b_hi = _mm512_cvtepi8_epi16(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(b + 32)));  // columns 16..31
    const std::int16_t* a = a_panel + p * 24;
#define ONEMODEL_STEP(r)                                  \
  {                                                       \
    std::int32_t pair;                                    \
    __builtin_memcpy(&pair, a + (r) * 2, sizeof pair);    \
    const __m512i av = _mm512_set1_epi32(pair);           \
    lo##r = _mm512_dpwssd_epi32(lo##r, av, b_lo);         \
    hi##r = _mm512_dpwssd_epi32(hi##r, av, b_hi);         \
  }
    ONEMODEL_VNNI_ROWS(ONEMODEL_STEP)
#undef ONEMODEL_STEP
  }
#define ONEMODEL_STORE(r)                              \
  _mm512_storeu_si512(tile + (r) * 32, lo##r);         \
  _mm512_storeu_si512(tile + (r) * 32 + 16, hi##r);
  ONEMODEL_VNNI_ROWS(ONEMODEL_STORE)
#undef ONEMODEL_STORE
}

#undef ONEMODEL_VNNI_ROWS

}  // namespace onemodel::opt::int8
