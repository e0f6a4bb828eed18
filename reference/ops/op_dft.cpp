// DFT (opsets 17 and 20): spec/ops/spectral.md section 2. The input's last axis holds one (real)
// or two (real, imaginary) values; the transform runs along `axis` (an attribute, default 1, in
// opset 17; an optional scalar input, default -2, from opset 20) over `dft_length` samples
// (zero-padded or cut; default the axis extent, or 2 (extent - 1) for the inverse one-sided
// transform). onesided = 1 with inverse = 0 keeps bins 0..floor(L/2) of a real input; with
// inverse = 1 it reads those bins of a complex input, completes the spectrum by conjugate symmetry
// and returns the real part. The inverse divides by L. Sums in binary64 in a stated order with the
// exact twiddles of spectral_math.hpp, rounded once to the element type: exact.
#include <algorithm>
#include <string>
#include <vector>

#include "core/graph/node_info.hpp"
#include "core/graph/op_kernel.hpp"
#include "reference/ops/axis_helpers.hpp"
#include "reference/ops/elementwise_dispatch.hpp"
#include "reference/ops/spectral_inputs.hpp"
#include "reference/ops/spectral_math.hpp"

namespace onemodel {
namespace {

using DftTypes = ew::Types<ew::F32, ew::F64>;

struct DftGeometry {
  int axis = 0;              // the transformed axis, in [0, rank - 2]
  std::int64_t length = 0;   // L
  std::int64_t used = 0;     // input samples read along the axis: min(extent, L), or bins read (IRFFT)
  std::int64_t out_extent = 0;
  bool real_out = false;     // IRFFT
};

class Dft final : public OpKernel {
 public:
  explicit Dft(const NodeInfo& node)
      : inverse_(node.get_int("inverse", 0)), onesided_(node.get_int("onesided", 0)),
        axis_attribute_(node.opset() < 20 ? node.get_int("axis", 1) : 0) {
    if (inverse_ != 0 && inverse_ != 1) node.fail_invalid("inverse must be 0 or 1, got " + std::to_string(inverse_));
    if (onesided_ != 0 && onesided_ != 1) node.fail_invalid("onesided must be 0 or 1, got " + std::to_string(onesided_));
  }

  void infer(InferContext& context) const override {
    ew::require(context, 0, DftTypes{});
    const Tensor* length = nullptr;
    const Tensor* axis = nullptr;
    if (context.has_input(1) && (length = shape_ops::value_or_defer(context, 1)) == nullptr) return;
    if (context.node().opset() >= 20 && context.has_input(2) &&
        (axis = shape_ops::value_or_defer(context, 2)) == nullptr) {
      return;
    }
    const Shape& in = context.input_shape(0);
    const DftGeometry g = geometry(context.node(), in, length, axis);
    std::vector<std::int64_t> out(in.extents().begin(), in.extents().end());
    out[static_cast<std::size_t>(g.axis)] = g.out_extent;
    out.back() = g.real_out ? 1 : 2;
    context.set_output(0, context.input_type(0), shape_ops::make_shape(context.node(), out));
  }

  void run(RunContext& context) const override {
    const NodeInfo& node = context.node();
    const Tensor x = context.input(0).contiguous();
    const Tensor* length = context.has_input(1) ? &context.input(1) : nullptr;
    const Tensor* axis = node.opset() >= 20 && context.has_input(2) ? &context.input(2) : nullptr;
    const DftGeometry g = geometry(node, x.shape(), length, axis);
    const Tensor& out = context.output(0);
    const Shape& s = x.shape();
    const int rank = s.rank();
    const std::int64_t extent = s[g.axis];
    const bool complex_in = s[rank - 1] == 2;
    // outer: the axes before `axis`; inner: the axes between `axis` and the complex axis.
    std::int64_t outer = 1, inner = 1;
    for (int d = 0; d < g.axis; ++d) outer *= s[d];
    for (int d = g.axis + 1; d < rank - 1; ++d) inner *= s[d];
    const std::size_t L = static_cast<std::size_t>(g.length);
    const std::size_t bins = static_cast<std::size_t>(g.out_extent);
    std::vector<double> re(L), im(L), out_re(bins), out_im(bins);
    ew::dispatch(x.dtype(), DftTypes{}, [&](auto tag) {
      using E = decltype(tag);
      using S = typename E::storage;
      const std::span<const S> in = x.data<S>();
      const std::span<S> o = out.mutable_data<S>();
      const std::int64_t in_channels = complex_in ? 2 : 1;
      const std::int64_t out_channels = g.real_out ? 1 : 2;
      for (std::int64_t a = 0; a < outer; ++a) {
        for (std::int64_t b = 0; b < inner; ++b) {
          std::fill(re.begin(), re.end(), 0.0);
          std::fill(im.begin(), im.end(), 0.0);
          for (std::int64_t n = 0; n < g.used; ++n) {
            const std::size_t at = static_cast<std::size_t>(((a * extent + n) * inner + b) * in_channels);
            re[static_cast<std::size_t>(n)] = static_cast<double>(E::load(in[at]));
            if (complex_in) im[static_cast<std::size_t>(n)] = static_cast<double>(E::load(in[at + 1]));
          }
          if (g.real_out) {
            // The rest of the spectrum by conjugate symmetry: X[L - k] = conj(X[k]).
            for (std::size_t k = static_cast<std::size_t>(g.used); k < L; ++k) {
              const std::size_t mirror = L - k;
              if (mirror < static_cast<std::size_t>(g.used)) {
                re[k] = re[mirror];
                im[k] = -im[mirror];
              }
            }
          }
          const std::size_t count = g.real_out ? L : static_cast<std::size_t>(g.used);
          spectral::dft_line(re.data(), im.data(), count, L, bins, inverse_ ? 1 : -1, out_re.data(), out_im.data());
          for (std::size_t k = 0; k < bins; ++k) {
            double vr = out_re[k], vi = out_im[k];
            if (inverse_) {
              vr /= static_cast<double>(L);
              vi /= static_cast<double>(L);
            }
            const std::size_t at = static_cast<std::size_t>(((a * g.out_extent + static_cast<std::int64_t>(k)) * inner + b) *
                                                            out_channels);
            o[at] = E::store(static_cast<typename E::value>(vr));
            if (!g.real_out) o[at + 1] = E::store(static_cast<typename E::value>(vi));
          }
        }
      }
    });
  }

 private:
  DftGeometry geometry(const NodeInfo& node, const Shape& in, const Tensor* length, const Tensor* axis) const {
    const int rank = in.rank();
    if (rank < 2) node.fail_invalid("the input needs a signal axis and the complex axis, got shape " + in.to_string());
    const std::int32_t last = in[rank - 1];
    if (last != 1 && last != 2) node.fail_invalid("the last axis holds 1 (real) or 2 (complex) values, got " + std::to_string(last));
    std::int64_t a = axis != nullptr ? spectral::int_scalar(node, *axis, "axis") : (node.opset() < 20 ? axis_attribute_ : -2);
    // ONNX: the accepted range is [-r, -2] and [0, r - 2]; -1 and r - 1 name the complex axis.
    if (a < -rank || a > rank - 2 || a == -1) {
      node.fail_invalid("axis " + std::to_string(a) + " outside [" + std::to_string(-rank) + ", -2] and [0, " +
                        std::to_string(rank - 2) + "]");
    }
    DftGeometry g;
    g.axis = static_cast<int>(a < 0 ? a + rank : a);
    const std::int64_t extent = in[g.axis];
    const bool irfft = onesided_ == 1 && inverse_ == 1;
    if (onesided_ == 1 && inverse_ == 0 && last != 1) node.fail_invalid("onesided = 1 (forward) takes a real input");
    if (irfft && last != 2) node.fail_invalid("onesided = 1 with inverse = 1 takes a complex input");
    g.length = length != nullptr ? spectral::int_scalar(node, *length, "dft_length") : (irfft ? 2 * (extent - 1) : extent);
    if (g.length < 1) node.fail_invalid("dft_length " + std::to_string(g.length) + " is not positive");
    if (g.length > kMaxElements) node.fail_unsupported("dft_length beyond the library's limits");
    if (irfft) {
      g.real_out = true;
      g.used = std::min<std::int64_t>(extent, g.length / 2 + 1);
      g.out_extent = g.length;
    } else {
      g.used = std::min<std::int64_t>(extent, g.length);
      g.out_extent = onesided_ == 1 ? g.length / 2 + 1 : g.length;
    }
    return g;
  }

  std::int64_t inverse_;
  std::int64_t onesided_;
  std::int64_t axis_attribute_;
};

}  // namespace

std::unique_ptr<OpKernel> make_dft(const NodeInfo& node) { return std::make_unique<Dft>(node); }

}  // namespace onemodel
