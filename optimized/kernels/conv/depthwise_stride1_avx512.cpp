// The unstrided depthwise plane kernel on AVX-512 (depthwise_stride1.hpp). Compiled with the
// AVX-512 flags of cmake/kernel_sources.cmake; called only on the AVX-512 path.
#include <immintrin.h>

#include <cstdint>

#include "optimized/kernels/conv/depthwise_stride1.hpp"
#include "optimized/kernels/gemm/gemm_lanes_avx512.hpp"
#include "optimized/kernels/window/row_lanes_avx512.hpp"

namespace onemodel::opt {
namespace {

using row_lanes::kLanes;
// Output rows per tile: an input row is loaded once per window column and vector and feeds every
// row of the tile whose window holds it (up to four), instead of once per output row.
constexpr int kTileRows = 4;

using row_lanes::between;
using row_lanes::load_or_zero;

// One tap: the weight times the input then rounded add in exact mode, one fused multiply-add in
// fast mode (the product kernels' step, gemm_lanes_avx512.hpp).
template <bool kExact>
inline __m512 step(__m512 acc, __m512 w, __m512 x) noexcept {
  return gemm::avx512::step<!kExact>(acc, w, x);
}

struct Plane {
  const float* in;
  const float* w;
  const float* bias;
  float* out;
  std::ptrdiff_t in_h, in_w, out_w, pad_top, pad_left;
};

// Output rows [oy0, oy0 + kRows) by kVecs vectors of sixteen columns from xs[c] (inside the output
// row: the last vector of a row is moved back to end at its last column, and the overlap computes
// the same values again). kMasked: some load reaches outside the input (a column past an edge, a
// row in the padding), so loads are masked: the column masks once per tile, and a row in the
// padding loads with no lane at all (+0). Otherwise every load is whole. The accumulators are
// independent chains, each over its output's taps in row-major order: input row i (ascending) holds
// window row i - r of tile row r, and its window columns come in ascending order.
template <int kW, bool kExact, int kRows, int kVecs, bool kMasked>
void tile(const Plane& p, std::ptrdiff_t oy0, const std::ptrdiff_t (&xs)[kVecs], const __m512 (&w)[kW * kW]) noexcept {
  __m512 acc[kRows][kVecs];
#pragma GCC unroll 4
  for (int r = 0; r < kRows; ++r) {
#pragma GCC unroll 2
    for (int c = 0; c < kVecs; ++c) acc[r][c] = _mm512_setzero_ps();  // every output starts from +0
  }
  [[maybe_unused]] __mmask16 columns[kVecs][kW];
  if constexpr (kMasked) {
    for (int c = 0; c < kVecs; ++c) {
      for (int kx = 0; kx < kW; ++kx) {
        const std::ptrdiff_t at = xs[c] + kx - p.pad_left;
        columns[c][kx] = between(-at, p.in_w - at);
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
      __m512 v[kVecs];
#pragma GCC unroll 2
      for (int c = 0; c < kVecs; ++c) {
        const std::ptrdiff_t at = xs[c] + kx - p.pad_left;
        if constexpr (kMasked) {
          v[c] = inside ? load_or_zero(row, at, columns[c][kx]) : _mm512_setzero_ps();
        } else {
          v[c] = _mm512_loadu_ps(row + at);
        }
      }
#pragma GCC unroll 4
      for (int r = 0; r < kRows; ++r) {
        const int ky = i - r;
        if (ky < 0 || ky >= kW) continue;
        const __m512 wv = w[ky * kW + kx];
#pragma GCC unroll 2
        for (int c = 0; c < kVecs; ++c) acc[r][c] = step<kExact>(acc[r][c], wv, v[c]);
      }
    }
  }
#pragma GCC unroll 4
  for (int r = 0; r < kRows; ++r) {
    float* out_row = p.out + (oy0 + r) * p.out_w;
#pragma GCC unroll 2
    for (int c = 0; c < kVecs; ++c) {
      __m512 y = acc[r][c];
      if (p.bias != nullptr) y = _mm512_add_ps(y, _mm512_set1_ps(*p.bias));  // one rounded addition
      if constexpr (kExact) y = gemm::avx512::canonical_nan(y);
      _mm512_storeu_ps(out_row + xs[c], y);
    }
  }
}

// Whether every load of a tile of kRows rows from oy0 and the vectors from xs stays inside the input.
template <int kW, int kRows, int kVecs>
bool whole(const Plane& p, std::ptrdiff_t oy0, const std::ptrdiff_t (&xs)[kVecs]) noexcept {
  for (const std::ptrdiff_t x : xs) {
    if (x - p.pad_left < 0 || x + kLanes - 1 + (kW - 1) - p.pad_left >= p.in_w) return false;
  }
  return oy0 - p.pad_top >= 0 && oy0 + kRows - 1 + (kW - 1) - p.pad_top < p.in_h;
}

template <int kW, bool kExact, int kRows, int kVecs>
void any_tile(const Plane& p, std::ptrdiff_t oy0, const std::ptrdiff_t (&xs)[kVecs],
              const __m512 (&w)[kW * kW]) noexcept {
  if (whole<kW, kRows, kVecs>(p, oy0, xs)) {
    tile<kW, kExact, kRows, kVecs, false>(p, oy0, xs, w);
  } else {
    tile<kW, kExact, kRows, kVecs, true>(p, oy0, xs, w);
  }
}

// The first column of vector v of a row: v * 16, the last vector moved back to end at the row's
// last column (out_w >= 16).
inline std::ptrdiff_t column(const Plane& p, std::ptrdiff_t v) noexcept {
  return v * kLanes + kLanes <= p.out_w ? v * kLanes : p.out_w - kLanes;
}

// One row of tiles: pairs of vectors (3x3 windows; single vectors for 7x7, whose weights fill the
// registers), then a single vector if one is left.
template <int kW, bool kExact, int kRows>
void tile_row(const Plane& p, std::ptrdiff_t oy0, const __m512 (&w)[kW * kW]) noexcept {
  const std::ptrdiff_t vectors = (p.out_w + kLanes - 1) / kLanes;
  std::ptrdiff_t v = 0;
  if constexpr (kW == 3) {
    for (; v + 2 <= vectors; v += 2) any_tile<kW, kExact, kRows, 2>(p, oy0, {column(p, v), column(p, v + 1)}, w);
  }
  for (; v < vectors; ++v) any_tile<kW, kExact, kRows, 1>(p, oy0, {column(p, v)}, w);
}

template <int kW, bool kExact>
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
  __m512 weights[kW * kW];  // broadcast once per plane
  for (int t = 0; t < kW * kW; ++t) weights[t] = _mm512_set1_ps(w[t]);
  const std::ptrdiff_t out_h = static_cast<std::ptrdiff_t>(s.out_h);
  std::ptrdiff_t oy0 = 0;
  for (; oy0 + kTileRows <= out_h; oy0 += kTileRows) tile_row<kW, kExact, kTileRows>(p, oy0, weights);
  for (; oy0 < out_h; ++oy0) tile_row<kW, kExact, 1>(p, oy0, weights);
}

}  // namespace

void depthwise_stride1_plane__avx512(const Conv2dShape& s, const float* in, const float* w, const float* bias,
                                     float* out, bool exact) noexcept {
  if (s.kernel_w == 3) {
    return exact ? plane<3, true>(s, in, w, bias, out) : plane<3, false>(s, in, w, bias, out);
  }
  exact ? plane<7, true>(s, in, w, bias, out) : plane<7, false>(s, in, w, bias, out);
}

}  // namespace onemodel::opt
