// The integer products shared by MatMulInteger, QLinearMatMul, ConvInteger and QLinearConv
// (spec/ops/quantization.md section 7, from int8.md "Product kernel"): sums of (a - za) * (b - zb)
// over 8-bit operands. The reference engine computes every term and the sum in 64 bits, which is
// exact, and stores the sum modulo 2^32 as int32: the value of a wrapping int32 accumulator, and
// the exact sum whenever it fits (int8.md: no overflow while K * 255 * 255 < 2^31).
#pragma once

#include <cstdint>
#include <vector>

#include "core/graph/node_info.hpp"
#include "reference/ops/conv_geometry.hpp"
#include "reference/ops/matmul_helpers.hpp"
#include "reference/ops/quant_helpers.hpp"

namespace onemodel::quant {

// Section 7: int64 to int32 modulo 2^32 (well defined in C++20).
inline std::int32_t wrap_to_int32(std::int64_t v) noexcept { return static_cast<std::int32_t>(v); }

// A zero point (or scale) that is either one value for the whole operand or one per row, column
// or output channel (`count` entries). Absent: one zero.
struct PerIndex {
  std::vector<std::int64_t> values{0};
  std::int64_t at(std::int64_t i) const noexcept {
    return values.size() == 1 ? values[0] : values[static_cast<std::size_t>(i)];
  }
};

// Section 7: a zero point or scale of `what` holds one element, or is 1-D with `count` elements.
inline void check_per_index(const NodeInfo& node, const Shape& shape, std::int64_t count, const std::string& what) {
  if (shape.element_count() == 1 && shape.rank() <= 1) return;
  if (shape.rank() == 1 && shape[0] == count) return;
  node.fail_unsupported(what + " of shape " + shape.to_string() + " (a scalar or " + std::to_string(count) +
                        " elements are handled)");
}

// The zero points of an integer tensor (one or per index).
inline PerIndex per_index_of(const Tensor& t) { return PerIndex{integers_of(t)}; }

// sum_p (a[i,p] - za(i)) * (b[p,j] - zb(j)) for every batch, row i and column j, in the layout of
// products::matmul_shape. `za` is per row (or one value), `zb` per column (or one value).
inline std::vector<std::int32_t> integer_matmul(const products::MatMulShape& s, const std::vector<std::int64_t>& a,
                                                const std::vector<std::int64_t>& b, const PerIndex& za, const PerIndex& zb) {
  const std::int64_t batches = s.batch.element_count();
  std::vector<std::int32_t> c(static_cast<std::size_t>(batches * s.m * s.n));
  for (std::int64_t bi = 0; bi < batches; ++bi) {
    std::int64_t a_off = 0, b_off = 0;
    products::batch_offsets(s, bi, a_off, b_off);
    const std::int64_t ab = a_off * s.m * s.k, bb = b_off * s.k * s.n, cb = bi * s.m * s.n;
    for (std::int64_t i = 0; i < s.m; ++i) {
      for (std::int64_t j = 0; j < s.n; ++j) {
        std::int64_t acc = 0;
        for (std::int64_t p = 0; p < s.k; ++p) {
          const std::int64_t x = a[static_cast<std::size_t>(ab + i * s.k + p)] - za.at(i);
          const std::int64_t y = b[static_cast<std::size_t>(bb + p * s.n + j)] - zb.at(j);
          acc += x * y;
        }
        c[static_cast<std::size_t>(cb + i * s.n + j)] = wrap_to_int32(acc);
      }
    }
  }
  return c;
}

// Section 10, requantization (int8.md "Operators"): mult = (s_x * s_w) / s_y, two binary32
// operations in that order; y = saturate(round_half_even(float(acc) * mult) + zp_y), where
// float(acc) is the int32 converted to binary32 (nearest even) and the product one binary32
// multiplication.
inline float requant_multiplier(float sx, float sw, float sy) noexcept {
  const float p = sx * sw;
  return p / sy;
}
inline std::int64_t requantize(std::int32_t acc, float mult, std::int64_t zp, Range range) noexcept {
  const float v = static_cast<float>(acc) * mult;
  return saturate(round_half_even(static_cast<double>(v)) + static_cast<double>(zp), range);
}

// The geometry of an integer convolution: x [N, C, spatial...], w [M, C/group, kernel...].
struct IntegerConvGeometry {
  std::int64_t n = 0, c = 0, m = 0, group = 1;
  std::vector<conv_geometry::Axis> axes;
};

inline IntegerConvGeometry integer_conv_geometry(const NodeInfo& node, const conv_geometry::WindowAttributes& window,
                                                 std::int64_t group, const Shape& x, const Shape& w) {
  if (x.rank() < 3) node.fail_invalid("x must have rank 3 or more");
  if (w.rank() != x.rank()) node.fail_invalid("w must have the rank of x");
  IntegerConvGeometry g;
  g.n = x[0];
  g.c = x[1];
  g.m = w[0];
  g.group = group;
  if (g.c % group != 0 || w[1] * group != g.c) node.fail_invalid("w's channels times group differ from x's channels");
  if (g.m % group != 0) node.fail_invalid("output channels are not a multiple of group");
  std::vector<std::int64_t> kernel(w.extents().begin() + 2, w.extents().end());
  if (!window.kernel.empty() && window.kernel != kernel) node.fail_invalid("kernel_shape differs from w's shape");
  g.axes = conv_geometry::resolve_axes(node, window, x.extents().subspan(2), kernel);
  return g;
}

// Section 7, convolution: for every output, sum over input channel, kernel depth, row and column
// of (x - zx) * (w - zw(output channel)). A padding tap contributes 0: padding lies in the
// zero-point-shifted domain (ONNX ConvInteger subtracts the zero point, then pads with zeros).
inline std::vector<std::int32_t> integer_conv(const IntegerConvGeometry& g, const std::vector<std::int64_t>& x,
                                              const std::vector<std::int64_t>& w, std::int64_t zx, const PerIndex& zw) {
  const conv_geometry::Axis& ad = g.axes[0];
  const conv_geometry::Axis& ah = g.axes[1];
  const conv_geometry::Axis& aw = g.axes[2];
  const std::int64_t c_per_group = g.c / g.group, m_per_group = g.m / g.group;
  const std::int64_t in_plane = ad.in * ah.in * aw.in;
  const std::int64_t taps = ad.kernel * ah.kernel * aw.kernel;
  std::vector<std::int32_t> y(static_cast<std::size_t>(g.n * g.m * ad.out * ah.out * aw.out));
  std::size_t o = 0;
  for (std::int64_t n = 0; n < g.n; ++n) {
    for (std::int64_t oc = 0; oc < g.m; ++oc) {
      const std::int64_t grp = oc / m_per_group;
      const std::int64_t wz = zw.at(oc);
      for (std::int64_t od = 0; od < ad.out; ++od) {
        for (std::int64_t oy = 0; oy < ah.out; ++oy) {
          for (std::int64_t ox = 0; ox < aw.out; ++ox, ++o) {
            std::int64_t acc = 0;
            for (std::int64_t c = 0; c < c_per_group; ++c) {
              const std::int64_t plane = (n * g.c + grp * c_per_group + c) * in_plane;
              const std::int64_t wbase = (oc * c_per_group + c) * taps;
              for (std::int64_t kd = 0; kd < ad.kernel; ++kd) {
                const std::int64_t id = od * ad.stride - ad.pad_before + kd * ad.dilation;
                for (std::int64_t ky = 0; ky < ah.kernel; ++ky) {
                  const std::int64_t iy = oy * ah.stride - ah.pad_before + ky * ah.dilation;
                  for (std::int64_t kx = 0; kx < aw.kernel; ++kx) {
                    const std::int64_t ix = ox * aw.stride - aw.pad_before + kx * aw.dilation;
                    if (id < 0 || id >= ad.in || iy < 0 || iy >= ah.in || ix < 0 || ix >= aw.in) continue;
                    const std::int64_t xv = x[static_cast<std::size_t>(plane + (id * ah.in + iy) * aw.in + ix)] - zx;
                    const std::int64_t wv = w[static_cast<std::size_t>(wbase + (kd * ah.kernel + ky) * aw.kernel + kx)] - wz;
                    acc += xv * wv;
                  }
                }
              }
            }
            y[o] = wrap_to_int32(acc);
          }
        }
      }
    }
  }
  return y;
}

}  // namespace onemodel::quant
