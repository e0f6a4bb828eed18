// The SSE4.1 4 x 8 microkernel (kernels-gemm.md, table under "Structure": the 4-lane path, 8
// accumulators). Each step of k broadcasts the 4 values of one packed A column, loads the 8-wide
// packed B row as 2 vectors and updates the accumulators with a rounded multiply and then a
// rounded add (exact-mode.md rule 1). SSE4.1 has no fused multiply-add, so fast mode runs this
// kernel too (kernels-gemm.md, "Fast mode": acc + a*b elsewhere). Compiled with -msse4.1.
#include <smmintrin.h>

#include "optimized/kernels/gemm/gemm_micro.hpp"

namespace onemodel::opt::gemm {
namespace {

inline __m128 step(__m128 acc, __m128 a, __m128 b) noexcept {
  const __m128 prod = _mm_mul_ps(a, b);
  return _mm_add_ps(acc, prod);
}

// exact-mode.md rule 4: every NaN stored becomes 0x7FC00000.
inline __m128 canonical_nan(__m128 v) noexcept {
  const __m128 nan = _mm_castsi128_ps(_mm_set1_epi32(0x7FC00000));
  return _mm_blendv_ps(v, nan, _mm_cmpunord_ps(v, v));
}

inline void store_row(float* c, __m128 v0, __m128 v1, bool canonical) noexcept {
  if (canonical) {
    v0 = canonical_nan(v0);
    v1 = canonical_nan(v1);
  }
  _mm_storeu_ps(c, v0);
  _mm_storeu_ps(c + 4, v1);
}

}  // namespace

void f32_gemm_4x8__sse41(std::size_t kc, const float* a, const float* b, std::ptrdiff_t ldb, float* c, std::ptrdiff_t ldc,
                         std::uint32_t flags) {
  __m128 c00, c01, c10, c11, c20, c21, c30, c31;
  if ((flags & kGemmAccumulate) != 0) {
    // A later k-block starts from the C values the earlier ones stored (kernels-gemm.md step 3).
    c00 = _mm_loadu_ps(c + 0 * ldc);
    c01 = _mm_loadu_ps(c + 0 * ldc + 4);
    c10 = _mm_loadu_ps(c + 1 * ldc);
    c11 = _mm_loadu_ps(c + 1 * ldc + 4);
    c20 = _mm_loadu_ps(c + 2 * ldc);
    c21 = _mm_loadu_ps(c + 2 * ldc + 4);
    c30 = _mm_loadu_ps(c + 3 * ldc);
    c31 = _mm_loadu_ps(c + 3 * ldc + 4);
  } else {
    // exact-mode.md rule 3: accumulators start from +0.
    c00 = c01 = c10 = c11 = c20 = c21 = c30 = c31 = _mm_setzero_ps();
  }
  for (std::size_t p = 0; p < kc; ++p) {
    const __m128 b0 = _mm_loadu_ps(b);
    const __m128 b1 = _mm_loadu_ps(b + 4);
    __m128 av = _mm_load1_ps(a + 0);
    c00 = step(c00, av, b0);
    c01 = step(c01, av, b1);
    av = _mm_load1_ps(a + 1);
    c10 = step(c10, av, b0);
    c11 = step(c11, av, b1);
    av = _mm_load1_ps(a + 2);
    c20 = step(c20, av, b0);
    c21 = step(c21, av, b1);
    av = _mm_load1_ps(a + 3);
    c30 = step(c30, av, b0);
    c31 = step(c31, av, b1);
    a += 4;
    b += ldb;
  }
  const bool canonical = (flags & kGemmCanonicalNan) != 0;
  store_row(c + 0 * ldc, c00, c01, canonical);
  store_row(c + 1 * ldc, c10, c11, canonical);
  store_row(c + 2 * ldc, c20, c21, canonical);
  store_row(c + 3 * ldc, c30, c31, canonical);
}

}  // namespace onemodel::opt::gemm
