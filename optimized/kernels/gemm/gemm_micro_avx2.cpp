// The AVX2 6 x 16 microkernels (kernels-gemm.md, table under "Structure": 12 of 16 ymm hold the
// accumulators). Each step of k broadcasts the 6 values of one packed A column, loads the
// 16-wide packed B row as 2 vectors and updates the 12 accumulators: fast mode with
// _mm256_fmadd_ps (kernels-gemm.md, "Fast mode"), exact mode with a rounded multiply and then a
// rounded add (exact-mode.md rule 1). Lanes hold different outputs, never terms of one output
// (exact-mode.md rule 2). Compiled with -mavx2 -mfma; called only after the CPU check.
#include <immintrin.h>

#include "optimized/kernels/gemm/gemm_lanes_avx2.hpp"
#include "optimized/kernels/gemm/gemm_micro.hpp"

namespace onemodel::opt::gemm {
namespace {

using avx2::canonical_nan;
using avx2::step;

inline void store_row(float* c, __m256 v0, __m256 v1, bool canonical) noexcept {
  if (canonical) {
    v0 = canonical_nan(v0);
    v1 = canonical_nan(v1);
  }
  _mm256_storeu_ps(c, v0);
  _mm256_storeu_ps(c + 8, v1);
}

template <bool kFused>
inline void kernel_6x16(std::size_t kc, const float* a, const float* b, std::ptrdiff_t ldb, float* c, std::ptrdiff_t ldc,
                        std::uint32_t flags) noexcept {
  __m256 c00, c01, c10, c11, c20, c21, c30, c31, c40, c41, c50, c51;
  if ((flags & kGemmAccumulate) != 0) {
    // A later k-block starts from the C values the earlier ones stored (kernels-gemm.md step 3).
    c00 = _mm256_loadu_ps(c + 0 * ldc);
    c01 = _mm256_loadu_ps(c + 0 * ldc + 8);
    c10 = _mm256_loadu_ps(c + 1 * ldc);
    c11 = _mm256_loadu_ps(c + 1 * ldc + 8);
    c20 = _mm256_loadu_ps(c + 2 * ldc);
    c21 = _mm256_loadu_ps(c + 2 * ldc + 8);
    c30 = _mm256_loadu_ps(c + 3 * ldc);
    c31 = _mm256_loadu_ps(c + 3 * ldc + 8);
    c40 = _mm256_loadu_ps(c + 4 * ldc);
    c41 = _mm256_loadu_ps(c + 4 * ldc + 8);
    c50 = _mm256_loadu_ps(c + 5 * ldc);
    c51 = _mm256_loadu_ps(c + 5 * ldc + 8);
  } else {
    // exact-mode.md rule 3: accumulators start from +0.
    c00 = c01 = c10 = c11 = c20 = c21 = c30 = c31 = c40 = c41 = c50 = c51 = _mm256_setzero_ps();
  }
  for (std::size_t p = 0; p < kc; ++p) {
    const __m256 b0 = _mm256_loadu_ps(b);
    const __m256 b1 = _mm256_loadu_ps(b + 8);
    __m256 av = _mm256_broadcast_ss(a + 0);
    c00 = step<kFused>(c00, av, b0);
    c01 = step<kFused>(c01, av, b1);
    av = _mm256_broadcast_ss(a + 1);
    c10 = step<kFused>(c10, av, b0);
    c11 = step<kFused>(c11, av, b1);
    av = _mm256_broadcast_ss(a + 2);
    c20 = step<kFused>(c20, av, b0);
    c21 = step<kFused>(c21, av, b1);
    av = _mm256_broadcast_ss(a + 3);
    c30 = step<kFused>(c30, av, b0);
    c31 = step<kFused>(c31, av, b1);
    av = _mm256_broadcast_ss(a + 4);
    c40 = step<kFused>(c40, av, b0);
    c41 = step<kFused>(c41, av, b1);
    av = _mm256_broadcast_ss(a + 5);
    c50 = step<kFused>(c50, av, b0);
    c51 = step<kFused>(c51, av, b1);
    a += 6;
    b += ldb;
  }
  const bool canonical = (flags & kGemmCanonicalNan) != 0;
  store_row(c + 0 * ldc, c00, c01, canonical);
  store_row(c + 1 * ldc, c10, c11, canonical);
  store_row(c + 2 * ldc, c20, c21, canonical);
  store_row(c + 3 * ldc, c30, c31, canonical);
  store_row(c + 4 * ldc, c40, c41, canonical);
  store_row(c + 5 * ldc, c50, c51, canonical);
}

}  // namespace

void f32_gemm_6x16__avx2_fma(std::size_t kc, const float* a, const float* b, std::ptrdiff_t ldb, float* c, std::ptrdiff_t ldc,
                             std::uint32_t flags) {
  kernel_6x16<true>(kc, a, b, ldb, c, ldc, flags);
}

void f32_gemm_6x16__avx2_exact(std::size_t kc, const float* a, const float* b, std::ptrdiff_t ldb, float* c, std::ptrdiff_t ldc,
                               std::uint32_t flags) {
  kernel_6x16<false>(kc, a, b, ldb, c, ldc, flags);
}

}  // namespace onemodel::opt::gemm
