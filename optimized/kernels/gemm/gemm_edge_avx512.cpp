// AVX-512 kernels for the thin edges of a product (gemm_micro.hpp, "Edge kernels"): one row of C
// (m = 1, a Linear layer at batch 1) and up to four columns of C (n = 1, the 1x1 convolutions of a
// squeeze-and-excitation block on a 1 x 1 map; the last 1 to 4 columns of a ragged strip, such as
// the 196th of a 14 x 14 map's). The 12 x 32 microkernel would compute 12 rows or 32 columns there
// to keep a few; these compute those. Each output is the microkernel's own
// sequence: one accumulator, p increasing, the A value times the B value (operands in the same
// order) then rounded add in exact mode or a fused multiply-add in fast mode (exact-mode.md,
// "Matrix product"), so results are the 12 x 32 microkernel's bits. Masked loads and stores stay
// inside the valid part (AVX-512 masking suppresses faults on the lanes left out).
#include <immintrin.h>

#include <algorithm>

#include "optimized/kernels/gemm/gemm_lanes_avx2.hpp"
#include "optimized/kernels/gemm/gemm_lanes_avx512.hpp"
#include "optimized/kernels/gemm/gemm_micro.hpp"

namespace onemodel::opt::gemm {
namespace {

constexpr int kRows = 12;
constexpr int kCols = 32;

using avx512::canonical_nan;
using avx512::step;

inline __mmask16 first_lanes(std::size_t count) noexcept {
  return count >= 16 ? static_cast<__mmask16>(0xFFFF) : static_cast<__mmask16>((1u << count) - 1u);
}

// Row 0 of up to kGroup strips of 32 columns: C[0][j] for j < cols (cols <= 32 * kGroup), strip s
// reading B at b + s * b_step. A's strip holds the row's value of step p at a[p * 12]. The strips'
// accumulators are independent chains, so kGroup of them hide the multiply-add latency.
template <bool kFused, int kStrips>
void row_strips(std::size_t kc, const float* a, const float* b, std::ptrdiff_t b_step, std::ptrdiff_t ldb, float* c,
                std::size_t cols, std::uint32_t flags) noexcept {
  __mmask16 mask[2 * kStrips];
  __m512 acc[2 * kStrips];
#pragma GCC unroll 8
  for (int v = 0; v < 2 * kStrips; ++v) {
    const std::size_t first = static_cast<std::size_t>(v) * 16;
    mask[v] = first_lanes(cols > first ? cols - first : 0);
    acc[v] = (flags & kGemmAccumulate) != 0 ? _mm512_maskz_loadu_ps(mask[v], c + first) : _mm512_setzero_ps();
  }
  for (std::size_t p = 0; p < kc; ++p) {
    const __m512 av = _mm512_set1_ps(a[p * kRows]);
#pragma GCC unroll 4
    for (int s = 0; s < kStrips; ++s) {
      const float* bs = b + s * b_step;
      acc[2 * s] = step<kFused>(acc[2 * s], av, _mm512_loadu_ps(bs));
      acc[2 * s + 1] = step<kFused>(acc[2 * s + 1], av, _mm512_loadu_ps(bs + 16));
    }
    b += ldb;
  }
#pragma GCC unroll 8
  for (int v = 0; v < 2 * kStrips; ++v) {
    const __m512 out = (flags & kGemmCanonicalNan) != 0 ? canonical_nan(acc[v]) : acc[v];
    _mm512_mask_storeu_ps(c + static_cast<std::size_t>(v) * 16, mask[v], out);
  }
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

// Columns [0, kCols) of kStrips strips of 12 rows (strip s at a + s * a_step), each strip's 12
// rows in one vector per column: rows [0, rows) of C, rows <= 12 * kStrips. A step loads each
// strip's A vector once for all the columns (the narrow kernel would spend one vector per row on
// them: 12 multiply-adds per step where this spends kCols).
template <bool kFused, int kStrips, int kCols>
void column_strips(std::size_t kc, const float* a, std::size_t a_step, const float* b, std::ptrdiff_t ldb, float* c,
                   std::ptrdiff_t ldc, std::size_t rows, std::uint32_t flags) noexcept {
  const __mmask16 strip = first_lanes(kRows);
  alignas(64) float column[kCols][16 * kStrips] = {};
  if ((flags & kGemmAccumulate) != 0) {
    for (std::size_t r = 0; r < rows; ++r) {
      for (int j = 0; j < kCols; ++j) column[j][(r / kRows) * 16 + r % kRows] = c[static_cast<std::ptrdiff_t>(r) * ldc + j];
    }
  }
  __m512 acc[kStrips][kCols];
#pragma GCC unroll 8
  for (int s = 0; s < kStrips; ++s) {
#pragma GCC unroll 4
    for (int j = 0; j < kCols; ++j) acc[s][j] = _mm512_load_ps(column[j] + 16 * s);
  }
  for (std::size_t p = 0; p < kc; ++p) {
    __m512 bv[kCols];
#pragma GCC unroll 4
    for (int j = 0; j < kCols; ++j) bv[j] = _mm512_set1_ps(b[j]);
#pragma GCC unroll 8
    for (int s = 0; s < kStrips; ++s) {
      // The packed strip's rows past m are +0; lanes 12..15 are never stored.
      const __m512 av = _mm512_maskz_loadu_ps(strip, a + static_cast<std::size_t>(s) * a_step + p * kRows);
#pragma GCC unroll 4
      for (int j = 0; j < kCols; ++j) acc[s][j] = step<kFused>(acc[s][j], av, bv[j]);
    }
    b += ldb;
  }
#pragma GCC unroll 8
  for (int s = 0; s < kStrips; ++s) {
#pragma GCC unroll 4
    for (int j = 0; j < kCols; ++j) {
      _mm512_store_ps(column[j] + 16 * s, (flags & kGemmCanonicalNan) != 0 ? canonical_nan(acc[s][j]) : acc[s][j]);
    }
  }
  for (std::size_t r = 0; r < rows; ++r) {
    for (int j = 0; j < kCols; ++j) c[static_cast<std::ptrdiff_t>(r) * ldc + j] = column[j][(r / kRows) * 16 + r % kRows];
  }
}

// A ragged tail of a 12 x 32 block: rows [0, rows) (rows <= 12) and columns [0, cols) (cols <= 16)
// of C, one vector per row, so a strip that keeps 17 of its 32 columns costs 16 + 1 columns of
// work rather than 32 (the driver gives the 17th to the column kernel). B is read 16 wide from
// its strip (packed strips are zero-padded, so the lanes past `cols` read +0 or the next columns);
// C only inside the valid part.
template <bool kFused>
void narrow_block(std::size_t kc, const float* a, const float* b, std::ptrdiff_t ldb, float* c, std::ptrdiff_t ldc,
                  std::size_t rows, std::size_t cols, std::uint32_t flags) noexcept {
  const __mmask16 mask = first_lanes(cols);
  __m512 acc[kRows];
#pragma GCC unroll 12
  for (int r = 0; r < kRows; ++r) {
    const bool load = (flags & kGemmAccumulate) != 0 && static_cast<std::size_t>(r) < rows;
    acc[r] = load ? _mm512_maskz_loadu_ps(mask, c + r * ldc) : _mm512_setzero_ps();
  }
  for (std::size_t p = 0; p < kc; ++p) {
    const __m512 bv = _mm512_loadu_ps(b);
#pragma GCC unroll 12
    for (int r = 0; r < kRows; ++r) acc[r] = step<kFused>(acc[r], _mm512_set1_ps(a[r]), bv);
    a += kRows;
    b += ldb;
  }
  for (std::size_t r = 0; r < rows; ++r) {
    const __m512 out = (flags & kGemmCanonicalNan) != 0 ? canonical_nan(acc[r]) : acc[r];
    _mm512_mask_storeu_ps(c + static_cast<std::ptrdiff_t>(r) * ldc, mask, out);
  }
}

// The body of a ragged block in 16 lanes (__m512) or 8 (__m256, AVX-512VL masks): one row's
// accumulator of the body columns.
struct Lanes16 {
  using V = __m512;
  using Mask = __mmask16;
  static constexpr int kWidth = 16;
  static Mask mask(std::size_t count) noexcept { return first_lanes(count); }
  static V zero() noexcept { return _mm512_setzero_ps(); }
  static V broadcast(float v) noexcept { return _mm512_set1_ps(v); }
  static V load(Mask m, const float* p) noexcept { return _mm512_maskz_loadu_ps(m, p); }
  static void store(float* p, Mask m, V v) noexcept { _mm512_mask_storeu_ps(p, m, v); }
  template <bool kFused>
  static V step(V acc, V a, V b) noexcept { return avx512::step<kFused>(acc, a, b); }
  static V canonical(V v) noexcept { return avx512::canonical_nan(v); }
};
struct Lanes8 {
  using V = __m256;
  using Mask = __mmask8;
  static constexpr int kWidth = 8;
  static Mask mask(std::size_t count) noexcept {
    return count >= 8 ? static_cast<Mask>(0xFF) : static_cast<Mask>((1u << count) - 1u);
  }
  static V zero() noexcept { return _mm256_setzero_ps(); }
  static V broadcast(float v) noexcept { return _mm256_set1_ps(v); }
  static V load(Mask m, const float* p) noexcept { return _mm256_maskz_loadu_ps(m, p); }
  static void store(float* p, Mask m, V v) noexcept { _mm256_mask_storeu_ps(p, m, v); }
  template <bool kFused>
  static V step(V acc, V a, V b) noexcept { return avx2::step<kFused>(acc, a, b); }
  static V canonical(V v) noexcept { return avx2::canonical_nan(v); }
};

// A ragged block: `body` columns (at most the lanes' width) as narrow_block computes them (the 12
// A values broadcast, one B vector per step) and, when kTail > 0 (then body is the full width),
// kTail more as column_strips does (the strip's 12 A values as one vector, each B value
// broadcast), all in one pass over the A strip (gemm_micro.hpp, the narrow tail kernel). The tail's 12
// rows sit in lanes, so C's tail columns go through a small transposing buffer.
template <class L, bool kFused, int kTail>
void ragged_block(std::size_t kc, const float* a, const float* b, std::ptrdiff_t ldb, float* c, std::ptrdiff_t ldc,
                  std::size_t rows, std::size_t body, std::uint32_t flags) noexcept {
  using V = typename L::V;
  const typename L::Mask lanes = L::mask(body);
  const __mmask16 strip = first_lanes(kRows);
  alignas(64) float column[kTail > 0 ? kTail : 1][16] = {};
  V acc[kRows];
  __m512 tail[kTail > 0 ? kTail : 1];
  const bool accumulate = (flags & kGemmAccumulate) != 0;
  // Constant indices into acc throughout (a loop to `rows` had kept the accumulators in memory).
#pragma GCC unroll 12
  for (int r = 0; r < kRows; ++r) {
    const bool load = accumulate && static_cast<std::size_t>(r) < rows;
    acc[r] = load ? L::load(lanes, c + r * ldc) : L::zero();
  }
  if (accumulate) {
    for (std::size_t r = 0; r < rows; ++r) {
      for (int j = 0; j < kTail; ++j) column[j][r] = c[static_cast<std::ptrdiff_t>(r) * ldc + L::kWidth + j];
    }
  }
#pragma GCC unroll 4
  for (int j = 0; j < kTail; ++j) tail[j] = _mm512_load_ps(column[j]);
  for (std::size_t p = 0; p < kc; ++p) {
    const V bv = L::load(lanes, b);
#pragma GCC unroll 12
    for (int r = 0; r < kRows; ++r) acc[r] = L::template step<kFused>(acc[r], L::broadcast(a[r]), bv);
    if constexpr (kTail > 0) {
      // The packed strip's rows past m are +0; lanes 12..15 are never stored.
      const __m512 av = _mm512_maskz_loadu_ps(strip, a);
#pragma GCC unroll 4
      for (int j = 0; j < kTail; ++j) tail[j] = step<kFused>(tail[j], av, _mm512_set1_ps(b[L::kWidth + j]));
    }
    a += kRows;
    b += ldb;
  }
  const bool canonical = (flags & kGemmCanonicalNan) != 0;
#pragma GCC unroll 12
  for (int r = 0; r < kRows; ++r) {
    if (static_cast<std::size_t>(r) < rows) L::store(c + r * ldc, lanes, canonical ? L::canonical(acc[r]) : acc[r]);
  }
  if constexpr (kTail > 0) {
#pragma GCC unroll 4
    for (int j = 0; j < kTail; ++j) _mm512_store_ps(column[j], canonical ? canonical_nan(tail[j]) : tail[j]);
    for (std::size_t r = 0; r < rows; ++r) {
      for (int j = 0; j < kTail; ++j) c[static_cast<std::ptrdiff_t>(r) * ldc + L::kWidth + j] = column[j][r];
    }
  }
}

// The narrow tail kernel: 16 columns and 1 to 4 more (cols 17 to 20).
template <bool kFused>
void narrow_tail(std::size_t kc, const float* a, const float* b, std::ptrdiff_t ldb, float* c, std::ptrdiff_t ldc,
                 std::size_t rows, std::size_t cols, std::uint32_t flags) noexcept {
  switch (cols - 16) {
    case 1: return ragged_block<Lanes16, kFused, 1>(kc, a, b, ldb, c, ldc, rows, 16, flags);
    case 2: return ragged_block<Lanes16, kFused, 2>(kc, a, b, ldb, c, ldc, rows, 16, flags);
    case 3: return ragged_block<Lanes16, kFused, 3>(kc, a, b, ldb, c, ldc, rows, 16, flags);
    default: return ragged_block<Lanes16, kFused, 4>(kc, a, b, ldb, c, ldc, rows, 16, flags);
  }
}

// The half-narrow kernel (gemm_micro.hpp, NarrowKernel with cols <= 12): up to 8 columns in 8
// lanes, or 8 and 1 to 4 more.
template <bool kFused>
void half_narrow(std::size_t kc, const float* a, const float* b, std::ptrdiff_t ldb, float* c, std::ptrdiff_t ldc,
                 std::size_t rows, std::size_t cols, std::uint32_t flags) noexcept {
  switch (cols) {
    case 9: return ragged_block<Lanes8, kFused, 1>(kc, a, b, ldb, c, ldc, rows, 8, flags);
    case 10: return ragged_block<Lanes8, kFused, 2>(kc, a, b, ldb, c, ldc, rows, 8, flags);
    case 11: return ragged_block<Lanes8, kFused, 3>(kc, a, b, ldb, c, ldc, rows, 8, flags);
    case 12: return ragged_block<Lanes8, kFused, 4>(kc, a, b, ldb, c, ldc, rows, 8, flags);
    default: return ragged_block<Lanes8, kFused, 0>(kc, a, b, ldb, c, ldc, rows, cols, flags);
  }
}

// Groups of strips (a tile's 96 rows): each strip's accumulator for a column is one chain of
// dependent multiply-adds, so 8 to 12 chains per group keep the two FMA pipes' four-cycle latency
// covered where four left half of it idle (the 49th column of a 7 x 7 map, run for all of a
// tile's strips): 8 strips for one column, 6 for two, 4 for three, 3 for four.
template <bool kFused, int kCols>
void column_groups(std::size_t kc, const float* a, std::size_t a_step, std::size_t strips, const float* b,
                   std::ptrdiff_t ldb, float* c, std::ptrdiff_t ldc, std::size_t rows, std::uint32_t flags) noexcept {
  constexpr std::size_t kGroup = kCols == 1 ? 8 : kCols == 2 ? 6 : kCols == 3 ? 4 : 3;
  for (std::size_t s = 0; s < strips;) {
    const std::size_t group = std::min(kGroup, strips - s);
    const std::size_t first_row = s * kRows;
    const std::size_t group_rows = std::min(rows - first_row, group * kRows);
    const float* as = a + s * a_step;
    float* cs = c + static_cast<std::ptrdiff_t>(first_row) * ldc;
    // Only the group sizes this column count can take are instantiated (at most kGroup strips).
    const auto run = [&]<int kStrips>() {
      if constexpr (kStrips <= static_cast<int>(kGroup)) {
        column_strips<kFused, kStrips, kCols>(kc, as, a_step, b, ldb, cs, ldc, group_rows, flags);
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

}  // namespace

void f32_gemm_row_12x32__avx512_fma(std::size_t kc, const float* a, const float* b, std::ptrdiff_t b_step,
                                    std::ptrdiff_t ldb, float* c, std::size_t cols, std::uint32_t flags) {
  one_row<true>(kc, a, b, b_step, ldb, c, cols, flags);
}
void f32_gemm_row_12x32__avx512_exact(std::size_t kc, const float* a, const float* b, std::ptrdiff_t b_step,
                                      std::ptrdiff_t ldb, float* c, std::size_t cols, std::uint32_t flags) {
  one_row<false>(kc, a, b, b_step, ldb, c, cols, flags);
}
void f32_gemm_column_12x32__avx512_fma(std::size_t kc, const float* a, std::size_t a_step, std::size_t strips,
                                       const float* b, std::ptrdiff_t ldb, float* c, std::ptrdiff_t ldc,
                                       std::size_t rows, std::size_t cols, std::uint32_t flags) {
  few_columns<true>(kc, a, a_step, strips, b, ldb, c, ldc, rows, cols, flags);
}
void f32_gemm_column_12x32__avx512_exact(std::size_t kc, const float* a, std::size_t a_step, std::size_t strips,
                                         const float* b, std::ptrdiff_t ldb, float* c, std::ptrdiff_t ldc,
                                         std::size_t rows, std::size_t cols, std::uint32_t flags) {
  few_columns<false>(kc, a, a_step, strips, b, ldb, c, ldc, rows, cols, flags);
}

void f32_gemm_narrow_12x16__avx512_fma(std::size_t kc, const float* a, const float* b, std::ptrdiff_t ldb, float* c,
                                       std::ptrdiff_t ldc, std::size_t rows, std::size_t cols, std::uint32_t flags) {
  narrow_block<true>(kc, a, b, ldb, c, ldc, rows, cols, flags);
}
void f32_gemm_narrow_12x16__avx512_exact(std::size_t kc, const float* a, const float* b, std::ptrdiff_t ldb, float* c,
                                         std::ptrdiff_t ldc, std::size_t rows, std::size_t cols, std::uint32_t flags) {
  narrow_block<false>(kc, a, b, ldb, c, ldc, rows, cols, flags);
}

void f32_gemm_narrow_tail_12x20__avx512_fma(std::size_t kc, const float* a, const float* b, std::ptrdiff_t ldb,
                                            float* c, std::ptrdiff_t ldc, std::size_t rows, std::size_t cols,
                                            std::uint32_t flags) {
  narrow_tail<true>(kc, a, b, ldb, c, ldc, rows, cols, flags);
}
void f32_gemm_narrow_tail_12x20__avx512_exact(std::size_t kc, const float* a, const float* b, std::ptrdiff_t ldb,
                                              float* c, std::ptrdiff_t ldc, std::size_t rows, std::size_t cols,
                                              std::uint32_t flags) {
  narrow_tail<false>(kc, a, b, ldb, c, ldc, rows, cols, flags);
}

void f32_gemm_half_narrow_12x12__avx512_fma(std::size_t kc, const float* a, const float* b, std::ptrdiff_t ldb,
                                            float* c, std::ptrdiff_t ldc, std::size_t rows, std::size_t cols,
                                            std::uint32_t flags) {
  half_narrow<true>(kc, a, b, ldb, c, ldc, rows, cols, flags);
}
void f32_gemm_half_narrow_12x12__avx512_exact(std::size_t kc, const float* a, const float* b, std::ptrdiff_t ldb,
                                              float* c, std::ptrdiff_t ldc, std::size_t rows, std::size_t cols,
                                              std::uint32_t flags) {
  half_narrow<false>(kc, a, b, ldb, c, ldc, rows, cols, flags);
}

}  // namespace onemodel::opt::gemm
