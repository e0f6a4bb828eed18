// The im2col strip of the AVX2 path (im2col.hpp, im2col_strip_f32__avx2): the AVX-512 filler's
// plan (im2col_strip_avx512.cpp) for the AVX2 product's strips of 16 columns at strides 1 and 2.
// At stride 1 each row of a strip is two 8-float vectors assembled from its tap's pieces
// (im2col_strip_pieces) by AVX's masked loads, which read nothing and give +0 in masked-off lanes,
// so the pieces OR together without touching memory outside the input row's inside range; with
// contiguous taps (the usual "same" padding) a row is two masked loads. At stride 2 the row is
// zeroed and each piece copied by masked loads of its inputs, the even ones picked by a shuffle
// and a permute, and a masked store. im2col_strip_f32 made each piece with memcpy and std::fill
// calls (or a scalar loop at stride 2), which took half the instructions of a 128 -> 32 3x3 layer
// at 7 x 7 and 44% of a 7x7 stride-2 stem's (callgrind, session 34). Only data moves, so the
// floats are im2col_strip_f32's bit for bit (NaN payloads included; OR with the all-zero bits of +0
// keeps a value's bits). Compiled with the AVX2 flags of cmake/kernel_sources.cmake; called only
// on the AVX2 path (im2col_strip_for).
#include <immintrin.h>

#include <algorithm>
#include <cstdint>

#include "optimized/kernels/conv/im2col.hpp"
#include "optimized/kernels/conv/im2col_one_axis.hpp"

namespace onemodel::opt {
namespace {

constexpr std::size_t kStripWidth = 16;

// Lane j of the result is all ones where bit j of `bits` (8 bits) is set.
inline __m256i lane_mask(std::uint32_t bits) noexcept {
  const __m256i bit = _mm256_setr_epi32(1, 2, 4, 8, 16, 32, 64, 128);
  return _mm256_cmpeq_epi32(_mm256_and_si256(_mm256_set1_epi32(static_cast<int>(bits)), bit), bit);
}

// Sixteen floats from plane[offset + j] for the lanes j of `mask` (bit j), +0 for the others. The
// lanes outside the mask are never read; the address is formed as an integer because for them it
// may lie outside the plane.
inline void load_line(const float* plane, std::ptrdiff_t offset, std::uint32_t mask, __m256& v0, __m256& v1) noexcept {
  const std::uintptr_t base =
      reinterpret_cast<std::uintptr_t>(plane) + static_cast<std::uintptr_t>(offset) * sizeof(float);
  v0 = _mm256_maskload_ps(reinterpret_cast<const float*>(base), lane_mask(mask & 0xFFu));
  v1 = _mm256_maskload_ps(reinterpret_cast<const float*>(base + 8 * sizeof(float)), lane_mask((mask >> 8) & 0xFFu));
}

// Lanes [0, count) of eight, as a mask for the masked loads and stores.
inline __m256i first_lanes(std::ptrdiff_t count) noexcept {
  const int n = static_cast<int>(std::clamp<std::ptrdiff_t>(count, 0, 8));
  return _mm256_cmpgt_epi32(_mm256_set1_epi32(n), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}

// dst[x] = src[2 * x] for x in [0, len), len <= 16: each 8 outputs come from their 2 * 8 - 1
// inputs, two masked loads whose even lanes a shuffle (within each 128-bit half) and a 64-bit
// permute (the halves in order) pick; a masked store writes only the piece's columns.
inline void copy_stride2(float* dst, const float* src, std::ptrdiff_t len) noexcept {
  for (std::ptrdiff_t off = 0; off < len; off += 8) {
    const std::ptrdiff_t n = std::min<std::ptrdiff_t>(8, len - off), inputs = 2 * n - 1;
    const float* from = src + 2 * off;
    const __m256 lo = _mm256_maskload_ps(from, first_lanes(inputs));
    // The second load's address lies past the inputs when they end in the first 8 (no lane read).
    const std::uintptr_t next = reinterpret_cast<std::uintptr_t>(from) + 8 * sizeof(float);
    const __m256 hi = _mm256_maskload_ps(reinterpret_cast<const float*>(next), first_lanes(inputs - 8));
    const __m256 mixed = _mm256_shuffle_ps(lo, hi, _MM_SHUFFLE(2, 0, 2, 0));
    const __m256 even = _mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(mixed), _MM_SHUFFLE(3, 1, 2, 0)));
    _mm256_maskstore_ps(dst + off, first_lanes(n), even);
  }
}

// Stride 2: each row zeroed, then its tap's pieces copied (copy_stride2) into their columns.
void fill_rows_stride2(const Conv2dShape& s, const float* x_group, std::size_t p0, std::size_t kc,
                       const Im2colPiece* pieces, const std::size_t* first, float* out) noexcept {
  const std::size_t tap_count = s.taps();
  std::size_t c = p0 / tap_count, tap = p0 % tap_count;
  for (std::size_t p = 0; p < kc; ++p) {
    float* dst = out + p * kStripWidth;
    const float* plane = x_group + c * s.in_plane();
    _mm256_storeu_ps(dst, _mm256_setzero_ps());
    _mm256_storeu_ps(dst + 8, _mm256_setzero_ps());
    for (std::size_t i = first[tap]; i < first[tap + 1]; ++i) {
      copy_stride2(dst + pieces[i].at, plane + pieces[i].src, pieces[i].len);
    }
    if (++tap == tap_count) {
      tap = 0;
      ++c;
    }
  }
}

// Rows [p0, p0 + kc) of the strip; row p is (c, ky, kx) with p = (c*KH + ky)*KW + kx, decomposed
// once, then stepped. kContiguous: each tap's row is one masked line at offsets[tap]; else the
// OR of its pieces' masked lines (padding, the columns past `valid` and the rows outside the
// input stay +0).
// Channel c's floats start at x + c * channel_stride (the image's planes, or a channel's phase
// planes, conv_phase_split.hpp).
template <bool kContiguous>
void fill_rows(const float* x, std::size_t channel_stride, std::size_t tap_count, std::size_t p0, std::size_t kc,
               const Im2colPiece* pieces, const std::size_t* first, const std::ptrdiff_t* offsets,
               const std::uint32_t* masks, float* out) noexcept {
  std::size_t c = p0 / tap_count, tap = p0 % tap_count;
  for (std::size_t p = 0; p < kc; ++p) {
    float* dst = out + p * kStripWidth;
    const float* plane = x + c * channel_stride;
    __m256 v0, v1;
    if constexpr (kContiguous) {
      load_line(plane, offsets[tap], masks[tap], v0, v1);
    } else {
      v0 = v1 = _mm256_setzero_ps();
      for (std::size_t i = first[tap]; i < first[tap + 1]; ++i) {
        __m256 w0, w1;
        load_line(plane, pieces[i].src - pieces[i].at, pieces[i].lanes, w0, w1);
        v0 = _mm256_or_ps(v0, w0);
        v1 = _mm256_or_ps(v1, w1);
      }
    }
    _mm256_storeu_ps(dst, v0);
    _mm256_storeu_ps(dst + 8, v1);
    if (++tap == tap_count) {
      tap = 0;
      ++c;
    }
  }
}

}  // namespace

void im2col_strip_f32__avx2(const Conv2dShape& s, const float* x_group, std::size_t p0, std::size_t kc,
                            std::size_t col, std::size_t valid, std::size_t nr, float* out) noexcept {
  const std::size_t tap_count = s.taps();
  // One-dimensional, unstrided, any number of taps (im2col_one_axis.hpp).
  if (im2col_one_axis_applies<kStripWidth>(s, valid, nr)) {
    return im2col_fill_one_axis<kStripWidth>(s, x_group, p0, kc, col, valid, out,
                                             [](float* dst, const float* row, std::ptrdiff_t offset, std::uint32_t mask) {
                                               __m256 v0, v1;
                                               load_line(row, offset, mask, v0, v1);
                                               _mm256_storeu_ps(dst, v0);
                                               _mm256_storeu_ps(dst + 8, v1);
                                             });
  }
  Im2colPiece pieces[kIm2colMaxPieces];
  std::size_t first[kIm2colMaxTaps + 1];
  const bool fits = nr == kStripWidth && tap_count > 0 && tap_count <= kIm2colMaxTaps && valid <= kStripWidth &&
                    (s.stride_w == 1 || s.stride_w == 2);
  if (!fits || !im2col_strip_pieces(s, col, valid, pieces, first)) {
    return im2col_strip_f32(s, x_group, p0, kc, col, valid, nr, out);
  }
  if (s.stride_w == 2) return fill_rows_stride2(s, x_group, p0, kc, pieces, first, out);
  im2col_fill_pieces_f32__avx2(x_group, s.in_plane(), tap_count, p0, kc, pieces, first, out);
}

void im2col_fill_pieces_f32__avx2(const float* x, std::size_t channel_stride, std::size_t taps, std::size_t p0,
                                  std::size_t kc, const Im2colPiece* pieces, const std::size_t* first,
                                  float* out) noexcept {
  std::ptrdiff_t offsets[kIm2colMaxTaps];
  std::uint32_t masks[kIm2colMaxTaps];
  if (im2col_contiguous_taps(taps, pieces, first, offsets, masks)) {
    return fill_rows<true>(x, channel_stride, taps, p0, kc, pieces, first, offsets, masks, out);
  }
  fill_rows<false>(x, channel_stride, taps, p0, kc, pieces, first, offsets, masks, out);
}

}  // namespace onemodel::opt
