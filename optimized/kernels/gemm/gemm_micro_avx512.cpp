// The AVX-512 12 x 32 microkernels (kernels-gemm.md, table under "Structure": 24 of 32 zmm hold
// the accumulators, tiles MC x NC = 96 x 128). Each step of k loads the 32-wide packed B row as
// 2 vectors, then for each of the 12 rows broadcasts that row's packed A value and updates the
// row's 2 accumulators: fast mode with _mm512_fmadd_ps (kernels-gemm.md, "Fast mode"), exact
// mode with a rounded multiply and then a rounded add (exact-mode.md rule 1). One accumulator per
// output, p increasing: the same per-output order as every other path, so exact results are the
// scalar and AVX2 bits (exact-mode.md rules 2 and 5). Compiled with the AVX-512 flags of
// cmake/kernel_sources.cmake; called only after the CPU check of optimized/frame/isa.cpp.
#include <immintrin.h>

#include "optimized/kernels/gemm/gemm_lanes_avx512.hpp"
#include "optimized/kernels/gemm/gemm_micro.hpp"

namespace onemodel::opt::gemm {
namespace {

constexpr int kRows = 12;

using avx512::canonical_nan;
using avx512::step;

// The accumulators live in a fully unrolled array; GCC and clang keep each element in its own
// zmm register (checked in the generated code: no spills in the k loop).
template <bool kFused>
inline void kernel_12x32(std::size_t kc, const float* a, const float* b, std::ptrdiff_t ldb, float* c, std::ptrdiff_t ldc,
                         std::uint32_t flags) noexcept {
  __m512 acc0[kRows];
  __m512 acc1[kRows];
  if ((flags & kGemmAccumulate) != 0) {
    // A later k-block starts from the C values the earlier ones stored (kernels-gemm.md step 3).
#pragma GCC unroll 12
    for (int r = 0; r < kRows; ++r) {
      acc0[r] = _mm512_loadu_ps(c + r * ldc);
      acc1[r] = _mm512_loadu_ps(c + r * ldc + 16);
    }
  } else {
    // exact-mode.md rule 3: accumulators start from +0.
#pragma GCC unroll 12
    for (int r = 0; r < kRows; ++r) acc0[r] = acc1[r] = _mm512_setzero_ps();
  }
  for (std::size_t p = 0; p < kc; ++p) {
    const __m512 b0 = _mm512_loadu_ps(b);
    const __m512 b1 = _mm512_loadu_ps(b + 16);
#pragma GCC unroll 12
    for (int r = 0; r < kRows; ++r) {
      const __m512 av = _mm512_set1_ps(a[r]);
      acc0[r] = step<kFused>(acc0[r], av, b0);
      acc1[r] = step<kFused>(acc1[r], av, b1);
    }
    a += kRows;
    b += ldb;
  }
  const bool canonical = (flags & kGemmCanonicalNan) != 0;
#pragma GCC unroll 12
  for (int r = 0; r < kRows; ++r) {
    __m512 v0 = acc0[r];
    __m512 v1 = acc1[r];
    if (canonical) {
      v0 = canonical_nan(v0);
      v1 = canonical_nan(v1);
    }
    _mm512_storeu_ps(c + r * ldc, v0);
    _mm512_storeu_ps(c + r * ldc + 16, v1);
  }
}

}  // namespace

void f32_gemm_12x32__avx512_fma(std::size_t kc, const float* a, const float* b, std::ptrdiff_t ldb, float* c, std::ptrdiff_t ldc,
                                std::uint32_t flags) {
  kernel_12x32<true>(kc, a, b, ldb, c, ldc, flags);
}

void f32_gemm_12x32__avx512_exact(std::size_t kc, const float* a, const float* b, std::ptrdiff_t ldb, float* c, std::ptrdiff_t ldc,
                                  std::uint32_t flags) {
  kernel_12x32<false>(kc, a, b, ldb, c, ldc, flags);
}

}  // namespace onemodel::opt::gemm
