// The direct MaxPool (pool_max_direct.hpp; spec/ops/products-conv.md section 8.2), written once over
// a lane type so that the AVX-512 path (sixteen lanes, pool_max_avx512.cpp) and the AVX2 path
// (eight lanes, pool_max_avx2.cpp) run the same folds in the same order. Each per-path file defines
// its lane traits in an anonymous namespace, so every function here, a template over them, is
// instantiated inside that file only: code built with the AVX-512 flags is never merged by the
// linker with the AVX2 file's (an inline non-template function here would be, and could then run
// AVX-512 instructions on an AVX2 machine). Included by per-ISA kernel files only.
//
// For a block of kLanes output columns each tap column kx is one load per window row: lane j reads
// column (ox0 + j) * sw - pw + kx * dw when it lies in [0, w.in) and j is inside the block, and
// holds -inf otherwise, which never replaces anything, so border columns run in the same loop as
// the rest. Lane traits L provide: kLanes; Vec, Mask (a set of lanes), Take (a whole register
// taken or not) and Tap (a tap column's loads, whose member `lanes` is 0 when it reads nothing);
// minus_inf(); between(lo, hi) (lanes t with lo <= t < hi); tap_column(in, pad_before, stride,
// dilation, ox0, n, kx) (for 1 <= n <= kLanes, 16 * stride within int32); load_tap<kStride>(tap, row,
// fill) (kStride 1, 2 or 0 for any other stride; no address outside the row is formed); take(inside);
// fold(acc, take, v) (`v > acc ? v : acc` per lane where taken: the reference's "strictly greater
// replaces", NaN taps skipped); store(p, keep, v) and minus_inf_lanes(v, keep) (the bits of the
// lanes in `keep` that equal -inf).
#pragma once

#include <cstdint>

#include "optimized/kernels/pool/pool_literal.hpp"
#include "optimized/kernels/pool/pool_max_direct.hpp"

namespace onemodel::opt::pool::direct_body {

inline constexpr std::int64_t kRowsAtOnce = 4;
inline constexpr std::int64_t kMaxTapColumns = 64;

// Output rows [oy0, oy0 + rows) (rows <= kRowsAtOnce) of one plane for the block of n output
// columns from ox0, whose tap columns are taps[0, W.kernel).
template <class L, int kStride>
__attribute__((always_inline)) inline void rows_max(const Pool2dShape& s, const float* plane, float* yplane,
                                                    const typename L::Tap* taps, std::int64_t ox0, std::int64_t n,
                                                    std::int64_t oy0, std::int64_t rows) noexcept {
  const PoolAxis& H = s.h;
  const PoolAxis& W = s.w;
  using Vec = typename L::Vec;
  const Vec minus_inf = L::minus_inf();
  const typename L::Mask block = L::between(0, n);
  Vec acc0 = minus_inf, acc1 = minus_inf, acc2 = minus_inf, acc3 = minus_inf;
  // Taps in (ky, kx) order for every output: ky outer, kx inner, the rows side by side. A window
  // row outside the input (or a row past the group) is not taken: its load is still made, from the
  // plane's first row (inside the plane), and never folded.
  for (std::int64_t ky = 0; ky < H.kernel; ++ky) {
    const float* row[kRowsAtOnce];
    typename L::Take take[kRowsAtOnce];
    for (std::int64_t g = 0; g < kRowsAtOnce; ++g) {
      const std::int64_t h = (oy0 + g) * H.stride - H.pad_before + ky * H.dilation;
      const bool inside = g < rows && h >= 0 && h < H.in;
      row[g] = inside ? plane + h * W.in : plane;
      take[g] = L::take(inside);
    }
    for (std::int64_t kx = 0; kx < W.kernel; ++kx) {
      const typename L::Tap& t = taps[kx];
      if (t.lanes == 0) continue;
      acc0 = L::fold(acc0, take[0], L::template load_tap<kStride>(t, row[0], minus_inf));
      acc1 = L::fold(acc1, take[1], L::template load_tap<kStride>(t, row[1], minus_inf));
      acc2 = L::fold(acc2, take[2], L::template load_tap<kStride>(t, row[2], minus_inf));
      acc3 = L::fold(acc3, take[3], L::template load_tap<kStride>(t, row[3], minus_inf));
    }
  }
  const Vec acc[kRowsAtOnce] = {acc0, acc1, acc2, acc3};
  for (std::int64_t g = 0; g < rows; ++g) {
    float* out = yplane + (oy0 + g) * W.out + ox0;
    L::store(out, block, acc[g]);
    // Outputs at -inf: the literal rule (pool_literal.hpp).
    unsigned left = L::minus_inf_lanes(acc[g], block);
    while (left != 0) {
      const int j = __builtin_ctz(left);
      left &= left - 1;
      out[j] = max_one(s, plane, oy0 + g, ox0 + j);
    }
  }
}

// At stride 2, where every block's tap columns fit kMaxTapColumns (output rows up to 21 blocks for
// a 3-wide window: 336 columns on sixteen lanes, 168 on eight), a plane is walked row group by row group, the
// blocks of columns inside: the rows are read in address order, which the hardware prefetchers
// follow. Block by block down the plane, each window row gave two cache lines and moved 448 bytes on
// (a 3x3 stride-2 pooling of 64 x 112 x 112, 3.2 MB, beyond L2): 0.86-0.94x the time now on
// stride-2 layers beyond L2, one thread, Intel, AVX-512 (in ResNet-18's model 0.98x: its input is
// fresher there). Stride 1 reads a quarter of that per output and measured 6-8% slower with the row
// walk on 7 x 7 to 28 x 28 maps, so it and wider rows keep the block-outer walk (taps computed once
// per block for all planes: they divide by the stride, which cost more than the loads on a 7 x 7
// plane). Each output is the same fold over the same taps in the same order either way.
template <class L, int kStride>
void block_max(const Pool2dShape& s, const float* x, float* y, std::int64_t planes) noexcept {
  constexpr std::int64_t kLanes = L::kLanes;
  const PoolAxis& H = s.h;
  const PoolAxis& W = s.w;
  typename L::Tap taps[kMaxTapColumns];
  const std::int64_t blocks = (W.out + kLanes - 1) / kLanes;
  const auto block_width = [&](std::int64_t ox0) { return W.out - ox0 < kLanes ? W.out - ox0 : kLanes; };
  if (kStride == 2 && blocks * W.kernel <= kMaxTapColumns) {
    for (std::int64_t b = 0; b < blocks; ++b) {
      for (std::int64_t kx = 0; kx < W.kernel; ++kx) {
        taps[b * W.kernel + kx] =
            L::tap_column(W.in, W.pad_before, W.stride, W.dilation, b * kLanes, block_width(b * kLanes), kx);
      }
    }
    for (std::int64_t p = 0; p < planes; ++p) {
      const float* plane = x + p * H.in * W.in;
      float* const yplane = y + p * H.out * W.out;
      for (std::int64_t oy0 = 0; oy0 < H.out; oy0 += kRowsAtOnce) {
        const std::int64_t rows = H.out - oy0 < kRowsAtOnce ? H.out - oy0 : kRowsAtOnce;
        for (std::int64_t b = 0; b < blocks; ++b) {
          rows_max<L, kStride>(s, plane, yplane, taps + b * W.kernel, b * kLanes, block_width(b * kLanes), oy0, rows);
        }
      }
    }
    return;
  }
  for (std::int64_t ox0 = 0; ox0 < W.out; ox0 += kLanes) {
    const std::int64_t n = block_width(ox0);
    for (std::int64_t kx = 0; kx < W.kernel; ++kx) {
      taps[kx] = L::tap_column(W.in, W.pad_before, W.stride, W.dilation, ox0, n, kx);
    }
    for (std::int64_t p = 0; p < planes; ++p) {
      const float* plane = x + p * H.in * W.in;
      float* const yplane = y + p * H.out * W.out;
      for (std::int64_t oy0 = 0; oy0 < H.out; oy0 += kRowsAtOnce) {
        rows_max<L, kStride>(s, plane, yplane, taps, ox0, n, oy0,
                             H.out - oy0 < kRowsAtOnce ? H.out - oy0 : kRowsAtOnce);
      }
    }
  }
}

// The kernel: max_planes_direct__<path> (pool_max_direct.hpp) on the lane type of its path.
template <class L>
void max_planes_direct(const Pool2dShape& s, const float* x, float* y, std::int64_t planes) noexcept {
  if (s.w.stride == 1) {
    block_max<L, 1>(s, x, y, planes);
  } else if (s.w.stride == 2) {
    block_max<L, 2>(s, x, y, planes);
  } else {
    block_max<L, 0>(s, x, y, planes);
  }
}

}  // namespace onemodel::opt::pool::direct_body
