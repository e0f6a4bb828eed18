// The unstrided in-place depthwise kernel (depthwise_stride1.hpp), written once over a lane type so
// that the AVX-512 path (sixteen lanes, depthwise_stride1_avx512.cpp) and the AVX2 path (eight
// lanes, depthwise_stride1_avx2.cpp) compute every output in the same order (kernels-depthwise.md
// "What each output is"). Each per-path file defines its lane traits in an anonymous namespace, so
// every function here, a template over them, is instantiated inside that file only: code built
// with the AVX-512 flags is never merged by the linker with the AVX2 file's. Included by per-ISA
// kernel files only.
//
// Lane traits L provide: kLanes; Vec (kLanes floats) and Mask (a set of lanes); between(lo, hi)
// (lanes t with lo <= t < hi); zero(); set1(f); loadu(p); load_or_zero(row, at, mask) (kLanes
// floats from row[at], lanes outside `mask` read nothing and hold +0; the address is formed as an
// integer, so for those lanes it may lie outside the row); storeu(p, v); add(a, b) (one rounded
// addition); step<kExact>(acc, w, x) (exact: w * x rounded, then acc + it rounded; fast: one fused
// multiply-add); canonical_nan(v) (NaN lanes become 0x7FC00000).
#pragma once

#include <cstddef>

#include "optimized/kernels/conv/conv2d_shape.hpp"

namespace onemodel::opt::depthwise_stride1_body {

// Output rows per tile: an input row is loaded once per window column and vector and feeds every
// row of the tile whose window holds it (up to four), instead of once per output row.
inline constexpr int kTileRows = 4;

struct Plane {
  const float* in;
  const float* w;
  const float* bias;
  float* out;
  std::ptrdiff_t in_h, in_w, out_w, pad_top, pad_left;
};

// Output rows [oy0, oy0 + kRows) by kVecs vectors of kLanes columns from xs[c] (inside the output
// row: the last vector of a row is moved back to end at its last column, and the overlap computes
// the same values again). kMasked: some load reaches outside the input (a column past an edge, a
// row in the padding), so loads are masked: the column masks once per tile, and a row in the
// padding loads with no lane at all (+0). Otherwise every load is whole. The accumulators are
// independent chains, each over its output's taps in row-major order: input row i (ascending) holds
// window row i - r of tile row r, and its window columns come in ascending order.
template <class L, int kW, bool kExact, int kRows, int kVecs, bool kMasked>
void tile(const Plane& p, std::ptrdiff_t oy0, const std::ptrdiff_t (&xs)[kVecs],
          const typename L::Vec (&w)[kW * kW]) noexcept {
  using Vec = typename L::Vec;
  Vec acc[kRows][kVecs];
#pragma GCC unroll 4
  for (int r = 0; r < kRows; ++r) {
#pragma GCC unroll 2
    for (int c = 0; c < kVecs; ++c) acc[r][c] = L::zero();  // every output starts from +0
  }
  [[maybe_unused]] typename L::Mask columns[kVecs][kW];
  if constexpr (kMasked) {
    for (int c = 0; c < kVecs; ++c) {
      for (int kx = 0; kx < kW; ++kx) {
        const std::ptrdiff_t at = xs[c] + kx - p.pad_left;
        columns[c][kx] = L::between(-at, p.in_w - at);
      }
    }
  }
#pragma GCC unroll 10
  for (int i = 0; i < kRows + kW - 1; ++i) {
    const std::ptrdiff_t iy = oy0 + i - p.pad_top;
    // A row in the padding: its taps are products with +0 (only masked tiles reach one). The test
    // is one predictable branch per row rather than a mask operation per load: those run on the
    // ports of the multiply-adds.
    const bool inside = !kMasked || (iy >= 0 && iy < p.in_h);
    const float* row = p.in + (inside ? iy * p.in_w : 0);
#pragma GCC unroll 7
    for (int kx = 0; kx < kW; ++kx) {
      Vec v[kVecs];
#pragma GCC unroll 2
      for (int c = 0; c < kVecs; ++c) {
        const std::ptrdiff_t at = xs[c] + kx - p.pad_left;
        if constexpr (kMasked) {
          v[c] = inside ? L::load_or_zero(row, at, columns[c][kx]) : L::zero();
        } else {
          v[c] = L::loadu(row + at);
        }
      }
#pragma GCC unroll 4
      for (int r = 0; r < kRows; ++r) {
        const int ky = i - r;
        if (ky < 0 || ky >= kW) continue;
        const Vec wv = w[ky * kW + kx];
#pragma GCC unroll 2
        for (int c = 0; c < kVecs; ++c) acc[r][c] = L::template step<kExact>(acc[r][c], wv, v[c]);
      }
    }
  }
#pragma GCC unroll 4
  for (int r = 0; r < kRows; ++r) {
    float* out_row = p.out + (oy0 + r) * p.out_w;
#pragma GCC unroll 2
    for (int c = 0; c < kVecs; ++c) {
      Vec y = acc[r][c];
      if (p.bias != nullptr) y = L::add(y, L::set1(*p.bias));  // one rounded addition
      if constexpr (kExact) y = L::canonical_nan(y);
      L::storeu(out_row + xs[c], y);
    }
  }
}

// Whether every load of a tile of kRows rows from oy0 and the vectors from xs stays inside the input.
template <class L, int kW, int kRows, int kVecs>
bool whole(const Plane& p, std::ptrdiff_t oy0, const std::ptrdiff_t (&xs)[kVecs]) noexcept {
  for (const std::ptrdiff_t x : xs) {
    if (x - p.pad_left < 0 || x + L::kLanes - 1 + (kW - 1) - p.pad_left >= p.in_w) return false;
  }
  return oy0 - p.pad_top >= 0 && oy0 + kRows - 1 + (kW - 1) - p.pad_top < p.in_h;
}

template <class L, int kW, bool kExact, int kRows, int kVecs>
void any_tile(const Plane& p, std::ptrdiff_t oy0, const std::ptrdiff_t (&xs)[kVecs],
              const typename L::Vec (&w)[kW * kW]) noexcept {
  if (whole<L, kW, kRows, kVecs>(p, oy0, xs)) {
    tile<L, kW, kExact, kRows, kVecs, false>(p, oy0, xs, w);
  } else {
    tile<L, kW, kExact, kRows, kVecs, true>(p, oy0, xs, w);
  }
}

// The first column of vector v of a row: v * kLanes, the last vector moved back to end at the
// row's last column (out_w >= kLanes).
template <class L>
inline std::ptrdiff_t column(const Plane& p, std::ptrdiff_t v) noexcept {
  return v * L::kLanes + L::kLanes <= p.out_w ? v * L::kLanes : p.out_w - L::kLanes;
}

// One row of tiles: pairs of vectors (3x3 windows; single vectors for 7x7, whose weights fill the
// registers), then a single vector if one is left.
template <class L, int kW, bool kExact, int kRows>
void tile_row(const Plane& p, std::ptrdiff_t oy0, const typename L::Vec (&w)[kW * kW]) noexcept {
  const std::ptrdiff_t vectors = (p.out_w + L::kLanes - 1) / L::kLanes;
  std::ptrdiff_t v = 0;
  if constexpr (kW == 3) {
    for (; v + 2 <= vectors; v += 2) {
      any_tile<L, kW, kExact, kRows, 2>(p, oy0, {column<L>(p, v), column<L>(p, v + 1)}, w);
    }
  }
  for (; v < vectors; ++v) any_tile<L, kW, kExact, kRows, 1>(p, oy0, {column<L>(p, v)}, w);
}

template <class L, int kW, bool kExact>
void plane(const Conv2dShape& s, const float* in, const float* w, const float* bias, float* out) noexcept {
  const Plane p{in,
                w,
                bias,
                out,
                static_cast<std::ptrdiff_t>(s.in_h),
                static_cast<std::ptrdiff_t>(s.in_w),
                static_cast<std::ptrdiff_t>(s.out_w),
                static_cast<std::ptrdiff_t>(s.pad_top),
                static_cast<std::ptrdiff_t>(s.pad_left)};
  typename L::Vec weights[kW * kW];  // broadcast once per plane
  for (int t = 0; t < kW * kW; ++t) weights[t] = L::set1(w[t]);
  const std::ptrdiff_t out_h = static_cast<std::ptrdiff_t>(s.out_h);
  std::ptrdiff_t oy0 = 0;
  for (; oy0 + kTileRows <= out_h; oy0 += kTileRows) tile_row<L, kW, kExact, kTileRows>(p, oy0, weights);
  for (; oy0 < out_h; ++oy0) tile_row<L, kW, kExact, 1>(p, oy0, weights);
}

// One output plane (depthwise_stride1.hpp): 3x3 or 7x7 windows.
template <class L>
void run(const Conv2dShape& s, const float* in, const float* w, const float* bias, float* out, bool exact) noexcept {
  if (s.kernel_w == 3) {
    return exact ? plane<L, 3, true>(s, in, w, bias, out) : plane<L, 3, false>(s, in, w, bias, out);
  }
  exact ? plane<L, 7, true>(s, in, w, bias, out) : plane<L, 7, false>(s, in, w, bias, out);
}

}  // namespace onemodel::opt::depthwise_stride1_body
