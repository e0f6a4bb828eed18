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

__attribute__((target("avx512vnni"))) void micro_avx512_vnni_12x32(std::size_t pairs, const std::int16_t* a_panel,
                                                                   const std::int8_t* b_panel, std::int32_t* tile) {
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
      acc[r][0] = _mm512_dpwssd_epi32(acc[r][0], av, b_lo);
      acc[r][1] = _mm512_dpwssd_epi32(acc[r][1], av, b_hi);
    }
  }
  for (int r = 0; r < 12; ++r) {
    _mm512_storeu_si512(tile + r * 32, acc[r][0]);
    _mm512_storeu_si512(tile + r * 32 + 16, acc[r][1]);
  }
}

}  // namespace onemodel::opt::int8
