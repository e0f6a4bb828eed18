// The stride-2 depthwise plane kernel on AVX-512 (depthwise_stride2.hpp). Compiled with the
// AVX-512 flags of cmake/kernel_sources.cmake; called only on the AVX-512 path.
#include <immintrin.h>

#include <cstdint>

#include "optimized/kernels/conv/depthwise_stride2.hpp"
#include "optimized/kernels/gemm/gemm_lanes_avx512.hpp"
#include "optimized/kernels/window/row_lanes_avx512.hpp"

namespace onemodel::opt {
namespace {

using row_lanes::kLanes;
constexpr std::size_t kMaxKernelW = 5;

// One row of the window for sixteen outputs whose first tap column is `base` (may be negative):
// parity[s][0] holds input columns base + s + 2j, parity[s][1] the next sixteen such (only its
// first lanes are used). Lanes outside [0, in_w) are +0 and never read.
struct RowTaps {
  __m512 even, even_next, odd, odd_next;
};

using row_lanes::between;
using row_lanes::load_or_zero;

// Which lanes of the three loads from `base` lie inside the row: the same for every row of a tile,
// so worked out once per tile (per row they had been most of the tile's instructions).
struct RowMasks {
  __mmask16 m0, m1, m2;
};

inline RowMasks row_masks(std::ptrdiff_t in_w, std::ptrdiff_t base) noexcept {
  return RowMasks{between(-base, in_w - base), between(-base - 16, in_w - base - 16),
                  between(-base - 32, in_w - base - 32)};
}

inline RowTaps row_taps(const float* row, std::ptrdiff_t base, const RowMasks& m) noexcept {
  // Three loads cover input columns [base, base + 48).
  const __m512 l0 = load_or_zero(row, base, m.m0);
  const __m512 l1 = load_or_zero(row, base + 16, m.m1);
  const __m512 l2 = load_or_zero(row, base + 32, m.m2);
  const __m512i even = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
  const __m512i odd = _mm512_setr_epi32(1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31);
  // The all-lanes zero-masked forms: the unmasked ones make GCC 12 warn (-Wmaybe-uninitialized
  // on their undefined pass-through operand), an error in the Checked build.
  const __mmask16 all = 0xFFFF;
  return RowTaps{_mm512_permutex2var_ps(l0, even, l1), _mm512_maskz_permutexvar_ps(all, even, l2),
                 _mm512_permutex2var_ps(l0, odd, l1), _mm512_maskz_permutexvar_ps(all, odd, l2)};
}

// Tap column kx = 2q + s of the row: lane j is input column base + kx + 2j.
template <std::size_t kX>
inline __m512 tap(const RowTaps& r) noexcept {
  constexpr int q = static_cast<int>(kX / 2);
  const __m512 cur = kX % 2 == 0 ? r.even : r.odd;
  const __m512 next = kX % 2 == 0 ? r.even_next : r.odd_next;
  if constexpr (q == 0) {
    return cur;
  } else {
    const __mmask16 all = 0xFFFF;
    return _mm512_castsi512_ps(
        _mm512_maskz_alignr_epi32(all, _mm512_castps_si512(next), _mm512_castps_si512(cur), q));
  }
}

// One tap: the weight times the input then rounded add in exact mode, one fused multiply-add in
// fast mode (the product kernels' step, gemm_lanes_avx512.hpp).
template <bool kExact>
inline __m512 step(__m512 acc, __m512 w, __m512 x) noexcept {
  return gemm::avx512::step<!kExact>(acc, w, x);
}

// Output rows [oy0, oy0 + kRows) by kV vectors of sixteen columns from ox0 (those past out_w
// never stored). Input row i of the tile (2 * oy0 + i - pad_top) is loaded and split once per
// vector and feeds every tile row whose window holds it (window row i - 2r of tile row r). Each
// output's taps form one chain of dependent steps, so the tile keeps kRows * kV chains going:
// one output row at a time had been a single chain, each multiply-add waiting for the last, and
// had re-split every input row it shared with the next. Per output the taps still come in
// row-major order: rows ascending with i, columns ascending within a row.
template <std::size_t kW, bool kExact, int kRows, int kV>
void tile(const Conv2dShape& s, const float* in, const float* w, const float* bias, float* out, std::ptrdiff_t oy0,
          std::ptrdiff_t ox0) noexcept {
  const std::ptrdiff_t in_h = static_cast<std::ptrdiff_t>(s.in_h), in_w = static_cast<std::ptrdiff_t>(s.in_w);
  const std::ptrdiff_t out_w = static_cast<std::ptrdiff_t>(s.out_w);
  const std::ptrdiff_t kh = static_cast<std::ptrdiff_t>(s.kernel_h);
  const RowTaps zero_row{_mm512_setzero_ps(), _mm512_setzero_ps(), _mm512_setzero_ps(), _mm512_setzero_ps()};
  std::ptrdiff_t base[kV];
  RowMasks masks[kV];
#pragma GCC unroll 2
  for (int v = 0; v < kV; ++v) {
    base[v] = 2 * (ox0 + v * kLanes) - static_cast<std::ptrdiff_t>(s.pad_left);
    masks[v] = row_masks(in_w, base[v]);
  }
  __m512 acc[kRows][kV];
#pragma GCC unroll 4
  for (int r = 0; r < kRows; ++r) {
#pragma GCC unroll 2
    for (int v = 0; v < kV; ++v) acc[r][v] = _mm512_setzero_ps();  // kernels-depthwise.md: every output starts from +0
  }
  const std::ptrdiff_t rows_in = 2 * (kRows - 1) + kh;
  for (std::ptrdiff_t i = 0; i < rows_in; ++i) {
    const std::ptrdiff_t iy = 2 * oy0 + i - static_cast<std::ptrdiff_t>(s.pad_top);
    // A row in the padding: its taps are products with +0, made all the same.
    const bool inside = iy >= 0 && iy < in_h;
    RowTaps t[kV];
#pragma GCC unroll 2
    for (int v = 0; v < kV; ++v) t[v] = inside ? row_taps(in + iy * in_w, base[v], masks[v]) : zero_row;
#pragma GCC unroll 4
    for (int r = 0; r < kRows; ++r) {
      const std::ptrdiff_t ky = i - 2 * r;
      if (ky < 0 || ky >= kh) continue;
      const float* wr = w + ky * static_cast<std::ptrdiff_t>(kW);
#pragma GCC unroll 2
      for (int v = 0; v < kV; ++v) {
        acc[r][v] = step<kExact>(acc[r][v], _mm512_set1_ps(wr[0]), tap<0>(t[v]));
        acc[r][v] = step<kExact>(acc[r][v], _mm512_set1_ps(wr[1]), tap<1>(t[v]));
        acc[r][v] = step<kExact>(acc[r][v], _mm512_set1_ps(wr[2]), tap<2>(t[v]));
        if constexpr (kW == 5) {
          acc[r][v] = step<kExact>(acc[r][v], _mm512_set1_ps(wr[3]), tap<3>(t[v]));
          acc[r][v] = step<kExact>(acc[r][v], _mm512_set1_ps(wr[4]), tap<4>(t[v]));
        }
      }
    }
  }
#pragma GCC unroll 4
  for (int r = 0; r < kRows; ++r) {
#pragma GCC unroll 2
    for (int v = 0; v < kV; ++v) {
      const std::ptrdiff_t left = out_w - ox0 - v * kLanes;
      if (left <= 0) break;
      __m512 y = acc[r][v];
      if (bias != nullptr) y = _mm512_add_ps(y, _mm512_set1_ps(*bias));  // one rounded addition after the sum
      if constexpr (kExact) y = gemm::avx512::canonical_nan(y);
      const __mmask16 stored = left >= kLanes ? static_cast<__mmask16>(0xFFFF) : static_cast<__mmask16>((1u << left) - 1u);
      _mm512_mask_storeu_ps(out + (oy0 + r) * out_w + ox0 + v * kLanes, stored, y);
    }
  }
}

// One band of kRows output rows: pairs of column vectors, then one vector if one is left.
template <std::size_t kW, bool kExact, int kRows>
void band(const Conv2dShape& s, const float* in, const float* w, const float* bias, float* out,
          std::ptrdiff_t oy0) noexcept {
  const std::ptrdiff_t out_w = static_cast<std::ptrdiff_t>(s.out_w);
  std::ptrdiff_t ox0 = 0;
  for (; ox0 + kLanes < out_w; ox0 += 2 * kLanes) tile<kW, kExact, kRows, 2>(s, in, w, bias, out, oy0, ox0);
  if (ox0 < out_w) tile<kW, kExact, kRows, 1>(s, in, w, bias, out, oy0, ox0);
}

// Bands of four output rows, then the rows left one at a time.
template <std::size_t kW, bool kExact>
void plane(const Conv2dShape& s, const float* in, const float* w, const float* bias, float* out) noexcept {
  constexpr int kTileRows = 4;
  const std::ptrdiff_t out_h = static_cast<std::ptrdiff_t>(s.out_h);
  std::ptrdiff_t oy0 = 0;
  for (; oy0 + kTileRows <= out_h; oy0 += kTileRows) band<kW, kExact, kTileRows>(s, in, w, bias, out, oy0);
  for (; oy0 < out_h; ++oy0) band<kW, kExact, 1>(s, in, w, bias, out, oy0);
}

}  // namespace

void depthwise_stride2_plane__avx512(const Conv2dShape& s, const float* in, const float* w, const float* bias,
                                     float* out, bool exact) noexcept {
  static_assert(kMaxKernelW == 5);
  if (s.kernel_w == 3) {
    return exact ? plane<3, true>(s, in, w, bias, out) : plane<3, false>(s, in, w, bias, out);
  }
  exact ? plane<5, true>(s, in, w, bias, out) : plane<5, false>(s, in, w, bias, out);
}

}  // namespace onemodel::opt
