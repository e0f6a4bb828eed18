// The direct AVX-512 MaxPool (optimized/kernels/pool/pool_max_direct.hpp;
// spec/ops/products-conv.md section 8.2). For a block of 16 output columns each
// tap column kx is one masked load per window row: lane j reads column (ox0 +
// j) * sw - pw + kx * dw when it lies in [0, w.in) and j is inside the block,
// and holds -inf otherwise. The load starts at the first valid lane's element,
// so no address outside the row is formed or read: stride 1 loads in place
// (expanded into the lanes from the first valid one at the left border), stride
// 2 loads the span and takes every other element, larger strides gather.
// _mm512_mask_max_ps(acc, all, v, acc) is `v > acc ? v : acc` per lane (the
// second operand when either is NaN or both are zero), the reference's
// "strictly greater replaces" with NaN taps skipped.
#include <immintrin.h>

#include <cstdint>

#include "optimized/kernels/pool/pool_literal.hpp"
#include "optimized/kernels/pool/pool_max_direct.hpp"
#include "optimized/kernels/window/tap_columns_avx512.hpp"

namespace onemodel::opt::pool {
namespace {

constexpr std::int64_t kLanes = 16;
constexpr std::int64_t kRowsAtOnce = 4;
constexpr std::int64_t kMaxTapColumns = 64;

using window::load_tap;
using window::TapColumn;

// Output rows [oy0, oy0 + rows) (rows <= kRowsAtOnce) of one plane for the block of n output
// columns from ox0, whose tap columns are taps[0, W.kernel).
template <int kStride>
__attribute__((always_inline)) inline void rows_max(const Pool2dShape &s, const float *plane, float *yplane,
                                                    const TapColumn *taps, std::int64_t ox0, std::int64_t n,
                                                    std::int64_t oy0, std::int64_t rows) noexcept {
  const PoolAxis &H = s.h;
  const PoolAxis &W = s.w;
  const __m512 minus_inf = _mm512_set1_ps(-__builtin_inff());
  const __mmask16 all = 0xFFFF;
  const __mmask16 block = static_cast<__mmask16>((1u << n) - 1u);
  __m512 acc0 = minus_inf, acc1 = minus_inf, acc2 = minus_inf, acc3 = minus_inf;
  // Taps in (ky, kx) order for every output: ky outer, kx inner, the rows
  // side by side. A window row outside the input (or a row past the
  // group) has mask 0: its load is still made, from the plane's first row
  // (inside the plane), and never taken.
  for (std::int64_t ky = 0; ky < H.kernel; ++ky) {
    const float *row[kRowsAtOnce];
    __mmask16 take[kRowsAtOnce];
    for (std::int64_t g = 0; g < kRowsAtOnce; ++g) {
      const std::int64_t h = (oy0 + g) * H.stride - H.pad_before + ky * H.dilation;
      const bool inside = g < rows && h >= 0 && h < H.in;
      row[g] = inside ? plane + h * W.in : plane;
      take[g] = inside ? all : static_cast<__mmask16>(0);
    }
    for (std::int64_t kx = 0; kx < W.kernel; ++kx) {
      const TapColumn &t = taps[kx];
      if (t.lanes == 0) continue;
      acc0 = _mm512_mask_max_ps(acc0, take[0], load_tap<kStride>(t, row[0], minus_inf), acc0);
      acc1 = _mm512_mask_max_ps(acc1, take[1], load_tap<kStride>(t, row[1], minus_inf), acc1);
      acc2 = _mm512_mask_max_ps(acc2, take[2], load_tap<kStride>(t, row[2], minus_inf), acc2);
      acc3 = _mm512_mask_max_ps(acc3, take[3], load_tap<kStride>(t, row[3], minus_inf), acc3);
    }
  }
  const __m512 acc[kRowsAtOnce] = {acc0, acc1, acc2, acc3};
  for (std::int64_t g = 0; g < rows; ++g) {
    float *out = yplane + (oy0 + g) * W.out + ox0;
    _mm512_mask_storeu_ps(out, block, acc[g]);
    // Outputs at -inf: the literal rule (pool_literal.hpp).
    unsigned left = _mm512_mask_cmp_ps_mask(block, acc[g], minus_inf, _CMP_EQ_OQ);
    while (left != 0) {
      const int j = __builtin_ctz(left);
      left &= left - 1;
      out[j] = max_one(s, plane, oy0 + g, ox0 + j);
    }
  }
}

// At stride 2, where every block's tap columns fit kMaxTapColumns (output rows up to 21 blocks of
// 16 for a 3-wide window), a plane is walked row group by row group, the blocks of 16 columns
// inside: the rows are read in address order, which the hardware prefetchers follow. Block by
// block down the plane, each window row gave two cache lines and moved 448 bytes on (a 3x3
// stride-2 pooling of 64 x 112 x 112, 3.2 MB, beyond L2): 0.86-0.94x the time now on stride-2
// layers beyond L2, one thread, Intel (in ResNet-18's model 0.98x: its input is fresher there).
// Stride 1 reads a quarter of that per output and measured 6-8% slower with the row walk on 7 x 7
// to 28 x 28 maps, so it and wider rows keep the block-outer walk (taps computed once per block
// for all planes: they divide by the stride, which cost more than the loads on a 7 x 7 plane).
// Each output is the same fold over the same taps in the same order either way.
template <int kStride>
void block_max(const Pool2dShape &s, const float *x, float *y, std::int64_t planes) noexcept {
  const PoolAxis &H = s.h;
  const PoolAxis &W = s.w;
  TapColumn taps[kMaxTapColumns];
  const std::int64_t blocks = (W.out + kLanes - 1) / kLanes;
  const auto block_width = [&](std::int64_t ox0) { return W.out - ox0 < kLanes ? W.out - ox0 : kLanes; };
  if (kStride == 2 && blocks * W.kernel <= kMaxTapColumns) {
    for (std::int64_t b = 0; b < blocks; ++b) {
      for (std::int64_t kx = 0; kx < W.kernel; ++kx) {
        taps[b * W.kernel + kx] =
            window::tap_column(W.in, W.pad_before, W.stride, W.dilation, b * kLanes, block_width(b * kLanes), kx);
      }
    }
    for (std::int64_t p = 0; p < planes; ++p) {
      const float *plane = x + p * H.in * W.in;
      float *const yplane = y + p * H.out * W.out;
      for (std::int64_t oy0 = 0; oy0 < H.out; oy0 += kRowsAtOnce) {
        const std::int64_t rows = H.out - oy0 < kRowsAtOnce ? H.out - oy0 : kRowsAtOnce;
        for (std::int64_t b = 0; b < blocks; ++b) {
          rows_max<kStride>(s, plane, yplane, taps + b * W.kernel, b * kLanes, block_width(b * kLanes), oy0, rows);
        }
      }
    }
    return;
  }
  for (std::int64_t ox0 = 0; ox0 < W.out; ox0 += kLanes) {
    const std::int64_t n = block_width(ox0);
    for (std::int64_t kx = 0; kx < W.kernel; ++kx) {
      taps[kx] = window::tap_column(W.in, W.pad_before, W.stride, W.dilation, ox0, n, kx);
    }
    for (std::int64_t p = 0; p < planes; ++p) {
      const float *plane = x + p * H.in * W.in;
      float *const yplane = y + p * H.out * W.out;
      for (std::int64_t oy0 = 0; oy0 < H.out; oy0 += kRowsAtOnce) {
        rows_max<kStride>(s, plane, yplane, taps, ox0, n, oy0, H.out - oy0 < kRowsAtOnce ? H.out - oy0 : kRowsAtOnce);
      }
    }
  }
}

}  // namespace

void max_planes_direct__avx512(const Pool2dShape &s, const float *x, float *y, std::int64_t planes) noexcept {
  if (s.w.stride == 1) {
    block_max<1>(s, x, y, planes);
  } else if (s.w.stride == 2) {
    block_max<2>(s, x, y, planes);
  } else {
    block_max<0>(s, x, y, planes);
  }
}

}  // namespace onemodel::opt::pool
