// Conv (opsets 1, 11, 22; the attributes did not change): the exact-mode convolution
// (spec/ops/products-conv.md section 6, from exact-mode.md "Convolution"), one to three spatial
// axes lifted to three. Per output: +0, then channel c, kernel depth, row, column in that
// nesting; padding taps are real products with +0; the bias is added afterwards as a separate
// pass (acc + bias); every stored NaN is canonical. float32 only (ops-conv.md "Operators").
#include "core/graph/op_kernel.hpp"
#include "reference/ops/conv_geometry.hpp"
#include "reference/ops/elementwise_dispatch.hpp"
#include "reference/ops/exact_dot.hpp"

namespace onemodel {
namespace {

namespace cg = conv_geometry;

class Conv final : public OpKernel {
 public:
  explicit Conv(const NodeInfo& node)
      : window_(cg::read_window_attributes(node, false)), group_(node.get_int("group", 1)) {
    if (group_ < 1) node.fail_invalid("group must be positive");
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
    context.set_output(0, DType::F32, cg::output_shape(context.node(), context.input_shape(0), g.m, g.axes));
  }
  void run(RunContext& context) const override {
    const Tensor& x_t = context.input(0);
    const Tensor& w_t = context.input(1);
    const Geometry g = geometry(context.node(), x_t.shape(), w_t.shape());
    const auto x = x_t.to_vector<float>();
    const auto w = w_t.to_vector<float>();
    auto y = context.output(0).mutable_data<float>();
    const cg::Axis& ad = g.axes[0];
    const cg::Axis& ah = g.axes[1];
    const cg::Axis& aw = g.axes[2];
    const std::int64_t cg_in = g.c / group_, m_per_group = g.m / group_;
    const std::int64_t in_plane = ad.in * ah.in * aw.in;
    const std::int64_t out_plane = ad.out * ah.out * aw.out;
    const std::int64_t taps = ad.kernel * ah.kernel * aw.kernel;
    std::size_t o = 0;
    for (std::int64_t n = 0; n < g.n; ++n) {
      for (std::int64_t oc = 0; oc < g.m; ++oc) {
        const std::int64_t grp = oc / m_per_group;
        for (std::int64_t od = 0; od < ad.out; ++od) {
          for (std::int64_t oy = 0; oy < ah.out; ++oy) {
            for (std::int64_t ox = 0; ox < aw.out; ++ox, ++o) {
              float acc = products::accumulator_start<float>();
              for (std::int64_t c = 0; c < cg_in; ++c) {
                const std::int64_t plane = (n * g.c + grp * cg_in + c) * in_plane;
                const std::int64_t wbase = (oc * cg_in + c) * taps;
                for (std::int64_t kd = 0; kd < ad.kernel; ++kd) {
                  const std::int64_t id = od * ad.stride - ad.pad_before + kd * ad.dilation;
                  for (std::int64_t ky = 0; ky < ah.kernel; ++ky) {
                    const std::int64_t iy = oy * ah.stride - ah.pad_before + ky * ah.dilation;
                    for (std::int64_t kx = 0; kx < aw.kernel; ++kx) {
                      const std::int64_t ix = ox * aw.stride - aw.pad_before + kx * aw.dilation;
                      // Padding taps are real products with +0 (exact-mode.md "Convolution").
                      const bool inside = id >= 0 && id < ad.in && iy >= 0 && iy < ah.in && ix >= 0 && ix < aw.in;
                      const float v = inside ? x[static_cast<std::size_t>(plane + (id * ah.in + iy) * aw.in + ix)] : 0.0f;
                      const float wv = w[static_cast<std::size_t>(wbase + (kd * ah.kernel + ky) * aw.kernel + kx)];
                      acc = products::product_step(acc, wv, v);
                    }
                  }
                }
              }
              y[o] = canonical_nan_f32(acc);
            }
          }
        }
      }
    }
    (void)out_plane;
    // The bias: a separate pass over the output, acc + bias (ops-conv.md "Conv, ConvTranspose").
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
    std::vector<cg::Axis> axes;
  };
  Geometry geometry(const NodeInfo& node, const Shape& x, const Shape& w) const {
    if (x.rank() < 3) node.fail_invalid("X must have rank 3 or more");
    if (w.rank() != x.rank()) node.fail_invalid("W must have the rank of X");
    Geometry g;
    g.n = x[0];
    g.c = x[1];
    g.m = w[0];
    if (g.c % group_ != 0 || w[1] * group_ != g.c) node.fail_invalid("W's channels times group differ from X's channels");
    if (g.m % group_ != 0) node.fail_invalid("output channels are not a multiple of group");
    std::vector<std::int64_t> kernel(w.extents().begin() + 2, w.extents().end());
    if (!window_.kernel.empty() && window_.kernel != kernel) node.fail_invalid("kernel_shape differs from W's shape");
    const auto spatial = x.extents().subspan(2);
    g.axes = cg::resolve_axes(node, window_, spatial, kernel);
    return g;
  }

  cg::WindowAttributes window_;
  std::int64_t group_;
};

}  // namespace

std::unique_ptr<OpKernel> make_conv(const NodeInfo& node) { return std::make_unique<Conv>(node); }

}  // namespace onemodel
