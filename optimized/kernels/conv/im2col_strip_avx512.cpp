// The im2col strip of the AVX-512 path (im2col.hpp, im2col_strip_f32__avx512): a strip of 32
// columns touches only a few output rows, so each of its rows is a zeroed 32-float line plus one
// short copy per output row the strip crosses. im2col_strip_f32 makes those copies with memcpy,
// std::fill calls and (at stride 2) a scalar loop of a few floats each, which cost more than the
// copies themselves (about a fifth of a 64-channel 3x3 convolution at 56 x 56); here each copy is
// at most two masked loads (and, at stride 2, a permutation picking every other input) and a
// masked store per 16 columns. Only data moves, so the floats are im2col_strip_f32's bit for bit
// (NaN payloads included). Masked-off lanes neither read nor write memory, so no access reaches
// past the input row's inside range or the strip's line. Compiled with the AVX-512 flags of
// cmake/kernel_sources.cmake; called only on the AVX-512 path (im2col_strip_for).
#include <immintrin.h>

#include <algorithm>
#include <cstdint>

#include "optimized/kernels/conv/im2col.hpp"
#include "optimized/kernels/conv/im2col_one_axis.hpp"

namespace onemodel::opt {
namespace {

constexpr std::size_t kStripWidth = 32;
constexpr std::size_t kMaxTaps = kIm2colMaxTaps;

inline __mmask16 first_lanes(std::ptrdiff_t count) noexcept {
  if (count <= 0) return 0;
  return count >= 16 ? static_cast<__mmask16>(0xFFFF) : static_cast<__mmask16>((1u << count) - 1u);
}

// dst[x] = src[x * kStride] for x in [0, len), len <= 32, kStride 1 or 2. At stride 2 the 16
// outputs of a chunk come from its 2 * 16 - 1 inputs: two masked loads, then the even lanes.
template <int kStride>
inline void copy_segment(float* dst, const float* src, std::ptrdiff_t len) noexcept {
  for (std::ptrdiff_t off = 0; off < len; off += 16) {
    const std::ptrdiff_t n = std::min<std::ptrdiff_t>(16, len - off);
    __m512 v;
    if constexpr (kStride == 1) {
      v = _mm512_maskz_loadu_ps(first_lanes(n), src + off);
    } else {
      const std::ptrdiff_t inputs = 2 * n - 1;
      const float* from = src + 2 * off;
      const __m512 lo = _mm512_maskz_loadu_ps(first_lanes(inputs), from);
      const __m512 hi = _mm512_maskz_loadu_ps(first_lanes(inputs - 16), from + 16);
      const __m512i even = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
      v = _mm512_permutex2var_ps(lo, even, hi);
    }
    _mm512_mask_storeu_ps(dst + off, first_lanes(n), v);
  }
}

// The copies each tap's rows make, found once per strip (im2col.hpp, im2col_strip_pieces).
using Piece = Im2colPiece;
constexpr std::size_t kMaxPieces = kIm2colMaxPieces;

// The line's lanes of a stride-1 piece, merged into v0 (lanes 0-15) and v1 (lanes 16-31). The
// loads are masked to the piece's lanes, so they read only plane[src, src + len); their base
// addresses lie before that for the lanes left out, so they are formed as integers.
inline void place_piece(__m512& v0, __m512& v1, const float* plane, const Piece& piece) noexcept {
  const std::uintptr_t base = reinterpret_cast<std::uintptr_t>(plane) +
                              static_cast<std::uintptr_t>(piece.src - piece.at) * sizeof(float);
  const __mmask16 low = static_cast<__mmask16>(piece.lanes & 0xFFFFu), high = static_cast<__mmask16>(piece.lanes >> 16);
  v0 = _mm512_mask_loadu_ps(v0, low, reinterpret_cast<const float*>(base));
  v1 = _mm512_mask_loadu_ps(v1, high, reinterpret_cast<const float*>(base + 16 * sizeof(float)));
}

// dst[j] = plane[offset + j] for the lanes j of `mask` (bit j), +0 for the others, over one
// 32-float line of a strip. The lanes outside the mask are never read; the address is formed as an
// integer because for them it may lie outside the plane (see place_piece).
inline void copy_masked_line(float* dst, const float* plane, std::ptrdiff_t offset, std::uint32_t mask) noexcept {
  const std::uintptr_t base =
      reinterpret_cast<std::uintptr_t>(plane) + static_cast<std::uintptr_t>(offset) * sizeof(float);
  _mm512_storeu_ps(dst,
                   _mm512_maskz_loadu_ps(static_cast<__mmask16>(mask & 0xFFFFu), reinterpret_cast<const float*>(base)));
  _mm512_storeu_ps(dst + 16, _mm512_maskz_loadu_ps(static_cast<__mmask16>(mask >> 16),
                                                   reinterpret_cast<const float*>(base + 16 * sizeof(float))));
}

// fill_rows<1> for contiguous taps: the same floats (each lane's value is the one its piece
// copies, the others +0), with two masked loads and two stores per row.
void fill_rows_contiguous(const Conv2dShape& s, const float* x_group, std::size_t p0, std::size_t kc,
                          const std::ptrdiff_t* offsets, const std::uint32_t* masks, float* out) noexcept {
  const std::size_t tap_count = s.taps();
  std::size_t c = p0 / tap_count, tap = p0 % tap_count;
  for (std::size_t p = 0; p < kc; ++p) {
    float* dst = out + p * kStripWidth;
    copy_masked_line(dst, x_group + c * s.in_plane(), offsets[tap], masks[tap]);
    if (++tap == tap_count) {
      tap = 0;
      ++c;
    }
  }
}

template <int kStride>
void fill_rows(const Conv2dShape& s, const float* x_group, std::size_t p0, std::size_t kc, const Piece* pieces,
               const std::size_t* first, float* out) noexcept {
  const std::size_t tap_count = s.taps();
  const __m512 zero = _mm512_setzero_ps();
  // Row p is (c, ky, kx) with p = (c*KH + ky)*KW + kx: decomposed once, then stepped.
  std::size_t c = p0 / tap_count, tap = p0 % tap_count;
  for (std::size_t p = 0; p < kc; ++p) {
    float* dst = out + p * kStripWidth;
    const float* plane = x_group + c * s.in_plane();
    // Padding, the columns past `valid` and the rows outside the input stay +0.
    if constexpr (kStride == 1) {
      __m512 v0 = zero, v1 = zero;
      for (std::size_t i = first[tap]; i < first[tap + 1]; ++i) place_piece(v0, v1, plane, pieces[i]);
      _mm512_storeu_ps(dst, v0);
      _mm512_storeu_ps(dst + 16, v1);
    } else {
      _mm512_storeu_ps(dst, zero);
      _mm512_storeu_ps(dst + 16, zero);
      for (std::size_t i = first[tap]; i < first[tap + 1]; ++i) {
        copy_segment<kStride>(dst + pieces[i].at, plane + pieces[i].src, pieces[i].len);
      }
    }
    if (++tap == tap_count) {
      tap = 0;
      ++c;
    }
  }
}

}  // namespace

void im2col_strip_f32__avx512(const Conv2dShape& s, const float* x_group, std::size_t p0, std::size_t kc,
                              std::size_t col, std::size_t valid, std::size_t nr, float* out) noexcept {
  const std::size_t tap_count = s.taps();
  // One-dimensional, unstrided, any number of taps (im2col_one_axis.hpp).
  if (im2col_one_axis_applies<kStripWidth>(s, valid, nr)) {
    return im2col_fill_one_axis<kStripWidth>(s, x_group, p0, kc, col, valid, out, copy_masked_line);
  }
  Piece pieces[kMaxPieces];
  std::size_t first[kMaxTaps + 1];
  const bool fits = nr == kStripWidth && tap_count > 0 && tap_count <= kMaxTaps && valid <= kStripWidth &&
                    (s.stride_w == 1 || s.stride_w == 2);
  if (!fits || !im2col_strip_pieces(s, col, valid, pieces, first)) {
    return im2col_strip_f32(s, x_group, p0, kc, col, valid, nr, out);
  }
  if (s.stride_w == 1) {
    std::ptrdiff_t offsets[kMaxTaps];
    std::uint32_t masks[kMaxTaps];
    if (im2col_contiguous_taps(tap_count, pieces, first, offsets, masks)) {
      return fill_rows_contiguous(s, x_group, p0, kc, offsets, masks, out);
    }
    return fill_rows<1>(s, x_group, p0, kc, pieces, first, out);
  }
  fill_rows<2>(s, x_group, p0, kc, pieces, first, out);
}

}  // namespace onemodel::opt
