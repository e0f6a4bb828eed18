// The stride-2 in-place depthwise kernel (depthwise_stride2.hpp), written once over a lane type so
// that the AVX-512 path (sixteen lanes, depthwise_stride2_avx512.cpp) and the AVX2 path (eight
// lanes, depthwise_stride2_avx2.cpp) compute every output in the same order (kernels-depthwise.md
// "What each output is"). Each per-path file defines its lane traits in an anonymous namespace, so
// every function here, a template over them, is instantiated inside that file only (code built
// with the AVX-512 flags is never merged by the linker with the AVX2 file's). Included by per-ISA
// kernel files only.
//
// Lane traits L provide what depthwise_stride1_body.hpp lists (kLanes, Vec, Mask, between, zero,
// set1, load_or_zero, add, step<kExact>, canonical_nan) and: store_first(p, count, v) (the first
// min(count, kLanes) lanes only; count >= 1); split(l0, l1, even, odd) (even: lanes 0, 2, .. of the
// 2 * kLanes floats l0 then l1; odd: lanes 1, 3, ..); split_one(l2, even, odd) (the same from one
// vector: lanes 0 and 1 of each at least, the others anything); shift<q>(cur, next) (lane j is
// lane j + q of cur then next, q = 1 or 2: lanes 0 and 1 of next at most are read).
#pragma once

#include <cstddef>

#include "optimized/kernels/conv/conv2d_shape.hpp"

namespace onemodel::opt::depthwise_stride2_body {

// One row of the window for kLanes outputs whose first tap column is `base` (may be negative):
// even holds input columns base + 2j, odd base + 1 + 2j, and even_next, odd_next the next such
// (only their first lanes are used). Lanes outside [0, in_w) are +0 and never read.
template <class L>
struct RowTaps {
  typename L::Vec even, even_next, odd, odd_next;
};

// Which lanes of the three loads from `base` lie inside the row: the same for every row of a tile,
// so worked out once per tile (per row they had been most of the tile's instructions).
template <class L>
struct RowMasks {
  typename L::Mask m0, m1, m2;
};

template <class L>
inline RowMasks<L> row_masks(std::ptrdiff_t in_w, std::ptrdiff_t base) noexcept {
  constexpr std::ptrdiff_t n = L::kLanes;
  return RowMasks<L>{L::between(-base, in_w - base), L::between(-base - n, in_w - base - n),
                     L::between(-base - 2 * n, in_w - base - 2 * n)};
}

template <class L>
inline RowTaps<L> row_taps(const float* row, std::ptrdiff_t base, const RowMasks<L>& m) noexcept {
  // Three loads cover input columns [base, base + 3 * kLanes).
  const typename L::Vec l0 = L::load_or_zero(row, base, m.m0);
  const typename L::Vec l1 = L::load_or_zero(row, base + L::kLanes, m.m1);
  const typename L::Vec l2 = L::load_or_zero(row, base + 2 * L::kLanes, m.m2);
  RowTaps<L> t;
  L::split(l0, l1, t.even, t.odd);
  L::split_one(l2, t.even_next, t.odd_next);
  return t;
}

// Tap column kx = 2q + s of the row: lane j is input column base + kx + 2j.
template <class L, std::size_t kX>
inline typename L::Vec tap(const RowTaps<L>& r) noexcept {
  constexpr int q = static_cast<int>(kX / 2);
  static_assert(q <= 2, "windows at most 5 wide: shift<q> reads lanes 0 and 1 of the next vectors at most");
  const typename L::Vec cur = kX % 2 == 0 ? r.even : r.odd;
  const typename L::Vec next = kX % 2 == 0 ? r.even_next : r.odd_next;
  if constexpr (q == 0) {
    return cur;
  } else {
    return L::template shift<q>(cur, next);
  }
}

// Output rows [oy0, oy0 + kRows) by kV vectors of kLanes columns from ox0 (those past out_w
// never stored). Input row i of the tile (2 * oy0 + i - pad_top) is loaded and split once per
// vector and feeds every tile row whose window holds it (window row i - 2r of tile row r). Each
// output's taps form one chain of dependent steps, so the tile keeps kRows * kV chains going.
// Per output the taps come in row-major order: rows ascending with i, columns ascending within a
// row.
template <class L, std::size_t kW, bool kExact, int kRows, int kV>
void tile(const Conv2dShape& s, const float* in, const float* w, const float* bias, float* out, std::ptrdiff_t oy0,
          std::ptrdiff_t ox0) noexcept {
  using Vec = typename L::Vec;
  constexpr std::ptrdiff_t kLanes = L::kLanes;
  const std::ptrdiff_t in_h = static_cast<std::ptrdiff_t>(s.in_h), in_w = static_cast<std::ptrdiff_t>(s.in_w);
  const std::ptrdiff_t out_w = static_cast<std::ptrdiff_t>(s.out_w);
  const std::ptrdiff_t kh = static_cast<std::ptrdiff_t>(s.kernel_h);
  const RowTaps<L> zero_row{L::zero(), L::zero(), L::zero(), L::zero()};
  std::ptrdiff_t base[kV];
  RowMasks<L> masks[kV];
#pragma GCC unroll 2
  for (int v = 0; v < kV; ++v) {
    base[v] = 2 * (ox0 + v * kLanes) - static_cast<std::ptrdiff_t>(s.pad_left);
    masks[v] = row_masks<L>(in_w, base[v]);
  }
  Vec acc[kRows][kV];
#pragma GCC unroll 4
  for (int r = 0; r < kRows; ++r) {
#pragma GCC unroll 2
    for (int v = 0; v < kV; ++v) acc[r][v] = L::zero();  // kernels-depthwise.md: every output starts from +0
  }
  const std::ptrdiff_t rows_in = 2 * (kRows - 1) + kh;
  for (std::ptrdiff_t i = 0; i < rows_in; ++i) {
    const std::ptrdiff_t iy = 2 * oy0 + i - static_cast<std::ptrdiff_t>(s.pad_top);
    // A row in the padding: its taps are products with +0, made all the same.
    const bool inside = iy >= 0 && iy < in_h;
    RowTaps<L> t[kV];
#pragma GCC unroll 2
    for (int v = 0; v < kV; ++v) t[v] = inside ? row_taps<L>(in + iy * in_w, base[v], masks[v]) : zero_row;
#pragma GCC unroll 4
    for (int r = 0; r < kRows; ++r) {
      const std::ptrdiff_t ky = i - 2 * r;
      if (ky < 0 || ky >= kh) continue;
      const float* wr = w + ky * static_cast<std::ptrdiff_t>(kW);
#pragma GCC unroll 2
      for (int v = 0; v < kV; ++v) {
        acc[r][v] = L::template step<kExact>(acc[r][v], L::set1(wr[0]), tap<L, 0>(t[v]));
        acc[r][v] = L::template step<kExact>(acc[r][v], L::set1(wr[1]), tap<L, 1>(t[v]));
        acc[r][v] = L::template step<kExact>(acc[r][v], L::set1(wr[2]), tap<L, 2>(t[v]));
        if constexpr (kW == 5) {
          acc[r][v] = L::template step<kExact>(acc[r][v], L::set1(wr[3]), tap<L, 3>(t[v]));
          acc[r][v] = L::template step<kExact>(acc[r][v], L::set1(wr[4]), tap<L, 4>(t[v]));
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
      Vec y = acc[r][v];
      if (bias != nullptr) y = L::add(y, L::set1(*bias));  // one rounded addition after the sum
      if constexpr (kExact) y = L::canonical_nan(y);
      L::store_first(out + (oy0 + r) * out_w + ox0 + v * kLanes, left, y);
    }
  }
}

// One band of kRows output rows: pairs of column vectors, then one vector if one is left.
template <class L, std::size_t kW, bool kExact, int kRows>
void band(const Conv2dShape& s, const float* in, const float* w, const float* bias, float* out,
          std::ptrdiff_t oy0) noexcept {
  constexpr std::ptrdiff_t kLanes = L::kLanes;
  const std::ptrdiff_t out_w = static_cast<std::ptrdiff_t>(s.out_w);
  std::ptrdiff_t ox0 = 0;
  for (; ox0 + kLanes < out_w; ox0 += 2 * kLanes) tile<L, kW, kExact, kRows, 2>(s, in, w, bias, out, oy0, ox0);
  if (ox0 < out_w) tile<L, kW, kExact, kRows, 1>(s, in, w, bias, out, oy0, ox0);
}

// Bands of four output rows, then the rows left one at a time.
template <class L, std::size_t kW, bool kExact>
void plane(const Conv2dShape& s, const float* in, const float* w, const float* bias, float* out) noexcept {
  constexpr int kTileRows = 4;
  const std::ptrdiff_t out_h = static_cast<std::ptrdiff_t>(s.out_h);
  std::ptrdiff_t oy0 = 0;
  for (; oy0 + kTileRows <= out_h; oy0 += kTileRows) band<L, kW, kExact, kTileRows>(s, in, w, bias, out, oy0);
  for (; oy0 < out_h; ++oy0) band<L, kW, kExact, 1>(s, in, w, bias, out, oy0);
}

// One output plane (depthwise_stride2.hpp): 3- or 5-wide windows.
template <class L>
void run(const Conv2dShape& s, const float* in, const float* w, const float* bias, float* out, bool exact) noexcept {
  if (s.kernel_w == 3) {
    return exact ? plane<L, 3, true>(s, in, w, bias, out) : plane<L, 3, false>(s, in, w, bias, out);
  }
  exact ? plane<L, 5, true>(s, in, w, bias, out) : plane<L, 5, false>(s, in, w, bias, out);
}

}  // namespace onemodel::opt::depthwise_stride2_body
