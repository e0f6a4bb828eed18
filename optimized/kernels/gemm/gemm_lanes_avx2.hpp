// The two 256-bit lane operations of the AVX2 product kernels (gemm_micro_avx2.cpp), shared with
// the AVX-512 path's exact kernels in 256-bit halves (gemm_micro_halves_avx512.cpp): one step of an
// output's sum, and the canonical NaN of exact mode. Included only by files compiled with AVX2 and
// FMA or wider (cmake/kernel_sources.cmake).
#pragma once

#include <immintrin.h>

namespace onemodel::opt::gemm::avx2 {
// Internal to each file that includes it: the AVX-512 files compile these with other flags, and a
// weak out-of-line copy shared under one name would let the linker keep either one (one
// definition rule).
namespace {

// acc + a*b: fused in fast mode (kernels-gemm.md, "Fast mode"), a rounded multiply then a
// rounded add in exact mode (exact-mode.md rule 1); the A value is the first factor.
template <bool kFused>
inline __m256 step(__m256 acc, __m256 a, __m256 b) noexcept {
  if constexpr (kFused) {
    return _mm256_fmadd_ps(a, b, acc);
  } else {
    const __m256 prod = _mm256_mul_ps(a, b);
    return _mm256_add_ps(acc, prod);
  }
}

// exact-mode.md rule 4: every NaN stored becomes 0x7FC00000.
inline __m256 canonical_nan(__m256 v) noexcept {
  const __m256 nan = _mm256_castsi256_ps(_mm256_set1_epi32(0x7FC00000));
  return _mm256_blendv_ps(v, nan, _mm256_cmp_ps(v, v, _CMP_UNORD_Q));
}

}  // namespace
}  // namespace onemodel::opt::gemm::avx2
