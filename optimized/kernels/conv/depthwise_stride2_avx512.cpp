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

inline RowTaps row_taps(const float* row, std::ptrdiff_t in_w, std::ptrdiff_t base) noexcept {
  // Three loads cover input columns [base, base + 48).
  const __m512 l0 = load_or_zero(row, base, between(-base, in_w - base));
  const __m512 l1 = load_or_zero(row, base + 16, between(-base - 16, in_w - base - 16));
  const __m512 l2 = load_or_zero(row, base + 32, between(-base - 32, in_w - base - 32));
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

template <std::size_t kW, bool kExact>
void plane(const Conv2dShape& s, const float* in, const float* w, const float* bias, float* out) noexcept {
  const std::ptrdiff_t in_h = static_cast<std::ptrdiff_t>(s.in_h), in_w = static_cast<std::ptrdiff_t>(s.in_w);
  const std::ptrdiff_t out_w = static_cast<std::ptrdiff_t>(s.out_w);
  const std::ptrdiff_t pad_top = static_cast<std::ptrdiff_t>(s.pad_top);
  const std::ptrdiff_t pad_left = static_cast<std::ptrdiff_t>(s.pad_left);
  const RowTaps zero_row{_mm512_setzero_ps(), _mm512_setzero_ps(), _mm512_setzero_ps(), _mm512_setzero_ps()};
  for (std::size_t oy = 0; oy < s.out_h; ++oy) {
    float* out_row = out + oy * s.out_w;
    for (std::ptrdiff_t ox0 = 0; ox0 < out_w; ox0 += kLanes) {
      const std::ptrdiff_t n = out_w - ox0 < kLanes ? out_w - ox0 : kLanes;
      const std::ptrdiff_t base = 2 * ox0 - pad_left;
      __m512 acc = _mm512_setzero_ps();  // kernels-depthwise.md: every output starts from +0
      for (std::size_t ky = 0; ky < s.kernel_h; ++ky) {
        const std::ptrdiff_t iy = static_cast<std::ptrdiff_t>(2 * oy + ky) - pad_top;
        // A row in the padding: its taps are products with +0, made all the same.
        const RowTaps r = iy >= 0 && iy < in_h ? row_taps(in + iy * in_w, in_w, base) : zero_row;
        const float* wr = w + ky * kW;
        acc = step<kExact>(acc, _mm512_set1_ps(wr[0]), tap<0>(r));
        acc = step<kExact>(acc, _mm512_set1_ps(wr[1]), tap<1>(r));
        acc = step<kExact>(acc, _mm512_set1_ps(wr[2]), tap<2>(r));
        if constexpr (kW == 5) {
          acc = step<kExact>(acc, _mm512_set1_ps(wr[3]), tap<3>(r));
          acc = step<kExact>(acc, _mm512_set1_ps(wr[4]), tap<4>(r));
        }
      }
      if (bias != nullptr) acc = _mm512_add_ps(acc, _mm512_set1_ps(*bias));
      if constexpr (kExact) acc = gemm::avx512::canonical_nan(acc);
      _mm512_mask_storeu_ps(out_row + ox0, static_cast<__mmask16>((1u << n) - 1u), acc);
    }
  }
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
