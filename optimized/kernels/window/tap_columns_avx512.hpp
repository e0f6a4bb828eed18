// Masked reads of a window's tap columns for AVX-512 kernels that compute 16 neighbouring output
// columns per register straight from an unpadded input row (the direct MaxPool, pool_max_direct.hpp).
// For a block of output columns
// [ox0, ox0 + n) and one tap column kx, lane j wants input column (ox0 + j) * stride - pad + kx *
// dilation. A lane whose column lies outside [0, in) (or j >= n) reads nothing and holds the
// kernel's fill value instead: -inf for a max, +0 for a convolution's padding. No address outside
// the row is formed: the read starts at the first valid lane's element (stride 1 expands the
// values into the lanes from that one at the left border, stride 2 loads the span and takes every
// other element, larger strides gather). Include only from files built with the AVX-512 flags.
#pragma once

#include <immintrin.h>

#include <cstdint>

namespace onemodel::opt::window {

struct TapColumn {
  __mmask16 lanes;      // lanes with an element inside the row (0: the tap reads nothing)
  __mmask16 low, high;  // stride 2: the span's elements in the first and second 16 floats
  std::int64_t offset;  // the first such lane's column
  std::int64_t first;   // that lane
  __m512i index;        // per lane from the first valid one: stride * (j - first)
};


// floor(a / b) for b > 0.
inline std::int64_t floor_div(std::int64_t a, std::int64_t b) noexcept {
  return a >= 0 ? a / b : -((-a + b - 1) / b);
}

// Requires 1 <= n <= 16, stride >= 1 and 16 * stride within int32.
inline TapColumn tap_column(std::int64_t in, std::int64_t pad_before, std::int64_t stride, std::int64_t dilation,
                            std::int64_t ox0, std::int64_t n, std::int64_t kx) noexcept {
  TapColumn t{0, 0, 0, 0, 0, _mm512_setzero_si512()};
  const std::int64_t c0 = ox0 * stride - pad_before + kx * dilation;
  const std::int64_t first = c0 >= 0 ? 0 : floor_div(-c0 + stride - 1, stride);
  std::int64_t end = floor_div(in - 1 - c0, stride) + 1;
  if (end > n) end = n;
  if (end <= first) return t;
  t.lanes = static_cast<__mmask16>(((1u << end) - 1u) & ~((1u << first) - 1u));
  // Stride 2 reads elements 0 .. 2 * (valid lanes - 1) of the span from the first valid one.
  const int count = static_cast<int>(2 * (end - first) - 1);
  t.low = static_cast<__mmask16>(count >= 16 ? 0xFFFFu : (1u << count) - 1u);
  t.high = static_cast<__mmask16>(count <= 16 ? 0u : (1u << (count - 16)) - 1u);
  t.first = first;
  t.offset = c0 + first * stride;
  const __m512i lane = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
  const __m512i from_first = _mm512_sub_epi32(lane, _mm512_set1_epi32(static_cast<int>(first)));
  t.index = _mm512_mullo_epi32(from_first, _mm512_set1_epi32(static_cast<int>(stride)));
  return t;
}

// The tap column's 16 lanes from `row` (the input row's first element), `fill` where no element is
// read. kStride 1 and 2 have their own loads; 0 stands for any other stride (a gather).
template <int kStride>
__attribute__((always_inline)) inline __m512 load_tap(const TapColumn& t, const float* row, __m512 fill) noexcept {
  const float* p = row + t.offset;
  if constexpr (kStride == 1) {
    return t.first == 0 ? _mm512_mask_loadu_ps(fill, t.lanes, p) : _mm512_mask_expandloadu_ps(fill, t.lanes, p);
  } else if constexpr (kStride == 2) {
    // The span in two masked halves (p + 16 formed only when the span reaches it), then lane j
    // takes element 2 * (j - first); the other lanes are set back to the fill.
    const __m512 a = _mm512_mask_loadu_ps(fill, t.low, p);
    const __m512 b = t.high != 0 ? _mm512_mask_loadu_ps(fill, t.high, p + 16) : fill;
    return _mm512_mask_mov_ps(fill, t.lanes, _mm512_permutex2var_ps(a, t.index, b));
  } else {
    return _mm512_mask_i32gather_ps(fill, t.lanes, t.index, p, 4);
  }
}

}  // namespace onemodel::opt::window
