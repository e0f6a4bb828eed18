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

  // Four vectors of one row, then one vector at a time; the last vector is moved back to end at
  // the last column (kernels-depthwise.md "Vectors per row"). Requires out_w >= W.
  static void row(const DepthwisePlaneJob& j, std::size_t oy) noexcept {
    const float* base = j.src + static_cast<std::ptrdiff_t>(oy) * j.row_step;
    float* dst = j.out + oy * j.out_w;
    std::size_t ox = 0;
    for (; ox + 4 * W <= j.out_w; ox += 4 * W) {
      V a0 = L::zero(), a1 = L::zero(), a2 = L::zero(), a3 = L::zero();
      for (std::size_t t = 0; t < j.taps; ++t) {
        const V w = L::set1(j.weights[t]);
        const float* p = base + j.tap_offsets[t] + ox;
        a0 = step(a0, w, L::load(p));
        a1 = step(a1, w, L::load(p + W));
        a2 = step(a2, w, L::load(p + 2 * W));
        a3 = step(a3, w, L::load(p + 3 * W));
      }
      finish(dst + ox, a0, j.bias);
      finish(dst + ox + W, a1, j.bias);
      finish(dst + ox + 2 * W, a2, j.bias);
      finish(dst + ox + 3 * W, a3, j.bias);
    }
    for (; ox + W <= j.out_w; ox += W) one_vector(base, dst, ox, j);
    if (ox < j.out_w) one_vector(base, dst, j.out_w - W, j);
  }

  static void one_vector(const float* base, float* dst, std::size_t ox, const DepthwisePlaneJob& j) noexcept {
    V a = L::zero();
    for (std::size_t t = 0; t < j.taps; ++t) a = step(a, L::set1(j.weights[t]), L::load(base + j.tap_offsets[t] + ox));
    finish(dst + ox, a, j.bias);
  }

  // Four rows of one vector column, sharing each tap's weight (kernels-depthwise.md "Narrow rows").
  static void four_rows(const DepthwisePlaneJob& j, std::size_t oy, std::size_t ox) noexcept {
    const float* b0 = j.src + static_cast<std::ptrdiff_t>(oy) * j.row_step + ox;
    const float* b1 = b0 + j.row_step;
    const float* b2 = b1 + j.row_step;
    const float* b3 = b2 + j.row_step;
    V a0 = L::zero(), a1 = L::zero(), a2 = L::zero(), a3 = L::zero();
    for (std::size_t t = 0; t < j.taps; ++t) {
      const V w = L::set1(j.weights[t]);
      const std::ptrdiff_t off = j.tap_offsets[t];
      a0 = step(a0, w, L::load(b0 + off));
      a1 = step(a1, w, L::load(b1 + off));
      a2 = step(a2, w, L::load(b2 + off));
      a3 = step(a3, w, L::load(b3 + off));
    }
    float* d = j.out + oy * j.out_w + ox;
    finish(d, a0, j.bias);
    finish(d + j.out_w, a1, j.bias);
    finish(d + 2 * j.out_w, a2, j.bias);
    finish(d + 3 * j.out_w, a3, j.bias);
  }

  // Requires out_w >= W.
  static void plane(const DepthwisePlaneJob& j) noexcept {
    std::size_t oy = 0;
    if (j.out_w < 4 * W && j.out_h >= 4) {
      for (; oy + 4 <= j.out_h; oy += 4) {
        std::size_t ox = 0;
        for (; ox + W <= j.out_w; ox += W) four_rows(j, oy, ox);
        if (ox < j.out_w) four_rows(j, oy, j.out_w - W);
      }
    }
    for (; oy < j.out_h; ++oy) row(j, oy);
  }
};

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
