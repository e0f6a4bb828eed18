// AVX2 kernels for the edges of a product (gemm_micro.hpp, "Edge kernels"), where the 6 x 16
// microkernel would compute a whole block into scratch to keep part of it: one row of C (m = 1),
// up to four columns of C (n = 1; the last 1 to 4 columns of a ragged strip: a 7 x 7 map's 49th
// column, a 14 x 14 map's last 4), up to 8 columns of a ragged strip (the narrow kernel) and fewer
// than 6 rows of all 16 columns (the short kernel: m = 64 leaves 4 rows in its last strip). The
// AVX-512 edge kernels' forms (gemm_edge_avx512.cpp) in eight lanes. Each output is the 6 x 16
// microkernel's own sequence: one accumulator from +0 (or the stored C), p increasing, the A value
// times the B value (A the first factor, avx2::step) then a rounded add in exact mode or one fused
// multiply-add in fast mode (exact-mode.md, "Matrix product"), NaN canonical on the last k-block
// in exact mode: so the bits are the microkernel's (and in exact mode the reference's). Loads and
// stores of C stay inside the valid part (vmaskmovps: masked-off lanes read nothing, no fault,
// hold +0; stores leave them). Compiled with -mavx2 -mfma; called only on the AVX2 path.
#include <immintrin.h>

#include <algorithm>

#include "optimized/kernels/gemm/gemm_lanes_avx2.hpp"
#include "optimized/kernels/gemm/gemm_micro.hpp"

namespace onemodel::opt::gemm {
namespace {

constexpr int kRows = 6;   // MR: a packed A strip holds 6 rows per step of k
constexpr int kCols = 16;  // NR

using avx2::canonical_nan;
using avx2::step;

// All bits set in lanes [0, count) (count at most 8).
inline __m256i first_lanes(std::size_t count) noexcept {
  return _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int>(count)), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}

inline __m256 finish(__m256 acc, std::uint32_t flags) noexcept {
  return (flags & kGemmCanonicalNan) != 0 ? canonical_nan(acc) : acc;
}

// Row 0 of kStrips strips of 16 columns: C[0][j] for j < cols (cols <= 16 * kStrips), strip s
// reading B at b + s * b_step. A's strip holds the row's value of step p at a[p * 6]. The strips'
// accumulators are independent chains (two per strip), so several hide the multiply-add latency.
template <bool kFused, int kStrips>
void row_strips(std::size_t kc, const float* a, const float* b, std::ptrdiff_t b_step, std::ptrdiff_t ldb, float* c,
                std::size_t cols, std::uint32_t flags) noexcept {
  __m256i mask[2 * kStrips];
  __m256 acc[2 * kStrips];
#pragma GCC unroll 8
  for (int v = 0; v < 2 * kStrips; ++v) {
    const std::size_t first = static_cast<std::size_t>(v) * 8;
    mask[v] = first_lanes(cols > first ? std::min<std::size_t>(cols - first, 8) : 0);
    acc[v] = (flags & kGemmAccumulate) != 0 ? _mm256_maskload_ps(c + first, mask[v]) : _mm256_setzero_ps();
  }
  for (std::size_t p = 0; p < kc; ++p) {
    const __m256 av = _mm256_broadcast_ss(a + p * kRows);
#pragma GCC unroll 4
    for (int s = 0; s < kStrips; ++s) {
      const float* bs = b + s * b_step;
      acc[2 * s] = step<kFused>(acc[2 * s], av, _mm256_loadu_ps(bs));
      acc[2 * s + 1] = step<kFused>(acc[2 * s + 1], av, _mm256_loadu_ps(bs + 8));
    }
    b += ldb;
  }
#pragma GCC unroll 8
  for (int v = 0; v < 2 * kStrips; ++v) _mm256_maskstore_ps(c + static_cast<std::size_t>(v) * 8, mask[v], finish(acc[v], flags));
}

template <bool kFused>
void one_row(std::size_t kc, const float* a, const float* b, std::ptrdiff_t b_step, std::ptrdiff_t ldb, float* c,
             std::size_t cols, std::uint32_t flags) noexcept {
  switch ((cols + kCols - 1) / kCols) {
    case 1: return row_strips<kFused, 1>(kc, a, b, b_step, ldb, c, cols, flags);
    case 2: return row_strips<kFused, 2>(kc, a, b, b_step, ldb, c, cols, flags);
    case 3: return row_strips<kFused, 3>(kc, a, b, b_step, ldb, c, cols, flags);
    default: return row_strips<kFused, 4>(kc, a, b, b_step, ldb, c, cols, flags);
  }
}

// Columns [0, kColumns) of kStrips strips of 6 rows (strip s at a + s * a_step), each strip's 6
// rows in one vector per column (lanes 6 and 7 read nothing and are never stored): rows [0, rows)
// of C, rows <= 6 * kStrips. A step loads each strip's A vector once for all the columns, where
// the microkernel would spend a vector per row on 16 columns to keep kColumns.
template <bool kFused, int kStrips, int kColumns>
void column_strips(std::size_t kc, const float* a, std::size_t a_step, const float* b, std::ptrdiff_t ldb, float* c,
                   std::ptrdiff_t ldc, std::size_t rows, std::uint32_t flags) noexcept {
  const __m256i strip = first_lanes(kRows);
  alignas(32) float column[kColumns][8 * kStrips] = {};
  if ((flags & kGemmAccumulate) != 0) {
    for (std::size_t r = 0; r < rows; ++r) {
      for (int j = 0; j < kColumns; ++j) column[j][(r / kRows) * 8 + r % kRows] = c[static_cast<std::ptrdiff_t>(r) * ldc + j];
    }
  }
  __m256 acc[kStrips][kColumns];
#pragma GCC unroll 8
  for (int s = 0; s < kStrips; ++s) {
#pragma GCC unroll 4
    for (int j = 0; j < kColumns; ++j) acc[s][j] = _mm256_load_ps(column[j] + 8 * s);
  }
  for (std::size_t p = 0; p < kc; ++p) {
    __m256 bv[kColumns];
#pragma GCC unroll 4
    for (int j = 0; j < kColumns; ++j) bv[j] = _mm256_broadcast_ss(b + j);
#pragma GCC unroll 8
    for (int s = 0; s < kStrips; ++s) {
      const __m256 av = _mm256_maskload_ps(a + static_cast<std::size_t>(s) * a_step + p * kRows, strip);
#pragma GCC unroll 4
      for (int j = 0; j < kColumns; ++j) acc[s][j] = step<kFused>(acc[s][j], av, bv[j]);
    }
    b += ldb;
  }
#pragma GCC unroll 8
  for (int s = 0; s < kStrips; ++s) {
#pragma GCC unroll 4
    for (int j = 0; j < kColumns; ++j) _mm256_store_ps(column[j] + 8 * s, finish(acc[s][j], flags));
  }
  for (std::size_t r = 0; r < rows; ++r) {
    for (int j = 0; j < kColumns; ++j) c[static_cast<std::ptrdiff_t>(r) * ldc + j] = column[j][(r / kRows) * 8 + r % kRows];
  }
}

// Groups of strips: each strip's accumulator for a column is one chain of dependent multiply-adds,
// so a group keeps 8 to 12 chains (8 strips for one column, 6 for two, 4 for three, 3 for four)
// within the 16 ymm registers with the broadcast B values and one A vector.
template <bool kFused, int kColumns>
void column_groups(std::size_t kc, const float* a, std::size_t a_step, std::size_t strips, const float* b,
                   std::ptrdiff_t ldb, float* c, std::ptrdiff_t ldc, std::size_t rows, std::uint32_t flags) noexcept {
  constexpr std::size_t kGroup = kColumns == 1 ? 8 : kColumns == 2 ? 6 : kColumns == 3 ? 4 : 3;
  for (std::size_t s = 0; s < strips;) {
    const std::size_t group = std::min(kGroup, strips - s);
    const std::size_t first_row = s * kRows;
    const std::size_t group_rows = std::min(rows - first_row, group * kRows);
    const float* as = a + s * a_step;
    float* cs = c + static_cast<std::ptrdiff_t>(first_row) * ldc;
    const auto run = [&]<int kStrips>() {
      if constexpr (kStrips <= static_cast<int>(kGroup)) {
        column_strips<kFused, kStrips, kColumns>(kc, as, a_step, b, ldb, cs, ldc, group_rows, flags);
      }
    };
    switch (group) {
      case 1: run.template operator()<1>(); break;
      case 2: run.template operator()<2>(); break;
      case 3: run.template operator()<3>(); break;
      case 4: run.template operator()<4>(); break;
      case 5: run.template operator()<5>(); break;
      case 6: run.template operator()<6>(); break;
      case 7: run.template operator()<7>(); break;
      default: run.template operator()<8>(); break;
    }
    s += group;
  }
}

template <bool kFused>
void few_columns(std::size_t kc, const float* a, std::size_t a_step, std::size_t strips, const float* b,
                 std::ptrdiff_t ldb, float* c, std::ptrdiff_t ldc, std::size_t rows, std::size_t cols,
                 std::uint32_t flags) noexcept {
  switch (cols) {
    case 0: return;
    case 1: return column_groups<kFused, 1>(kc, a, a_step, strips, b, ldb, c, ldc, rows, flags);
    case 2: return column_groups<kFused, 2>(kc, a, a_step, strips, b, ldb, c, ldc, rows, flags);
    case 3: return column_groups<kFused, 3>(kc, a, a_step, strips, b, ldb, c, ldc, rows, flags);
    default: return column_groups<kFused, 4>(kc, a, a_step, strips, b, ldb, c, ldc, rows, flags);
  }
}

// Rows [0, rows) (rows <= 6) and columns [0, cols) (cols <= 8) of a 6 x 16 block, one vector per
// row. B is read 8 wide from its strip (a packed or filled strip is 16 wide and zero-padded, so
// the lanes past `cols` read +0 or the next columns); C only inside the valid part.
template <bool kFused>
void narrow_block(std::size_t kc, const float* a, const float* b, std::ptrdiff_t ldb, float* c, std::ptrdiff_t ldc,
                  std::size_t rows, std::size_t cols, std::uint32_t flags) noexcept {
  const __m256i mask = first_lanes(cols);
  __m256 acc[kRows];
#pragma GCC unroll 6
  for (int r = 0; r < kRows; ++r) {
    const bool load = (flags & kGemmAccumulate) != 0 && static_cast<std::size_t>(r) < rows;
    acc[r] = load ? _mm256_maskload_ps(c + r * ldc, mask) : _mm256_setzero_ps();
  }
  for (std::size_t p = 0; p < kc; ++p) {
    const __m256 bv = _mm256_loadu_ps(b);
#pragma GCC unroll 6
    for (int r = 0; r < kRows; ++r) acc[r] = step<kFused>(acc[r], _mm256_broadcast_ss(a + r), bv);
    a += kRows;
    b += ldb;
  }
#pragma GCC unroll 6
  for (int r = 0; r < kRows; ++r) {
    if (static_cast<std::size_t>(r) < rows) _mm256_maskstore_ps(c + r * ldc, mask, finish(acc[r], flags));
  }
}

// Rows [0, kValid) (kValid < 6) and all 16 columns of a 6 x 16 block, stored straight to C: the
// microkernel's accumulation for those rows only.
template <bool kFused, int kValid>
void short_rows(std::size_t kc, const float* a, const float* b, std::ptrdiff_t ldb, float* c, std::ptrdiff_t ldc,
                std::uint32_t flags) noexcept {
  __m256 acc0[kValid];
  __m256 acc1[kValid];
#pragma GCC unroll 6
  for (int r = 0; r < kValid; ++r) {
    const bool load = (flags & kGemmAccumulate) != 0;
    acc0[r] = load ? _mm256_loadu_ps(c + r * ldc) : _mm256_setzero_ps();
    acc1[r] = load ? _mm256_loadu_ps(c + r * ldc + 8) : _mm256_setzero_ps();
  }
  for (std::size_t p = 0; p < kc; ++p) {
    const __m256 b0 = _mm256_loadu_ps(b);
    const __m256 b1 = _mm256_loadu_ps(b + 8);
#pragma GCC unroll 6
    for (int r = 0; r < kValid; ++r) {
      const __m256 av = _mm256_broadcast_ss(a + r);
      acc0[r] = step<kFused>(acc0[r], av, b0);
      acc1[r] = step<kFused>(acc1[r], av, b1);
    }
    a += kRows;
    b += ldb;
  }
#pragma GCC unroll 6
  for (int r = 0; r < kValid; ++r) {
    _mm256_storeu_ps(c + r * ldc, finish(acc0[r], flags));
    _mm256_storeu_ps(c + r * ldc + 8, finish(acc1[r], flags));
  }
}

template <bool kFused>
void short_block(std::size_t kc, const float* a, const float* b, std::ptrdiff_t ldb, float* c, std::ptrdiff_t ldc,
                 std::size_t rows, std::uint32_t flags) noexcept {
  switch (rows) {
    case 1: return short_rows<kFused, 1>(kc, a, b, ldb, c, ldc, flags);
    case 2: return short_rows<kFused, 2>(kc, a, b, ldb, c, ldc, flags);
    case 3: return short_rows<kFused, 3>(kc, a, b, ldb, c, ldc, flags);
    case 4: return short_rows<kFused, 4>(kc, a, b, ldb, c, ldc, flags);
    default: return short_rows<kFused, 5>(kc, a, b, ldb, c, ldc, flags);
  }
}

}  // namespace

void f32_gemm_row_6x16__avx2_fma(std::size_t kc, const float* a, const float* b, std::ptrdiff_t b_step,
                                 std::ptrdiff_t ldb, float* c, std::size_t cols, std::uint32_t flags) {
  one_row<true>(kc, a, b, b_step, ldb, c, cols, flags);
}
void f32_gemm_row_6x16__avx2_exact(std::size_t kc, const float* a, const float* b, std::ptrdiff_t b_step,
                                   std::ptrdiff_t ldb, float* c, std::size_t cols, std::uint32_t flags) {
  one_row<false>(kc, a, b, b_step, ldb, c, cols, flags);
}
void f32_gemm_column_6x16__avx2_fma(std::size_t kc, const float* a, std::size_t a_step, std::size_t strips,
                                    const float* b, std::ptrdiff_t ldb, float* c, std::ptrdiff_t ldc, std::size_t rows,
                                    std::size_t cols, std::uint32_t flags) {
  few_columns<true>(kc, a, a_step, strips, b, ldb, c, ldc, rows, cols, flags);
}
void f32_gemm_column_6x16__avx2_exact(std::size_t kc, const float* a, std::size_t a_step, std::size_t strips,
                                      const float* b, std::ptrdiff_t ldb, float* c, std::ptrdiff_t ldc,
                                      std::size_t rows, std::size_t cols, std::uint32_t flags) {
  few_columns<false>(kc, a, a_step, strips, b, ldb, c, ldc, rows, cols, flags);
}
void f32_gemm_narrow_6x8__avx2_fma(std::size_t kc, const float* a, const float* b, std::ptrdiff_t ldb, float* c,
                                   std::ptrdiff_t ldc, std::size_t rows, std::size_t cols, std::uint32_t flags) {
  narrow_block<true>(kc, a, b, ldb, c, ldc, rows, cols, flags);
}
void f32_gemm_narrow_6x8__avx2_exact(std::size_t kc, const float* a, const float* b, std::ptrdiff_t ldb, float* c,
                                     std::ptrdiff_t ldc, std::size_t rows, std::size_t cols, std::uint32_t flags) {
  narrow_block<false>(kc, a, b, ldb, c, ldc, rows, cols, flags);
}
void f32_gemm_short_6x16__avx2_fma(std::size_t kc, const float* a, const float* b, std::ptrdiff_t ldb, float* c,
                                   std::ptrdiff_t ldc, std::size_t rows, std::uint32_t flags) {
  short_block<true>(kc, a, b, ldb, c, ldc, rows, flags);
}
void f32_gemm_short_6x16__avx2_exact(std::size_t kc, const float* a, const float* b, std::ptrdiff_t ldb, float* c,
                                     std::ptrdiff_t ldc, std::size_t rows, std::uint32_t flags) {
  short_block<false>(kc, a, b, ldb, c, ldc, rows, flags);
}

}  // namespace onemodel::opt::gemm
