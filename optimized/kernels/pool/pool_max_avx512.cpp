// The direct AVX-512 MaxPool (optimized/kernels/pool/pool_max_direct.hpp; spec/ops/products-conv.md
// section 8.2): the loops of pool_max_direct_body.hpp on sixteen lanes, with the masked tap-column
// loads of window/tap_columns_avx512.hpp: stride 1 loads in place (expanded into the lanes from the
// first valid one at the left border), stride 2 loads the span and takes every other element,
// larger strides gather. _mm512_mask_max_ps(acc, take, v, acc) is `v > acc ? v : acc` per lane (the
// second operand when either is NaN or both are zero), the reference's "strictly greater replaces"
// with NaN taps skipped.
#include <immintrin.h>

#include <cstddef>
#include <cstdint>

#include "optimized/kernels/pool/pool_max_direct.hpp"
#include "optimized/kernels/pool/pool_max_direct_body.hpp"
#include "optimized/kernels/window/row_lanes_avx512.hpp"
#include "optimized/kernels/window/tap_columns_avx512.hpp"

namespace onemodel::opt::pool {
namespace {

struct Avx512Direct {
  static constexpr std::int64_t kLanes = 16;
  using Vec = __m512;
  using Mask = __mmask16;
  using Take = __mmask16;
  using Tap = window::TapColumn;
  static Vec minus_inf() noexcept { return _mm512_set1_ps(-__builtin_inff()); }
  static Mask between(std::ptrdiff_t lo, std::ptrdiff_t hi) noexcept { return row_lanes::between(lo, hi); }
  static Tap tap_column(std::int64_t in, std::int64_t pad_before, std::int64_t stride, std::int64_t dilation,
                        std::int64_t ox0, std::int64_t n, std::int64_t kx) noexcept {
    return window::tap_column(in, pad_before, stride, dilation, ox0, n, kx);
  }
  template <int kStride>
  __attribute__((always_inline)) static Vec load_tap(const Tap& t, const float* row, Vec fill) noexcept {
    return window::load_tap<kStride>(t, row, fill);
  }
  static Take take(bool inside) noexcept { return inside ? static_cast<Take>(0xFFFF) : static_cast<Take>(0); }
  static Vec fold(Vec acc, Take take, Vec v) noexcept { return _mm512_mask_max_ps(acc, take, v, acc); }
  static void store(float* p, Mask keep, Vec v) noexcept { _mm512_mask_storeu_ps(p, keep, v); }
  static unsigned minus_inf_lanes(Vec v, Mask keep) noexcept {
    return _mm512_mask_cmp_ps_mask(keep, v, minus_inf(), _CMP_EQ_OQ);
  }
};

}  // namespace

void max_planes_direct__avx512(const Pool2dShape& s, const float* x, float* y, std::int64_t planes) noexcept {
  direct_body::max_planes_direct<Avx512Direct>(s, x, y, planes);
}

}  // namespace onemodel::opt::pool
