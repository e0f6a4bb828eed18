// Winograd F(2x2, 3x3) on the AVX2 path (winograd.hpp): the transforms over eight tiles of one
// channel's tile row a vector, with the AVX-512 path's operations per value in the same order
// (winograd_avx512.cpp); the driver (blocks, products, activation) is winograd_run.hpp. Tiles whose
// 4 x 4 patch lies inside the row load plainly; at a row's ends the loads and stores are masked
// (AVX's masked loads and stores touch no memory in masked-off lanes, so nothing outside a row or
// the workspace is read or written).
#include <immintrin.h>

#include <algorithm>
#include <cstdint>

#include "optimized/kernels/conv/winograd.hpp"
#include "optimized/kernels/conv/winograd_run.hpp"

namespace onemodel::opt {
namespace {

constexpr std::ptrdiff_t kLanes = 8;

// Lanes t in [0, 8) with lo <= t < hi, as a mask for _mm256_maskload_ps / _mm256_maskstore_ps.
inline __m256i lanes_between(std::ptrdiff_t lo, std::ptrdiff_t hi) noexcept {
  const int l = static_cast<int>(std::clamp<std::ptrdiff_t>(lo, -1, kLanes));
  const int h = static_cast<int>(std::clamp<std::ptrdiff_t>(hi, -1, kLanes));
  const __m256i t = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
  return _mm256_and_si256(_mm256_cmpgt_epi32(_mm256_set1_epi32(h), t), _mm256_cmpgt_epi32(t, _mm256_set1_epi32(l - 1)));
}

// Eight floats from row[at], lanes in `mask` read and the others 0. The address is formed as an
// integer: for masked-off lanes it may lie outside the row.
inline __m256 load_masked(const float* row, std::ptrdiff_t at, __m256i mask) noexcept {
  const std::uintptr_t address =
      reinterpret_cast<std::uintptr_t>(row) + static_cast<std::uintptr_t>(at) * sizeof(float);
  return _mm256_maskload_ps(reinterpret_cast<const float*>(address), mask);
}

// Lanes 0-7 of (lo, hi)'s 16 floats at even or odd positions: the shuffle picks them within each
// 128-bit half, the permute puts the halves in order.
inline __m256 even_lanes(__m256 lo, __m256 hi) noexcept {
  const __m256 mixed = _mm256_shuffle_ps(lo, hi, _MM_SHUFFLE(2, 0, 2, 0));
  return _mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(mixed), _MM_SHUFFLE(3, 1, 2, 0)));
}
inline __m256 odd_lanes(__m256 lo, __m256 hi) noexcept {
  const __m256 mixed = _mm256_shuffle_ps(lo, hi, _MM_SHUFFLE(3, 1, 3, 1));
  return _mm256_castpd_ps(_mm256_permute4x64_pd(_mm256_castps_pd(mixed), _MM_SHUFFLE(3, 1, 2, 0)));
}

// Stores the first `count` (0 to 8 or more) lanes of v at p.
inline void store_first(float* p, __m256 v, std::ptrdiff_t count) noexcept {
  if (count >= kLanes) {
    _mm256_storeu_ps(p, v);
  } else if (count > 0) {
    _mm256_maskstore_ps(p, lanes_between(0, count), v);
  }
}

struct Geometry {
  static constexpr std::size_t kTilesPerVector = 8;
  const Conv2dShape* s;
  std::size_t tile_cols;

  Geometry(const Conv2dShape* shape, std::size_t cols) noexcept : s(shape), tile_cols(cols) {}

  // B^T d B for eight tiles from column tile `tx0` of tile row `ty` of channel plane `x_c`,
  // stored at out + e * stride + t for element e (lanes past the row's last tile not stored).
  void transform_inputs(const float* x_c, std::size_t ty, std::size_t tx0, float* out, std::size_t stride) const {
    const std::ptrdiff_t width = static_cast<std::ptrdiff_t>(s->in_w);
    const std::ptrdiff_t col = 2 * static_cast<std::ptrdiff_t>(tx0) - static_cast<std::ptrdiff_t>(s->pad_left);
    // d0..d3 of each tile in a row: columns col + 2t + {0, 1, 2, 3}, 18 columns in all.
    const bool inside = col >= 0 && col + 2 * kLanes + 2 <= width;
    const __m256i m0 = lanes_between(-col, width - col), m1 = lanes_between(-col - 8, width - col - 8);
    const __m256i m2 = lanes_between(-col - 2, width - col - 2), m3 = lanes_between(-col - 10, width - col - 10);
    __m256 h[4][4];
    for (std::size_t r = 0; r < 4; ++r) {
      const std::ptrdiff_t iy = static_cast<std::ptrdiff_t>(2 * ty + r) - static_cast<std::ptrdiff_t>(s->pad_top);
      if (iy < 0 || iy >= static_cast<std::ptrdiff_t>(s->in_h)) {
        for (std::size_t j = 0; j < 4; ++j) h[r][j] = _mm256_setzero_ps();
        continue;
      }
      const float* row = x_c + iy * width;
      __m256 a, b, c, d;
      if (inside) {
        a = _mm256_loadu_ps(row + col);
        b = _mm256_loadu_ps(row + col + 8);
        c = _mm256_loadu_ps(row + col + 2);
        d = _mm256_loadu_ps(row + col + 10);
      } else {
        a = load_masked(row, col, m0);
        b = load_masked(row, col + 8, m1);
        c = load_masked(row, col + 2, m2);
        d = load_masked(row, col + 10, m3);
      }
      const __m256 d0 = even_lanes(a, b), d1 = odd_lanes(a, b), d2 = even_lanes(c, d), d3 = odd_lanes(c, d);
      // B^T = [1 0 -1 0; 0 1 1 0; 0 -1 1 0; 0 1 0 -1] along the row.
      h[r][0] = _mm256_sub_ps(d0, d2);
      h[r][1] = _mm256_add_ps(d1, d2);
      h[r][2] = _mm256_sub_ps(d2, d1);
      h[r][3] = _mm256_sub_ps(d1, d3);
    }
    const std::ptrdiff_t tiles = static_cast<std::ptrdiff_t>(tile_cols - tx0);
    for (std::size_t j = 0; j < 4; ++j) {
      // The same down the columns.
      store_first(out + (0 * 4 + j) * stride, _mm256_sub_ps(h[0][j], h[2][j]), tiles);
      store_first(out + (1 * 4 + j) * stride, _mm256_add_ps(h[1][j], h[2][j]), tiles);
      store_first(out + (2 * 4 + j) * stride, _mm256_sub_ps(h[2][j], h[1][j]), tiles);
      store_first(out + (3 * 4 + j) * stride, _mm256_sub_ps(h[1][j], h[3][j]), tiles);
    }
  }

  // A^T m A (+ bias) for eight tiles from column tile `tx0` of tile row `ty`, products at
  // m + e * stride + t; writes output rows 2 ty and 2 ty + 1 (where inside) of plane y_o.
  // Returns whether a lane holds a NaN (before any activation).
  bool transform_outputs(const float* m, std::size_t stride, float bias_value, std::size_t ty, std::size_t tx0,
                         float* y_o) const {
    const __m256 bias = _mm256_set1_ps(bias_value);
    // Lanes past the tile row read nothing: the block's last products end the workspace.
    const std::ptrdiff_t tiles = static_cast<std::ptrdiff_t>(tile_cols - tx0);
    const __m256i valid = lanes_between(0, tiles);
    const auto load = [&](const float* p) {
      return tiles >= kLanes ? _mm256_loadu_ps(p) : _mm256_maskload_ps(p, valid);
    };
    __m256 s0[4], s1[4];
    for (std::size_t i = 0; i < 4; ++i) {
      // A^T = [1 1 1 0; 0 1 -1 -1] along the row.
      const __m256 a = load(m + (i * 4 + 0) * stride);
      const __m256 b = load(m + (i * 4 + 1) * stride);
      const __m256 c = load(m + (i * 4 + 2) * stride);
      const __m256 d = load(m + (i * 4 + 3) * stride);
      s0[i] = _mm256_add_ps(_mm256_add_ps(a, b), c);
      s1[i] = _mm256_sub_ps(_mm256_sub_ps(b, c), d);
    }
    const __m256 y00 = _mm256_add_ps(_mm256_add_ps(_mm256_add_ps(s0[0], s0[1]), s0[2]), bias);
    const __m256 y01 = _mm256_add_ps(_mm256_add_ps(_mm256_add_ps(s1[0], s1[1]), s1[2]), bias);
    const __m256 y10 = _mm256_add_ps(_mm256_sub_ps(_mm256_sub_ps(s0[1], s0[2]), s0[3]), bias);
    const __m256 y11 = _mm256_add_ps(_mm256_sub_ps(_mm256_sub_ps(s1[1], s1[2]), s1[3]), bias);
    const int nan = _mm256_movemask_ps(_mm256_or_ps(_mm256_cmp_ps(y00, y01, _CMP_UNORD_Q),
                                                    _mm256_cmp_ps(y10, y11, _CMP_UNORD_Q)));
    const std::ptrdiff_t col = 2 * static_cast<std::ptrdiff_t>(tx0), width = static_cast<std::ptrdiff_t>(s->out_w);
    const std::ptrdiff_t columns = width - col;  // output columns left in the row from col
    float* row = y_o + 2 * ty * s->out_w + static_cast<std::size_t>(col);
    // Tile t's two columns side by side: unpack pairs lanes within each 128-bit half (tiles 0, 1,
    // 4, 5 and 2, 3, 6, 7), the permutes put tiles 0-3 then 4-7 in order.
    const auto store_row = [&](float* out, __m256 left, __m256 right) {
      const __m256 lo = _mm256_unpacklo_ps(left, right), hi = _mm256_unpackhi_ps(left, right);
      store_first(out, _mm256_permute2f128_ps(lo, hi, 0x20), columns);
      store_first(out + 8, _mm256_permute2f128_ps(lo, hi, 0x31), columns - 8);
    };
    store_row(row, y00, y01);
    if (2 * ty + 1 < s->out_h) store_row(row + s->out_w, y10, y11);
    return nan != 0;
  }
};

}  // namespace

bool winograd_conv2d_f32__avx2(const KernelContext& context, const Conv2dShape& s, const float* x,
                               const std::vector<PackedA>& packed, const float* bias, float* y, float* workspace,
                               const ConvActivation* activation) {
  return winograd::run<Geometry>(context, s, x, packed, bias, y, workspace, activation);
}

}  // namespace onemodel::opt
