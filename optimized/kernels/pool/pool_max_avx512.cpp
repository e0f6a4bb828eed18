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

template <int kStride>
void block_max(const Pool2dShape &s, const float *x, float *y, std::int64_t planes) noexcept {
  const PoolAxis &H = s.h;
  const PoolAxis &W = s.w;
  const __m512 minus_inf = _mm512_set1_ps(-__builtin_inff());
  const __mmask16 all = 0xFFFF;
  TapColumn taps[kMaxTapColumns];
  for (std::int64_t ox0 = 0; ox0 < W.out; ox0 += kLanes) {
    const std::int64_t n = W.out - ox0 < kLanes ? W.out - ox0 : kLanes;
    const __mmask16 block = static_cast<__mmask16>((1u << n) - 1u);
    // The taps depend on the block only: computed once for all the planes (they
    // divide by the stride, which cost more than the loads on a 7 x 7 plane).
    for (std::int64_t kx = 0; kx < W.kernel; ++kx) taps[kx] = window::tap_column(W.in, W.pad_before, W.stride, W.dilation, ox0, n, kx);
    for (std::int64_t p = 0; p < planes; ++p) {
      const float *plane = x + p * H.in * W.in;
      float *const yplane = y + p * H.out * W.out;
      for (std::int64_t oy0 = 0; oy0 < H.out; oy0 += kRowsAtOnce) {
        const std::int64_t rows = H.out - oy0 < kRowsAtOnce ? H.out - oy0 : kRowsAtOnce;
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
