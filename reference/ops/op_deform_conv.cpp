// DeformConv (opsets 19 and 22; 22 only adds bfloat16): spec/ops/products-conv.md section 15, from
// the ONNX DeformConv text. A 2-D convolution whose taps read the input at their grid position
// moved by a learnt offset, by bilinear interpolation (corners outside the input read +0), each
// sample optionally scaled by a mask; then Conv's product-sum order and Conv's bias pass. Only
// + - * and floor in the order section 15 states: exact, in float32 and float64 (float16 and
// bfloat16 through the adapter); two spatial axes only.
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "core/graph/op_kernel.hpp"
#include "reference/ops/conv_geometry.hpp"
#include "reference/ops/elementwise_dispatch.hpp"
#include "reference/ops/exact_dot.hpp"

namespace onemodel {
namespace {

namespace cg = conv_geometry;

using DeformTypes = ew::Types<ew::F32, ew::F64>;

enum : std::size_t { kX = 0, kW, kOffset, kBias, kMask };

struct DeformGeometry {
  std::int64_t n = 0, c = 0, h = 0, w = 0;  // X
  std::int64_t m = 0, c_per_group = 0;       // W (M, C / group, kH, kW)
  std::int64_t kh = 0, kw = 0;
  std::int64_t offset_groups = 1, c_per_offset_group = 0;
  cg::Axis y, x;  // the two spatial axes (stride, dilation, pads, output extent)
  std::int64_t taps() const noexcept { return kh * kw; }
};

class DeformConv final : public OpKernel {
 public:
  explicit DeformConv(const NodeInfo& node)
      : window_(cg::read_window_attributes(node, false)),
        group_(node.get_int("group", 1)),
        offset_group_(node.get_int("offset_group", 1)) {
    // Section 15: DeformConv has no auto_pad or ceil_mode; the shared reader accepts them for Conv.
    if (node.has("auto_pad") || node.has("ceil_mode")) node.fail_invalid("DeformConv has no auto_pad or ceil_mode");
    if (group_ < 1 || group_ > kMaxElements) node.fail_invalid("DeformConv: group must be positive");
    if (offset_group_ < 1 || offset_group_ > kMaxElements) node.fail_invalid("DeformConv: offset_group must be positive");
  }

  void infer(InferContext& context) const override {
    // Section 15: one type T for every input, float32 or float64.
    ew::require(context, kX, DeformTypes{});
    const DType type = context.input_type(kX);
    for (std::size_t i : {kW, kOffset, kBias, kMask}) {
      if (context.has_input(i) && context.input_type(i) != type) {
        context.node().fail_invalid("DeformConv: every input must have X's element type");
      }
    }
    const DeformGeometry g = geometry(context.node(), context.input_shape(kX), context.input_shape(kW),
                                      context.input_shape(kOffset),
                                      context.has_input(kBias) ? &context.input_shape(kBias) : nullptr,
                                      context.has_input(kMask) ? &context.input_shape(kMask) : nullptr);
    context.set_output(0, type, Shape{g.n, g.m, g.y.out, g.x.out});
  }

  void run(RunContext& context) const override {
    const Tensor x_t = context.input(kX).contiguous();
    const Tensor w_t = context.input(kW).contiguous();
    const Tensor offset_t = context.input(kOffset).contiguous();
    Tensor bias_t, mask_t;
    if (context.has_input(kBias)) bias_t = context.input(kBias).contiguous();
    if (context.has_input(kMask)) mask_t = context.input(kMask).contiguous();
    const DeformGeometry g = geometry(context.node(), x_t.shape(), w_t.shape(), offset_t.shape(),
                                      bias_t.defined() ? &bias_t.shape() : nullptr,
                                      mask_t.defined() ? &mask_t.shape() : nullptr);
    ew::dispatch(x_t.dtype(), DeformTypes{}, [&](auto tag) {
      using E = decltype(tag);
      run_typed<E>(g, x_t, w_t, offset_t, bias_t, mask_t, context.output(0));
    });
  }

 private:
  template <class E>
  void run_typed(const DeformGeometry& g, const Tensor& x_t, const Tensor& w_t, const Tensor& offset_t, const Tensor& bias_t,
                 const Tensor& mask_t, const Tensor& y_t) const {
    using T = typename E::value;
    const T* x = x_t.data<T>().data();
    const T* w = w_t.data<T>().data();
    const T* offset = offset_t.data<T>().data();
    const T* mask = mask_t.defined() ? mask_t.data<T>().data() : nullptr;
    T* y = y_t.mutable_data<T>().data();

    const std::int64_t taps = g.taps();
    const std::int64_t out_plane = g.y.out * g.x.out;
    const std::int64_t m_per_group = g.m / group_;
    std::size_t o = 0;
    for (std::int64_t n = 0; n < g.n; ++n) {
      for (std::int64_t oc = 0; oc < g.m; ++oc) {
        const std::int64_t grp = oc / m_per_group;
        for (std::int64_t oy = 0; oy < g.y.out; ++oy) {
          for (std::int64_t ox = 0; ox < g.x.out; ++ox, ++o) {
            const std::int64_t at = oy * g.x.out + ox;  // position in an offset or mask plane
            // Section 2's order: +0, then channel, kernel row, kernel column.
            T acc = products::accumulator_start<T>();
            for (std::int64_t c = 0; c < g.c_per_group; ++c) {
              const std::int64_t channel = grp * g.c_per_group + c;
              const std::int64_t og = channel / g.c_per_offset_group;
              const T* plane = x + (n * g.c + channel) * g.h * g.w;
              const T* w_row = w + (oc * g.c_per_group + c) * taps;
              for (std::int64_t ky = 0; ky < g.kh; ++ky) {
                for (std::int64_t kx = 0; kx < g.kw; ++kx) {
                  const std::int64_t k = ky * g.kw + kx;
                  // Section 15: channel 2k of the offset group moves the row, 2k + 1 the column.
                  const std::int64_t offset_channel = (n * g.offset_groups + og) * taps * 2 + 2 * k;
                  const T dy = offset[offset_channel * out_plane + at];
                  const T dx = offset[(offset_channel + 1) * out_plane + at];
                  const T py = static_cast<T>(oy * g.y.stride - g.y.pad_before + ky * g.y.dilation) + dy;
                  const T px = static_cast<T>(ox * g.x.stride - g.x.pad_before + kx * g.x.dilation) + dx;
                  T v = bilinear(plane, g.h, g.w, py, px);
                  if (mask != nullptr) v = v * mask[((n * g.offset_groups + og) * taps + k) * out_plane + at];
                  acc = products::product_step(acc, w_row[k], v);
                }
              }
            }
            y[o] = E::store(acc);
          }
        }
      }
    }
    // The bias: Conv's separate pass, acc + bias (section 6).
    if (bias_t.defined()) {
      const T* bias = bias_t.data<T>().data();
      std::size_t i = 0;
      for (std::int64_t n = 0; n < g.n; ++n) {
        for (std::int64_t oc = 0; oc < g.m; ++oc) {
          for (std::int64_t p = 0; p < out_plane; ++p, ++i) y[i] = E::store(y[i] + bias[oc]);
        }
      }
    }
  }

  // Section 15: the bilinear sample of a (rows, cols) plane at (py, px). A NaN position gives NaN;
  // corners outside the plane read +0; ((w1*v1 + w2*v2) + w3*v3) + w4*v4 with w1 = hy*hx,
  // w2 = hy*lx, w3 = ly*hx, w4 = ly*lx, ly = py - floor(py), hy = 1 - ly (likewise x), every
  // operation rounded. A position with every corner outside gives +0 without reading (the same
  // value: the weights are finite and not negative), which also keeps floor() in range.
  template <class T>
  static T bilinear(const T* plane, std::int64_t rows, std::int64_t cols, T py, T px) {
    if (std::isnan(py) || std::isnan(px)) return std::numeric_limits<T>::quiet_NaN();
    if (py < T(-1) || px < T(-1) || py >= static_cast<T>(rows) || px >= static_cast<T>(cols)) return T(0);
    const T fy = std::floor(py);
    const T fx = std::floor(px);
    const T ly = py - fy;
    const T lx = px - fx;
    const T hy = T(1) - ly;
    const T hx = T(1) - lx;
    const std::int64_t y0 = static_cast<std::int64_t>(fy);
    const std::int64_t x0 = static_cast<std::int64_t>(fx);
    const auto read = [&](std::int64_t r, std::int64_t c) {
      return r >= 0 && r < rows && c >= 0 && c < cols ? plane[r * cols + c] : T(0);
    };
    const T w1 = hy * hx;
    const T w2 = hy * lx;
    const T w3 = ly * hx;
    const T w4 = ly * lx;
    const T t1 = w1 * read(y0, x0);
    const T t2 = w2 * read(y0, x0 + 1);
    const T t3 = w3 * read(y0 + 1, x0);
    const T t4 = w4 * read(y0 + 1, x0 + 1);
    T v = t1 + t2;
    v = v + t3;
    v = v + t4;
    return v;
  }

  // Section 15: the shapes and attributes, every mismatch InvalidModel (Unsupported for other
  // than two spatial axes).
  DeformGeometry geometry(const NodeInfo& node, const Shape& x, const Shape& w, const Shape& offset, const Shape* bias,
                          const Shape* mask) const {
    if (x.rank() < 3) node.fail_invalid("DeformConv: X must have rank 3 or more");
    if (x.rank() != 4) node.fail_unsupported("DeformConv with " + std::to_string(x.rank() - 2) + " spatial axes (2 are handled)");
    if (w.rank() != 4) node.fail_invalid("DeformConv: W must have the rank of X");
    DeformGeometry g;
    g.n = x[0];
    g.c = x[1];
    g.h = x[2];
    g.w = x[3];
    g.m = w[0];
    g.c_per_group = w[1];
    g.kh = w[2];
    g.kw = w[3];
    if (g.c % group_ != 0 || g.c_per_group * group_ != g.c) {
      node.fail_invalid("DeformConv: W's channels times group differ from X's channels");
    }
    if (g.m % group_ != 0) node.fail_invalid("DeformConv: output channels are not a multiple of group");
    if (g.c % offset_group_ != 0) node.fail_invalid("DeformConv: X's channels are not a multiple of offset_group");
    g.offset_groups = offset_group_;
    g.c_per_offset_group = g.c / offset_group_;
    const std::vector<std::int64_t> kernel{g.kh, g.kw};
    if (!window_.kernel.empty() && window_.kernel != kernel) node.fail_invalid("DeformConv: kernel_shape differs from W's shape");
    if (g.kh < 1 || g.kw < 1) node.fail_invalid("DeformConv: W's kernel extents must be positive");
    const std::vector<cg::Axis> axes = cg::resolve_axes(node, window_, x.extents().subspan(2), kernel);
    g.y = axes[1];
    g.x = axes[2];
    // offset (N, offset_group * kH * kW * 2, oH, oW); mask (N, offset_group * kH * kW, oH, oW).
    // kH, kW and offset_group are below 2^31, so these products fit 64 bits.
    const std::int64_t taps = g.kh * g.kw;
    if (taps > kMaxElements) node.fail_invalid("DeformConv: the kernel has more than 2^31 - 1 taps");
    const std::int64_t mask_channels = offset_group_ * taps;
    const auto plane_matches = [&](const Shape& s, std::int64_t channels) {
      return s.rank() == 4 && s[0] == g.n && s[1] == channels && s[2] == g.y.out && s[3] == g.x.out;
    };
    if (!plane_matches(offset, 2 * mask_channels)) {
      node.fail_invalid("DeformConv: offset must be (N, offset_group * kH * kW * 2, output height, output width)");
    }
    if (mask != nullptr && !plane_matches(*mask, mask_channels)) {
      node.fail_invalid("DeformConv: mask must be (N, offset_group * kH * kW, output height, output width)");
    }
    if (bias != nullptr && (bias->rank() != 1 || (*bias)[0] != g.m)) {
      node.fail_invalid("DeformConv: B must be 1-D with one element per output channel");
    }
    return g;
  }

  cg::WindowAttributes window_;
  std::int64_t group_;
  std::int64_t offset_group_;
};

}  // namespace

std::unique_ptr<OpKernel> make_deform_conv(const NodeInfo& node) { return std::make_unique<DeformConv>(node); }

}  // namespace onemodel
