// ConvTranspose (opsets 1, 11, 22; the attributes did not change), float32
// (spec/ops/products-conv.md section 7, from ops-conv.md "Output sizes" and "Conv, ConvTranspose",
// ops-coverage.md "ConvTranspose with three spatial axes").
//
// One or two spatial axes: the exact matrix product col = Wg' * Xg (rows: output channel, kernel
// taps; columns: input positions; the sum over the group's input channels in increasing order from
// +0), then col2im: each output element starts at +0 and receives the taps that land on it in
// increasing kernel-tap order. Three spatial axes: direct loops over input element, output channel
// and kernel tap, in that order, adding into outputs that start at +0. The bias is added last.
#include "core/graph/op_kernel.hpp"
#include "reference/ops/conv_geometry.hpp"
#include "reference/ops/exact_dot.hpp"

namespace onemodel {
namespace {

namespace cg = conv_geometry;

// Floor division for a possibly negative numerator and a positive denominator.
std::int64_t floor_div(std::int64_t a, std::int64_t b) noexcept { return a >= 0 ? a / b : -((-a + b - 1) / b); }

class ConvTranspose final : public OpKernel {
 public:
  explicit ConvTranspose(const NodeInfo& node)
      : window_(cg::read_window_attributes(node, false)),
        group_(node.get_int("group", 1)),
        output_padding_(node.get_ints("output_padding")),
        output_shape_(node.get_ints("output_shape")) {
    if (group_ < 1) node.fail_invalid("group must be positive");
    for (std::int64_t p : output_padding_) {
      if (p < 0 || p > kMaxElements) node.fail_invalid("output_padding entries must be non-negative");
    }
    for (std::int64_t p : output_shape_) {
      if (p < 0 || p > kMaxElements) node.fail_invalid("output_shape entries must be non-negative");
    }
  }
  void infer(InferContext& context) const override {
    context.require_type(0, {DType::F32});
    context.require_type(1, {DType::F32});
    if (context.has_input(2)) context.require_type(2, {DType::F32});
    const Geometry g = geometry(context.node(), context.input_shape(0), context.input_shape(1));
    if (context.has_input(2)) {
      const Shape& b = context.input_shape(2);
      if (b.rank() != 1 || b[0] != g.m) context.node().fail_invalid("B must be 1-D with M elements");
    }
    std::vector<std::int64_t> out{g.n, g.m};
    for (int i = cg::kLifted - g.rank; i < cg::kLifted; ++i) out.push_back(g.axes[static_cast<std::size_t>(i)].out);
    context.set_output(0, DType::F32, Shape(std::span<const std::int64_t>(out)));
  }
  void run(RunContext& context) const override {
    const Tensor& x_t = context.input(0);
    const Geometry g = geometry(context.node(), x_t.shape(), context.input(1).shape());
    const auto x = x_t.to_vector<float>();
    const auto w = context.input(1).to_vector<float>();
    auto y = context.output(0).mutable_data<float>();
    const cg::Axis& ad = g.axes[0];
    const cg::Axis& ah = g.axes[1];
    const cg::Axis& aw = g.axes[2];
    const std::int64_t c_per_group = g.c / group_, m_per_group = g.m / group_;
    const std::int64_t in_plane = ad.in * ah.in * aw.in;
    const std::int64_t out_plane = ad.out * ah.out * aw.out;
    const std::int64_t taps = ad.kernel * ah.kernel * aw.kernel;
    auto xi = [&](std::int64_t n, std::int64_t c, std::int64_t pos) {
      return x[static_cast<std::size_t>((n * g.c + c) * in_plane + pos)];
    };
    auto wi = [&](std::int64_t c, std::int64_t ocl, std::int64_t tap) {
      return w[static_cast<std::size_t>((c * m_per_group + ocl) * taps + tap)];
    };
    if (g.rank == 3) {
      // ops-coverage.md: direct loops (input element, output channel, kernel tap).
      for (float& v : y) v = 0.0f;
      for (std::int64_t n = 0; n < g.n; ++n) {
        for (std::int64_t c = 0; c < g.c; ++c) {
          const std::int64_t grp = c / c_per_group;
          for (std::int64_t id = 0; id < ad.in; ++id) {
            for (std::int64_t iy = 0; iy < ah.in; ++iy) {
              for (std::int64_t ix = 0; ix < aw.in; ++ix) {
                const float xv = xi(n, c, (id * ah.in + iy) * aw.in + ix);
                for (std::int64_t ocl = 0; ocl < m_per_group; ++ocl) {
                  const std::int64_t oc = grp * m_per_group + ocl;
                  for (std::int64_t kd = 0; kd < ad.kernel; ++kd) {
                    const std::int64_t od = id * ad.stride - ad.pad_before + kd * ad.dilation;
                    if (od < 0 || od >= ad.out) continue;
                    for (std::int64_t ky = 0; ky < ah.kernel; ++ky) {
                      const std::int64_t oy = iy * ah.stride - ah.pad_before + ky * ah.dilation;
                      if (oy < 0 || oy >= ah.out) continue;
                      for (std::int64_t kx = 0; kx < aw.kernel; ++kx) {
                        const std::int64_t ox = ix * aw.stride - aw.pad_before + kx * aw.dilation;
                        if (ox < 0 || ox >= aw.out) continue;
                        const std::size_t o = static_cast<std::size_t>((n * g.m + oc) * out_plane + (od * ah.out + oy) * aw.out + ox);
                        y[o] = canonical_nan_f32(products::product_step(y[o], xv, wi(c, ocl, (kd * ah.kernel + ky) * aw.kernel + kx)));
                      }
                    }
                  }
                }
              }
            }
          }
        }
      }
    } else {
      // The matrix product per image and group: col[(ocl, tap), pos], then col2im.
      std::vector<float> col(static_cast<std::size_t>(m_per_group * taps * in_plane));
      for (std::int64_t n = 0; n < g.n; ++n) {
        for (std::int64_t grp = 0; grp < group_; ++grp) {
          for (std::int64_t ocl = 0; ocl < m_per_group; ++ocl) {
            for (std::int64_t tap = 0; tap < taps; ++tap) {
              for (std::int64_t pos = 0; pos < in_plane; ++pos) {
                float acc = products::accumulator_start<float>();
                for (std::int64_t cl = 0; cl < c_per_group; ++cl) {
                  const std::int64_t c = grp * c_per_group + cl;
                  acc = products::product_step(acc, wi(c, ocl, tap), xi(n, c, pos));
                }
                col[static_cast<std::size_t>((ocl * taps + tap) * in_plane + pos)] = canonical_nan_f32(acc);
              }
            }
          }
          // col2im: each output element from +0, taps landing on it in increasing tap order.
          for (std::int64_t ocl = 0; ocl < m_per_group; ++ocl) {
            const std::int64_t oc = grp * m_per_group + ocl;
            for (std::int64_t od = 0; od < ad.out; ++od) {
              for (std::int64_t oy = 0; oy < ah.out; ++oy) {
                for (std::int64_t ox = 0; ox < aw.out; ++ox) {
                  float acc = products::accumulator_start<float>();
                  for (std::int64_t kd = 0; kd < ad.kernel; ++kd) {
                    std::int64_t id = 0;
                    if (!source(ad, od, kd, id)) continue;
                    for (std::int64_t ky = 0; ky < ah.kernel; ++ky) {
                      std::int64_t iy = 0;
                      if (!source(ah, oy, ky, iy)) continue;
                      for (std::int64_t kx = 0; kx < aw.kernel; ++kx) {
                        std::int64_t ix = 0;
                        if (!source(aw, ox, kx, ix)) continue;
                        const std::int64_t tap = (kd * ah.kernel + ky) * aw.kernel + kx;
                        const std::int64_t pos = (id * ah.in + iy) * aw.in + ix;
                        acc = acc + col[static_cast<std::size_t>((ocl * taps + tap) * in_plane + pos)];
                      }
                    }
                  }
                  y[static_cast<std::size_t>((n * g.m + oc) * out_plane + (od * ah.out + oy) * aw.out + ox)] =
                      canonical_nan_f32(acc);
                }
              }
            }
          }
        }
      }
    }
    if (context.has_input(2)) {
      const auto b = context.input(2).to_vector<float>();
      std::size_t i = 0;
      for (std::int64_t n = 0; n < g.n; ++n) {
        for (std::int64_t oc = 0; oc < g.m; ++oc) {
          for (std::int64_t p = 0; p < out_plane; ++p, ++i) y[i] = canonical_nan_f32(y[i] + b[static_cast<std::size_t>(oc)]);
        }
      }
    }
  }

 private:
  struct Geometry {
    std::int64_t n = 0, c = 0, m = 0;
    int rank = 0;
    std::vector<cg::Axis> axes;
  };
  // The input position whose tap k lands on output position o: o = i * s - b + k * d.
  static bool source(const cg::Axis& a, std::int64_t o, std::int64_t k, std::int64_t& i) noexcept {
    const std::int64_t t = o + a.pad_before - k * a.dilation;
    if (t < 0 || t % a.stride != 0) return false;
    i = t / a.stride;
    return i < a.in;
  }
  Geometry geometry(const NodeInfo& node, const Shape& x, const Shape& w) const {
    if (x.rank() < 3 || x.rank() > 5) node.fail_unsupported("X of rank " + std::to_string(x.rank()) + " (1 to 3 spatial axes are handled)");
    if (w.rank() != x.rank()) node.fail_invalid("W must have the rank of X");
    Geometry g;
    g.rank = x.rank() - 2;
    g.n = x[0];
    g.c = x[1];
    if (w[0] != g.c) node.fail_invalid("W's first axis differs from X's channels");
    if (g.c % group_ != 0) node.fail_invalid("channels are not a multiple of group");
    g.m = w[1] * group_;
    const std::size_t r = static_cast<std::size_t>(g.rank);
    std::vector<std::int64_t> kernel(w.extents().begin() + 2, w.extents().end());
    if (!window_.kernel.empty() && window_.kernel != kernel) node.fail_invalid("kernel_shape differs from W's shape");
    if (!window_.strides.empty() && window_.strides.size() != r) node.fail_invalid("strides has the wrong length");
    if (!window_.dilations.empty() && window_.dilations.size() != r) node.fail_invalid("dilations has the wrong length");
    if (!window_.pads.empty() && window_.pads.size() != 2 * r) node.fail_invalid("pads has the wrong length");
    if (!output_padding_.empty() && output_padding_.size() != r) node.fail_invalid("output_padding has the wrong length");
    if (!output_shape_.empty() && output_shape_.size() != r) node.fail_invalid("output_shape has the wrong length");
    g.axes.assign(cg::kLifted, cg::Axis{});
    for (std::size_t i = 0; i < r; ++i) {
      cg::Axis& a = g.axes[cg::kLifted - r + i];
      a.in = x[static_cast<int>(i) + 2];
      a.kernel = kernel[i];
      a.stride = window_.strides.empty() ? 1 : window_.strides[i];
      a.dilation = window_.dilations.empty() ? 1 : window_.dilations[i];
      const std::int64_t extra = output_padding_.empty() ? 0 : output_padding_[i];
      // s * (n - 1) + output_padding + e, before any padding is taken off.
      const std::int64_t natural = a.stride * std::max<std::int64_t>(a.in - 1, 0) + extra + a.effective();
      if (!output_shape_.empty()) {
        // The total padding is the difference to the natural size, the extra element before
        // (floor division keeps a surplus, a negative total, at the end).
        const std::int64_t total = natural - output_shape_[i];
        a.pad_after = floor_div(total, 2);
        a.pad_before = total - a.pad_after;
        a.out = output_shape_[i];
      } else if (window_.auto_pad == "SAME_UPPER" || window_.auto_pad == "SAME_LOWER") {
        const std::int64_t target = a.in * a.stride;
        if (natural >= target) {
          const std::int64_t total = natural - target;
          if (window_.auto_pad == "SAME_UPPER") {
            a.pad_before = total / 2;
            a.pad_after = total - a.pad_before;
          } else {
            a.pad_after = total / 2;
            a.pad_before = total - a.pad_after;
          }
          a.out = target;
        } else {
          a.out = natural;
        }
      } else {
        if (window_.auto_pad == "NOTSET" && !window_.pads.empty()) {
          a.pad_before = window_.pads[i];
          a.pad_after = window_.pads[i + r];
        }
        a.out = natural - a.pad_before - a.pad_after;
        if (a.out < 0) node.fail_invalid("padding larger than the output");
      }
      if (a.out > kMaxElements) node.fail_unsupported("output extent beyond the library's limits");
    }
    return g;
  }

  cg::WindowAttributes window_;
  std::int64_t group_;
  std::vector<std::int64_t> output_padding_;
  std::vector<std::int64_t> output_shape_;
};

}  // namespace

std::unique_ptr<OpKernel> make_conv_transpose(const NodeInfo& node) { return std::make_unique<ConvTranspose>(node); }

}  // namespace onemodel
