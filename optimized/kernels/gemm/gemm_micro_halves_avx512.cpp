// Exact-mode 12 x 32 kernels in 256-bit halves, for CPUs that run a 512-bit instruction as two
// 256-bit halves (AMD Zen 4; optimized/frame/cpu_traits.hpp). There a 512-bit broadcast of the A
// value takes a vector pipe that exact mode's separate multiply and add also need (two of them,
// with the multiply on the FMA pipes and the add on the add pipes), while a 256-bit broadcast from
// memory is done by the load unit alone. So the 12 x 32 block is computed as two 12 x 16 blocks of
// 256-bit registers (24 accumulators: the EVEX encoding gives 32 ymm registers), each step of k
// one 256-bit broadcast per row for four multiply-add pairs. Measured on Zen 4 (docs/
// kernel-performance.md, "Session 24"): 116 GFLOP/s in L1 against 77 for the 512-bit 12 x 32
// exact kernel and 90 for its 12 x 64 pair kernel, the fused kernel's 112.
//
// Each output keeps the 12 x 32 kernel's sequence: one accumulator from +0 (or from C with
// kGemmAccumulate), p increasing, the A value times the B value rounded, then added and rounded
// (exact-mode.md rules 1 to 3); lanes hold different outputs. So these are its bits on every path.
#include <immintrin.h>

#include "optimized/kernels/gemm/gemm_lanes_avx2.hpp"
#include "optimized/kernels/gemm/gemm_micro.hpp"

namespace onemodel::opt::gemm {
namespace {

constexpr int kStripRows = 12;  // MR of the AVX-512 path: the packed A strip holds 12 rows per k

using avx2::canonical_nan;

// Rows [0, kRows) and 16 columns of the strip (b, c already offset to the half): kRows x 2
// accumulators. Columns past `cols` (kMasked) are computed from B's zero padding and not stored.
template <int kRows, bool kMasked>
inline void half_block(std::size_t kc, const float* a, const float* b, std::ptrdiff_t ldb, float* c,
                       std::ptrdiff_t ldc, __mmask8 m0, __mmask8 m1, std::uint32_t flags) noexcept {
  __m256 acc[kRows][2];
  if ((flags & kGemmAccumulate) != 0) {
    // A later k-block starts from the C values the earlier ones stored (kernels-gemm.md step 3).
#pragma GCC unroll 12
    for (int r = 0; r < kRows; ++r) {
      if constexpr (kMasked) {
        acc[r][0] = _mm256_maskz_loadu_ps(m0, c + r * ldc);
        acc[r][1] = _mm256_maskz_loadu_ps(m1, c + r * ldc + 8);
      } else {
        acc[r][0] = _mm256_loadu_ps(c + r * ldc);
        acc[r][1] = _mm256_loadu_ps(c + r * ldc + 8);
      }
    }
  } else {
    // exact-mode.md rule 3: accumulators start from +0.
#pragma GCC unroll 12
    for (int r = 0; r < kRows; ++r) acc[r][0] = acc[r][1] = _mm256_setzero_ps();
  }
  for (std::size_t p = 0; p < kc; ++p) {
    const __m256 b0 = _mm256_loadu_ps(b);
    const __m256 b1 = _mm256_loadu_ps(b + 8);
#pragma GCC unroll 12
    for (int r = 0; r < kRows; ++r) {
      const __m256 av = _mm256_broadcast_ss(a + r);
      acc[r][0] = avx2::step<false>(acc[r][0], av, b0);
      acc[r][1] = avx2::step<false>(acc[r][1], av, b1);
    }
    a += kStripRows;
    b += ldb;
  }
  const bool canonical = (flags & kGemmCanonicalNan) != 0;
#pragma GCC unroll 12
  for (int r = 0; r < kRows; ++r) {
    const __m256 v0 = canonical ? canonical_nan(acc[r][0]) : acc[r][0];
    const __m256 v1 = canonical ? canonical_nan(acc[r][1]) : acc[r][1];
    if constexpr (kMasked) {
      _mm256_mask_storeu_ps(c + r * ldc, m0, v0);
      _mm256_mask_storeu_ps(c + r * ldc + 8, m1, v1);
    } else {
      _mm256_storeu_ps(c + r * ldc, v0);
      _mm256_storeu_ps(c + r * ldc + 8, v1);
    }
  }
}

template <int kRows>
inline void full_block(std::size_t kc, const float* a, const float* b, std::ptrdiff_t ldb, float* c,
                       std::ptrdiff_t ldc, std::uint32_t flags) noexcept {
  half_block<kRows, false>(kc, a, b, ldb, c, ldc, 0, 0, flags);
  half_block<kRows, false>(kc, a, b + 16, ldb, c + 16, ldc, 0, 0, flags);
}

template <int kRows>
inline void narrow_rows(std::size_t kc, const float* a, const float* b, std::ptrdiff_t ldb, float* c,
                        std::ptrdiff_t ldc, std::size_t cols, std::uint32_t flags) noexcept {
  const unsigned bits = cols >= 16 ? 0xFFFFu : (1u << cols) - 1u;
  half_block<kRows, true>(kc, a, b, ldb, c, ldc, static_cast<__mmask8>(bits & 0xFFu),
                          static_cast<__mmask8>(bits >> 8), flags);
}

}  // namespace

void f32_gemm_12x32__avx512_halves_exact(std::size_t kc, const float* a, const float* b, std::ptrdiff_t ldb, float* c,
                                         std::ptrdiff_t ldc, std::uint32_t flags) {
  full_block<kStripRows>(kc, a, b, ldb, c, ldc, flags);
}

void f32_gemm_short_12x32__avx512_halves_exact(std::size_t kc, const float* a, const float* b, std::ptrdiff_t ldb,
                                               float* c, std::ptrdiff_t ldc, std::size_t rows, std::uint32_t flags) {
  switch (rows) {
    case 1: return full_block<1>(kc, a, b, ldb, c, ldc, flags);
    case 2: return full_block<2>(kc, a, b, ldb, c, ldc, flags);
    case 3: return full_block<3>(kc, a, b, ldb, c, ldc, flags);
    case 4: return full_block<4>(kc, a, b, ldb, c, ldc, flags);
    case 5: return full_block<5>(kc, a, b, ldb, c, ldc, flags);
    case 6: return full_block<6>(kc, a, b, ldb, c, ldc, flags);
    case 7: return full_block<7>(kc, a, b, ldb, c, ldc, flags);
    case 8: return full_block<8>(kc, a, b, ldb, c, ldc, flags);
    case 9: return full_block<9>(kc, a, b, ldb, c, ldc, flags);
    case 10: return full_block<10>(kc, a, b, ldb, c, ldc, flags);
    case 11: return full_block<11>(kc, a, b, ldb, c, ldc, flags);
    default: return full_block<kStripRows>(kc, a, b, ldb, c, ldc, flags);
  }
}

void f32_gemm_narrow_12x16__avx512_halves_exact(std::size_t kc, const float* a, const float* b, std::ptrdiff_t ldb,
                                                float* c, std::ptrdiff_t ldc, std::size_t rows, std::size_t cols,
                                                std::uint32_t flags) {
  switch (rows) {
    case 1: return narrow_rows<1>(kc, a, b, ldb, c, ldc, cols, flags);
    case 2: return narrow_rows<2>(kc, a, b, ldb, c, ldc, cols, flags);
    case 3: return narrow_rows<3>(kc, a, b, ldb, c, ldc, cols, flags);
    case 4: return narrow_rows<4>(kc, a, b, ldb, c, ldc, cols, flags);
    case 5: return narrow_rows<5>(kc, a, b, ldb, c, ldc, cols, flags);
    case 6: return narrow_rows<6>(kc, a, b, ldb, c, ldc, cols, flags);
    case 7: return narrow_rows<7>(kc, a, b, ldb, c, ldc, cols, flags);
    case 8: return narrow_rows<8>(kc, a, b, ldb, c, ldc, cols, flags);
    case 9: return narrow_rows<9>(kc, a, b, ldb, c, ldc, cols, flags);
    case 10: return narrow_rows<10>(kc, a, b, ldb, c, ldc, cols, flags);
    case 11: return narrow_rows<11>(kc, a, b, ldb, c, ldc, cols, flags);
    default: return narrow_rows<kStripRows>(kc, a, b, ldb, c, ldc, cols, flags);
  }
}

}  // namespace onemodel::opt::gemm
