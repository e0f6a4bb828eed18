// The depthwise plane walk, written once over a lane type so that every path runs the same
// operation sequence (kernels-depthwise.md "Layout of the work"). Each per-path file defines its
// lane traits in an anonymous namespace (so instantiations compiled with different instruction
// sets never merge at link time) and instantiates DepthwiseWalk with them.
//
// Lane traits L provide: V, kWidth, zero(), set1(f), load(p), store(p, v), add, mul,
// madd(acc, w, x) (fast mode: fused where the path has it, else acc + w*x) and canonical(v)
// (NaN lanes become 0x7FC00000).
#pragma once

#include <cstddef>

#include "optimized/kernels/conv/depthwise_plane.hpp"

namespace onemodel::opt::depthwise_detail {

template <class L, bool kExact>
struct DepthwiseWalk {
  using V = typename L::V;
  static constexpr std::size_t W = L::kWidth;

  // exact-mode.md rule 1: the product rounded, then the sum rounded.
  static V step(V acc, V w, V x) noexcept {
    if constexpr (kExact) {
      return L::add(acc, L::mul(w, x));
    } else {
      return L::madd(acc, w, x);
    }
  }
  // The bias is one rounded addition after the sum; exact mode stores canonical NaN (rule 4).
  static void finish(float* dst, V acc, const float* bias) noexcept {
    if (bias != nullptr) acc = L::add(acc, L::set1(*bias));
    if constexpr (kExact) acc = L::canonical(acc);
    L::store(dst, acc);
  }

  template <std::size_t R, std::size_t C>
  static void zero_all(V (&acc)[R][C]) noexcept {
    for (std::size_t r = 0; r < R; ++r) {
      for (std::size_t c = 0; c < C; ++c) acc[r][c] = L::zero();
    }
  }
  // Stores a tile's R x C accumulators (rows from oy, columns xs) through finish().
  template <std::size_t R, std::size_t C>
  static void finish_all(const DepthwisePlaneJob& j, std::size_t oy, const std::size_t (&xs)[C],
                         const V (&acc)[R][C]) noexcept {
    for (std::size_t r = 0; r < R; ++r) {
      float* dst = j.out + (oy + r) * j.out_w;
      for (std::size_t c = 0; c < C; ++c) finish(dst + xs[c], acc[r][c], j.bias);
    }
  }

  // One tile: R output rows from oy by C vectors at the columns xs[0..C), every accumulator its
  // own chain over the taps in row-major order (kernels-depthwise.md "Layout of the work"). The
  // R*C chains are independent, so they hide the multiply-add's latency: a single chain of taps
  // waits four cycles per tap on current x86 cores.
  template <std::size_t R, std::size_t C>
  static void tile(const DepthwisePlaneJob& j, std::size_t oy, const std::size_t (&xs)[C]) noexcept {
    V acc[R][C];
    zero_all<R, C>(acc);
    const float* base = j.src + static_cast<std::ptrdiff_t>(oy) * j.row_step;
    for (std::size_t t = 0; t < j.taps; ++t) {
      const V w = L::set1(j.weights[t]);
      const float* p = base + j.tap_offsets[t];
      for (std::size_t r = 0; r < R; ++r) {
        const float* row = p + static_cast<std::ptrdiff_t>(r) * j.row_step;
        for (std::size_t c = 0; c < C; ++c) acc[r][c] = step(acc[r][c], w, L::load(row + xs[c]));
      }
    }
    finish_all<R, C>(j, oy, xs, acc);
  }

  // The first column of vector v of a row: v * W, the last vector moved back to end at the last
  // column (kernels-depthwise.md "Vectors per row"); its overlap recomputes the same values.
  static std::size_t column(const DepthwisePlaneJob& j, std::size_t v) noexcept {
    return v * W + W <= j.out_w ? v * W : j.out_w - W;
  }

  // A K x K window with row stride S and row dilation 1, R output rows from oy by C vectors: every
  // input row the R windows reach is loaded once per kernel column and vector, and feeds each of
  // the R accumulators whose window holds it (a 3x3 window over four rows loads 6 rows instead of
  // 12); the K*K weights stay in registers (`w`, broadcast once per plane). For accumulator r the
  // input rows come in increasing order, so its taps come as ky increases and, within a row, as kx
  // increases: the row-major order of every other tile, the same chain, the same bits.
  template <std::size_t K, std::size_t S, std::size_t R, std::size_t C>
  static void tile_fixed(const DepthwisePlaneJob& j, std::size_t oy, const std::size_t (&xs)[C],
                         const V (&w)[K * K]) noexcept {
    V acc[R][C];
    zero_all<R, C>(acc);
    const float* base = j.src + static_cast<std::ptrdiff_t>(oy) * j.row_step;
    constexpr std::size_t kInputRows = (R - 1) * S + K;
#pragma GCC unroll 16
    for (std::size_t i = 0; i < kInputRows; ++i) {
      const float* row = base + static_cast<std::ptrdiff_t>(i) * j.width;
#pragma GCC unroll 8
      for (std::size_t kx = 0; kx < K; ++kx) {
        const float* p = row + j.tap_offsets[kx];
        V v[C];
        for (std::size_t c = 0; c < C; ++c) v[c] = L::load(p + xs[c]);
#pragma GCC unroll 8
        for (std::size_t r = 0; r < R; ++r) {
          if (i < r * S || i - r * S >= K) continue;
          const V wk = w[(i - r * S) * K + kx];
          for (std::size_t c = 0; c < C; ++c) acc[r][c] = step(acc[r][c], wk, v[c]);
        }
      }
    }
    finish_all<R, C>(j, oy, xs, acc);
  }

  // The plane with fixed-window tiles of four rows by C vectors; rows left over take the general
  // one-row tiles. Requires out_w >= W.
  template <std::size_t K, std::size_t S, std::size_t C>
  static void plane_fixed(const DepthwisePlaneJob& j) noexcept {
    V w[K * K];
    for (std::size_t t = 0; t < K * K; ++t) w[t] = L::set1(j.weights[t]);
    const std::size_t vectors = (j.out_w + W - 1) / W;
    std::size_t oy = 0;
    for (; oy + 4 <= j.out_h; oy += 4) {
      std::size_t v = 0;
      if constexpr (C == 2) {
        for (; v + 2 <= vectors; v += 2) tile_fixed<K, S, 4, 2>(j, oy, {column(j, v), column(j, v + 1)}, w);
      }
      for (; v < vectors; ++v) tile_fixed<K, S, 4, 1>(j, oy, {column(j, v)}, w);
    }
    rows_from(j, oy, vectors);
  }

  // Tiles of four rows by two vectors (eight chains), then the leftovers. Which tile computes an
  // output never changes its value: each output is its own chain. Requires out_w >= W. Square
  // 3x3 and 5x5 windows with row stride 1 or 2 and row dilation 1 (the depthwise layers of the
  // mobile networks) take the fixed-window tiles.
  static void plane(const DepthwisePlaneJob& j) noexcept {
    // (j.taps is kernel_h * kernel_w: the walk serves whole windows.)
    if (j.dilation_h == 1 && j.kernel_h == j.kernel_w) {
      if (j.kernel_h == 3 && j.stride_h == 1) return plane_fixed<3, 1, 2>(j);
      if (j.kernel_h == 3 && j.stride_h == 2) return plane_fixed<3, 2, 2>(j);
      if (j.kernel_h == 5 && j.stride_h == 1) return plane_fixed<5, 1, 1>(j);
      if (j.kernel_h == 5 && j.stride_h == 2) return plane_fixed<5, 2, 1>(j);
    }
    general_plane(j);
  }

  static void general_plane(const DepthwisePlaneJob& j) noexcept {
    const std::size_t vectors = (j.out_w + W - 1) / W;
    std::size_t oy = 0;
    for (; oy + 4 <= j.out_h; oy += 4) {
      std::size_t v = 0;
      for (; v + 2 <= vectors; v += 2) tile<4, 2>(j, oy, {column(j, v), column(j, v + 1)});
      if (v < vectors) tile<4, 1>(j, oy, {column(j, v)});
    }
    rows_from(j, oy, vectors);
  }

  // Rows [oy, out_h), one at a time, in tiles of up to four vectors.
  static void rows_from(const DepthwisePlaneJob& j, std::size_t oy, std::size_t vectors) noexcept {
    for (; oy < j.out_h; ++oy) {
      std::size_t v = 0;
      for (; v + 4 <= vectors; v += 4) {
        tile<1, 4>(j, oy, {column(j, v), column(j, v + 1), column(j, v + 2), column(j, v + 3)});
      }
      for (; v + 2 <= vectors; v += 2) tile<1, 2>(j, oy, {column(j, v), column(j, v + 1)});
      if (v < vectors) tile<1, 1>(j, oy, {column(j, v)});
    }
  }
};

// Rows of a phase plane (depthwise_plane.hpp), as plain loops the compiler vectorizes with the
// including file's instruction set. Templated on the path's lane type so that each path keeps its
// own copy (see the top of this file).
template <class L>
void copy_phase_rows(const float* src, std::size_t src_step, std::size_t stride, std::size_t count, std::size_t rows,
                     float* out, std::size_t out_step) noexcept {
  for (std::size_t r = 0; r < rows; ++r, src += src_step, out += out_step) {
    if (stride == 1) {
      for (std::size_t j = 0; j < count; ++j) out[j] = src[j];
    } else if (stride == 2) {
      for (std::size_t j = 0; j < count; ++j) out[j] = src[2 * j];
    } else {
      for (std::size_t j = 0; j < count; ++j) out[j] = src[j * stride];
    }
  }
}

// Runs the plane with the lane type L in the job's mode.
template <class L>
void walk_plane(const DepthwisePlaneJob& job) noexcept {
  if (job.exact) {
    DepthwiseWalk<L, true>::plane(job);
  } else {
    DepthwiseWalk<L, false>::plane(job);
  }
}

}  // namespace onemodel::opt::depthwise_detail
