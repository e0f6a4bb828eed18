// Winograd F(2x2, 3x3) on the AVX-512 path (winograd.hpp): the transforms over sixteen tiles of
// one channel's tile row a vector; the driver (blocks, products, activation) is winograd_run.hpp.
#include <immintrin.h>

#include <cstdint>

#include "optimized/kernels/conv/winograd.hpp"
#include "optimized/kernels/conv/winograd_run.hpp"
#include "optimized/kernels/window/row_lanes_avx512.hpp"

namespace onemodel::opt {
namespace {

// Lanes 0-15 of (lo, hi)'s 32 floats at even or odd positions.
inline __m512 even_lanes(__m512 lo, __m512 hi) noexcept {
  const __m512i index = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
  return _mm512_permutex2var_ps(lo, index, hi);
}
inline __m512 odd_lanes(__m512 lo, __m512 hi) noexcept {
  const __m512i index = _mm512_setr_epi32(1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31);
  return _mm512_permutex2var_ps(lo, index, hi);
}

struct Geometry {
  static constexpr std::size_t kTilesPerVector = 16;
  const Conv2dShape* s;
  std::size_t tile_cols;

  Geometry(const Conv2dShape* shape, std::size_t cols) noexcept : s(shape), tile_cols(cols) {}

  // B^T d B for sixteen tiles from column tile `tx0` of tile row `ty` of channel plane `x_c`,
  // stored at out + e * stride + t for element e (lanes past the row's last tile not stored).
  void transform_inputs(const float* x_c, std::size_t ty, std::size_t tx0, float* out, std::size_t stride) const {
    const std::ptrdiff_t width = static_cast<std::ptrdiff_t>(s->in_w);
    const std::ptrdiff_t col = 2 * static_cast<std::ptrdiff_t>(tx0) - static_cast<std::ptrdiff_t>(s->pad_left);
    // d0..d3 of each tile in a row: columns col + 2t + {0, 1, 2, 3}.
    const __mmask16 m0 = row_lanes::between(-col, width - col), m1 = row_lanes::between(-col - 16, width - col - 16);
    const __mmask16 m2 = row_lanes::between(-col - 2, width - col - 2);
    const __mmask16 m3 = row_lanes::between(-col - 18, width - col - 18);
    __m512 h[4][4];
    for (std::size_t r = 0; r < 4; ++r) {
      const std::ptrdiff_t iy = static_cast<std::ptrdiff_t>(2 * ty + r) - static_cast<std::ptrdiff_t>(s->pad_top);
      if (iy < 0 || iy >= static_cast<std::ptrdiff_t>(s->in_h)) {
        for (std::size_t j = 0; j < 4; ++j) h[r][j] = _mm512_setzero_ps();
        continue;
      }
      const float* row = x_c + iy * width;
      const __m512 a = row_lanes::load_or_zero(row, col, m0), b = row_lanes::load_or_zero(row, col + 16, m1);
      const __m512 c = row_lanes::load_or_zero(row, col + 2, m2), d = row_lanes::load_or_zero(row, col + 18, m3);
      const __m512 d0 = even_lanes(a, b), d1 = odd_lanes(a, b), d2 = even_lanes(c, d), d3 = odd_lanes(c, d);
      // B^T = [1 0 -1 0; 0 1 1 0; 0 -1 1 0; 0 1 0 -1] along the row.
      h[r][0] = _mm512_sub_ps(d0, d2);
      h[r][1] = _mm512_add_ps(d1, d2);
      h[r][2] = _mm512_sub_ps(d2, d1);
      h[r][3] = _mm512_sub_ps(d1, d3);
    }
    const __mmask16 store = row_lanes::between(0, static_cast<std::ptrdiff_t>(tile_cols - tx0));
    for (std::size_t j = 0; j < 4; ++j) {
      // The same down the columns.
      _mm512_mask_storeu_ps(out + (0 * 4 + j) * stride, store, _mm512_sub_ps(h[0][j], h[2][j]));
      _mm512_mask_storeu_ps(out + (1 * 4 + j) * stride, store, _mm512_add_ps(h[1][j], h[2][j]));
      _mm512_mask_storeu_ps(out + (2 * 4 + j) * stride, store, _mm512_sub_ps(h[2][j], h[1][j]));
      _mm512_mask_storeu_ps(out + (3 * 4 + j) * stride, store, _mm512_sub_ps(h[1][j], h[3][j]));
    }
  }

  // A^T m A (+ bias) for sixteen tiles from column tile `tx0` of tile row `ty`, products at
  // m + e * stride + t; writes output rows 2 ty and 2 ty + 1 (where inside) of plane y_o.
  // Returns whether a lane holds a NaN (before any activation).
  bool transform_outputs(const float* m, std::size_t stride, float bias_value, std::size_t ty, std::size_t tx0,
                         float* y_o) const {
    const __m512 bias = _mm512_set1_ps(bias_value);
    // Lanes past the tile row read nothing: the block's last products end the workspace.
    const __mmask16 tiles = row_lanes::between(0, static_cast<std::ptrdiff_t>(tile_cols - tx0));
    __m512 s0[4], s1[4];
    for (std::size_t i = 0; i < 4; ++i) {
      // A^T = [1 1 1 0; 0 1 -1 -1] along the row.
      const __m512 a = _mm512_maskz_loadu_ps(tiles, m + (i * 4 + 0) * stride);
      const __m512 b = _mm512_maskz_loadu_ps(tiles, m + (i * 4 + 1) * stride);
      const __m512 c = _mm512_maskz_loadu_ps(tiles, m + (i * 4 + 2) * stride);
      const __m512 d = _mm512_maskz_loadu_ps(tiles, m + (i * 4 + 3) * stride);
      s0[i] = _mm512_add_ps(_mm512_add_ps(a, b), c);
      s1[i] = _mm512_sub_ps(_mm512_sub_ps(b, c), d);
    }
    const __m512 y00 = _mm512_add_ps(_mm512_add_ps(_mm512_add_ps(s0[0], s0[1]), s0[2]), bias);
    const __m512 y01 = _mm512_add_ps(_mm512_add_ps(_mm512_add_ps(s1[0], s1[1]), s1[2]), bias);
    const __m512 y10 = _mm512_add_ps(_mm512_sub_ps(_mm512_sub_ps(s0[1], s0[2]), s0[3]), bias);
    const __m512 y11 = _mm512_add_ps(_mm512_sub_ps(_mm512_sub_ps(s1[1], s1[2]), s1[3]), bias);
    const __mmask16 nan = _mm512_cmp_ps_mask(y00, y01, _CMP_UNORD_Q) | _mm512_cmp_ps_mask(y10, y11, _CMP_UNORD_Q);
    const std::ptrdiff_t col = 2 * static_cast<std::ptrdiff_t>(tx0), width = static_cast<std::ptrdiff_t>(s->out_w);
    const __mmask16 lo = row_lanes::between(0, width - col), hi = row_lanes::between(0, width - col - 16);
    const __m512i first = _mm512_setr_epi32(0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23);
    const __m512i second = _mm512_setr_epi32(8, 24, 9, 25, 10, 26, 11, 27, 12, 28, 13, 29, 14, 30, 15, 31);
    float* row = y_o + 2 * ty * s->out_w + static_cast<std::size_t>(col);
    _mm512_mask_storeu_ps(row, lo, _mm512_permutex2var_ps(y00, first, y01));
    if (hi != 0) _mm512_mask_storeu_ps(row + 16, hi, _mm512_permutex2var_ps(y00, second, y01));
    if (2 * ty + 1 >= s->out_h) return nan != 0;
    row += s->out_w;
    _mm512_mask_storeu_ps(row, lo, _mm512_permutex2var_ps(y10, first, y11));
    if (hi != 0) _mm512_mask_storeu_ps(row + 16, hi, _mm512_permutex2var_ps(y10, second, y11));
    return nan != 0;
  }
};

}  // namespace

bool winograd_conv2d_f32__avx512(const KernelContext& context, const Conv2dShape& s, const float* x,
                                 const std::vector<PackedA>& packed, const float* bias, float* y, float* workspace,
                                 const ConvActivation* activation) {
  return winograd::run<Geometry>(context, s, x, packed, bias, y, workspace, activation);
}

}  // namespace onemodel::opt
