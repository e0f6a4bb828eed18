// Shared pieces of the pooling operators (spec/ops/products-conv.md section 8, from ops-conv.md
// "Pooling"): a pooling geometry read from the node and an input shape, and the walk over one
// window's taps in depth, height, width order, one scalar at a time, reporting only taps inside the
// input (padding never takes part except in AveragePool's count_include_pad divisor).
#pragma once

#include <cstdint>
#include <vector>

#include "reference/ops/conv_geometry.hpp"

namespace onemodel::pooling {

namespace cg = conv_geometry;

struct PoolGeometry {
  std::int64_t n = 0, c = 0;
  int rank = 0;  // spatial axes before lifting
  std::vector<cg::Axis> axes;  // three, lifted
  std::int64_t in_plane() const noexcept { return axes[0].in * axes[1].in * axes[2].in; }
  std::int64_t out_plane() const noexcept { return axes[0].out * axes[1].out * axes[2].out; }
};

inline PoolGeometry pool_geometry(const NodeInfo& node, const cg::WindowAttributes& w, const Shape& x) {
  if (x.rank() < 3) node.fail_invalid("X must have rank 3 or more");
  PoolGeometry g;
  g.n = x[0];
  g.c = x[1];
  g.rank = x.rank() - 2;
  g.axes = cg::resolve_axes(node, w, x.extents().subspan(2), w.kernel);
  return g;
}

// Calls tap(d, h, w) for each tap of output (od, oy, ox)'s window inside the input, in depth,
// height, width order.
template <class Tap>
inline void for_each_inside_tap(const PoolGeometry& g, std::int64_t od, std::int64_t oy, std::int64_t ox, Tap&& tap) {
  const cg::Axis& ad = g.axes[0];
  const cg::Axis& ah = g.axes[1];
  const cg::Axis& aw = g.axes[2];
  for (std::int64_t kd = 0; kd < ad.kernel; ++kd) {
    const std::int64_t d = od * ad.stride - ad.pad_before + kd * ad.dilation;
    if (d < 0 || d >= ad.in) continue;
    for (std::int64_t ky = 0; ky < ah.kernel; ++ky) {
      const std::int64_t h = oy * ah.stride - ah.pad_before + ky * ah.dilation;
      if (h < 0 || h >= ah.in) continue;
      for (std::int64_t kx = 0; kx < aw.kernel; ++kx) {
        const std::int64_t wpos = ox * aw.stride - aw.pad_before + kx * aw.dilation;
        if (wpos < 0 || wpos >= aw.in) continue;
        tap(d, h, wpos);
      }
    }
  }
}

// The number of taps of one axis's window that lie inside the input or its declared padding,
// [-pad_before, in + pad_after): never taps in the overhang ceil_mode can create.
inline std::int64_t taps_within_padding(const cg::Axis& a, std::int64_t o) noexcept {
  std::int64_t count = 0;
  for (std::int64_t k = 0; k < a.kernel; ++k) {
    const std::int64_t p = o * a.stride - a.pad_before + k * a.dilation;
    if (p >= -a.pad_before && p < a.in + a.pad_after) ++count;
  }
  return count;
}

}  // namespace onemodel::pooling
