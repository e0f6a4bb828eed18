// The two lane operations every AVX-512 product kernel shares (gemm_micro_avx512.cpp,
// gemm_edge_avx512.cpp): one step of an output's sum, and the canonical NaN of exact mode.
// Included only by _avx512 files, which get the AVX-512 flags (cmake/kernel_sources.cmake).
#pragma once

#include <immintrin.h>

namespace onemodel::opt::gemm::avx512 {

// acc + a*b: fused in fast mode (kernels-gemm.md, "Fast mode"), a rounded multiply then a
// rounded add in exact mode (exact-mode.md rule 1). The A value is always the first factor, so
// every kernel multiplies in the same operand order.
template <bool kFused>
inline __m512 step(__m512 acc, __m512 a, __m512 b) noexcept {
  if constexpr (kFused) {
    return _mm512_fmadd_ps(a, b, acc);
  } else {
    const __m512 prod = _mm512_mul_ps(a, b);
    return _mm512_add_ps(acc, prod);
  }
}

// exact-mode.md rule 4: every NaN stored becomes 0x7FC00000.
inline __m512 canonical_nan(__m512 v) noexcept {
  const __m512 nan = _mm512_castsi512_ps(_mm512_set1_epi32(0x7FC00000));
  return _mm512_mask_blend_ps(_mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q), v, nan);
}

}  // namespace onemodel::opt::gemm::avx512
