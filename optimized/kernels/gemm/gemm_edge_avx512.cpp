// AVX-512 kernels for the thin edges of a product (gemm_micro.hpp, "Edge kernels"): one row of C
// (m = 1, a Linear layer at batch 1) and one column of C (n = 1, the 1x1 convolutions of a
// squeeze-and-excitation block on a 1 x 1 map). The 12 x 32 microkernel would compute 12 rows or
// 32 columns there to keep one; these compute the one. Each output is the microkernel's own
// sequence: one accumulator, p increasing, the A value times the B value (operands in the same
// order) then rounded add in exact mode or a fused multiply-add in fast mode (exact-mode.md,
// "Matrix product"), so results are the 12 x 32 microkernel's bits. Masked loads and stores stay
// inside the valid part (AVX-512 masking suppresses faults on the lanes left out).
#include <immintrin.h>

#include "optimized/kernels/gemm/gemm_micro.hpp"

namespace onemodel::opt::gemm {
namespace {

constexpr int kRows = 12;
constexpr int kCols = 32;

template <bool kFused>
inline __m512 step(__m512 acc, __m512 a, __m512 b) noexcept {
  if constexpr (kFused) {
    return _mm512_fmadd_ps(a, b, acc);
  } else {
    const __m512 prod = _mm512_mul_ps(a, b);
    return _mm512_add_ps(acc, prod);
  }
}

inline __m512 canonical_nan(__m512 v) noexcept {
  const __m512 nan = _mm512_castsi512_ps(_mm512_set1_epi32(0x7FC00000));
  return _mm512_mask_blend_ps(_mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q), v, nan);
}

inline __mmask16 first_lanes(std::size_t count) noexcept {
  return count >= 16 ? static_cast<__mmask16>(0xFFFF) : static_cast<__mmask16>((1u << count) - 1u);
}

// Row 0 of the 12 x 32 block: C[0][j] for j < cols (cols <= 32). A's strip holds the row's value
// of step p at a[p * 12].
template <bool kFused>
void one_row(std::size_t kc, const float* a, const float* b, std::ptrdiff_t ldb, float* c, std::size_t cols,
             std::uint32_t flags) noexcept {
  const __mmask16 m0 = first_lanes(cols);
  const __mmask16 m1 = first_lanes(cols > 16 ? cols - 16 : 0);
  __m512 acc0 = _mm512_setzero_ps(), acc1 = _mm512_setzero_ps();
  if ((flags & kGemmAccumulate) != 0) {
    acc0 = _mm512_maskz_loadu_ps(m0, c);
    acc1 = _mm512_maskz_loadu_ps(m1, c + 16);
  }
  for (std::size_t p = 0; p < kc; ++p) {
    const __m512 av = _mm512_set1_ps(a[p * kRows]);
    acc0 = step<kFused>(acc0, av, _mm512_loadu_ps(b));
    acc1 = step<kFused>(acc1, av, _mm512_loadu_ps(b + 16));
    b += ldb;
  }
  if ((flags & kGemmCanonicalNan) != 0) {
    acc0 = canonical_nan(acc0);
    acc1 = canonical_nan(acc1);
  }
  _mm512_mask_storeu_ps(c, m0, acc0);
  _mm512_mask_storeu_ps(c + 16, m1, acc1);
}

// Column 0 of the 12 x 32 block: C[r][0] for r < rows (rows <= 12), the 12 rows in one vector.
template <bool kFused>
void one_column(std::size_t kc, const float* a, const float* b, std::ptrdiff_t ldb, float* c, std::ptrdiff_t ldc,
                std::size_t rows, std::uint32_t flags) noexcept {
  const __mmask16 strip = first_lanes(kRows);
  alignas(64) float column[16] = {};
  if ((flags & kGemmAccumulate) != 0) {
    for (std::size_t r = 0; r < rows; ++r) column[r] = c[static_cast<std::ptrdiff_t>(r) * ldc];
  }
  __m512 acc = _mm512_load_ps(column);
  for (std::size_t p = 0; p < kc; ++p) {
    // The packed strip's rows past m are +0; lanes 12..15 are never stored.
    const __m512 av = _mm512_maskz_loadu_ps(strip, a + p * kRows);
    acc = step<kFused>(acc, av, _mm512_set1_ps(*b));
    b += ldb;
  }
  if ((flags & kGemmCanonicalNan) != 0) acc = canonical_nan(acc);
  _mm512_store_ps(column, acc);
  for (std::size_t r = 0; r < rows; ++r) c[static_cast<std::ptrdiff_t>(r) * ldc] = column[r];
}

}  // namespace

static_assert(kCols == 32, "the row kernel covers one 32-wide strip");

void f32_gemm_row_12x32__avx512_fma(std::size_t kc, const float* a, const float* b, std::ptrdiff_t ldb, float* c,
                                    std::size_t cols, std::uint32_t flags) {
  one_row<true>(kc, a, b, ldb, c, cols, flags);
}
void f32_gemm_row_12x32__avx512_exact(std::size_t kc, const float* a, const float* b, std::ptrdiff_t ldb, float* c,
                                      std::size_t cols, std::uint32_t flags) {
  one_row<false>(kc, a, b, ldb, c, cols, flags);
}
void f32_gemm_column_12x32__avx512_fma(std::size_t kc, const float* a, const float* b, std::ptrdiff_t ldb, float* c,
                                       std::ptrdiff_t ldc, std::size_t rows, std::uint32_t flags) {
  one_column<true>(kc, a, b, ldb, c, ldc, rows, flags);
}
void f32_gemm_column_12x32__avx512_exact(std::size_t kc, const float* a, const float* b, std::ptrdiff_t ldb, float* c,
                                         std::ptrdiff_t ldc, std::size_t rows, std::uint32_t flags) {
  one_column<false>(kc, a, b, ldb, c, ldc, rows, flags);
}

}  // namespace onemodel::opt::gemm
