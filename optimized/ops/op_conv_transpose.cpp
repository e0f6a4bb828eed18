// ConvTranspose, optimized (spec/ops/products-conv.md section 7): one or two spatial axes,
// float32, as the matrix product col = Wg' * Xg (one accumulator over the group's channels in
// increasing order from +0, canonical NaN) and col2im (each output from +0, the taps landing on
// it in increasing tap order, then the bias): the reference's own two steps, so exact mode gives
// its bits. Three spatial axes, and output_shape larger than the natural size (padding before
// the output would be negative), run the reference kernel. Shapes, types and errors are the
// reference's (its infer()).
#include <memory>

#include "optimized/kernels/conv/conv2d.hpp"
#include "optimized/ops/conv_override_plan.hpp"
#include "optimized/ops/optimized_kernel.hpp"
#include "reference/ops/conv_geometry.hpp"

namespace onemodel::opt {
namespace {

namespace cg = conv_geometry;
using conv_override::Plan;

std::int64_t floor_div(std::int64_t a, std::int64_t b) noexcept { return a >= 0 ? a / b : -((-a + b - 1) / b); }

class ConvTransposeOverride final : public OptimizedKernel {
 public:
  ConvTransposeOverride(const NodeInfo& node, const OptimizedConfig& config)
      : OptimizedKernel(node, config),
        window_(cg::read_window_attributes(node, false)),
        group_(node.get_int("group", 1)),
        output_padding_(node.get_ints("output_padding")),
        output_shape_(node.get_ints("output_shape")) {}

  std::shared_ptr<const void> prepare(const InferContext& context) const override {
    auto plan = std::make_shared<Plan>();
    plan->served = resolve(context.input_shape(0), context.input_shape(1), plan->shape);
    return plan;
  }

  void run(RunContext& context) const override {
    Plan local;
    const Plan& plan = conv_override::plan_for(context, local, [this](const Shape& x, const Shape& w, Conv2dShape& s) {
      return resolve(x, w, s);
    });
    if (!plan.served) {
      run_reference(context);
      return;
    }
    const Conv2dShape& s = plan.shape;
    const Tensor x = context.input(0).contiguous();
    const Tensor w = context.input(1).contiguous();
    Tensor b;
    if (context.has_input(2)) b = context.input(2).contiguous();
    Tensor scratch;
    float* workspace = conv_override::workspace(context, conv_transpose2d_workspace_floats(s), scratch);
    conv_transpose2d_f32(kernel_context(context), s, x.data<float>().data(), w.data<float>().data(),
                         b.defined() ? b.data<float>().data() : nullptr,
                         context.output(0).mutable_data<float>().data(), workspace);
  }

 private:
  // One or two spatial axes with no negative padding before the output; false otherwise.
  bool resolve(const Shape& x, const Shape& w, Conv2dShape& s) const {
    const int rank = x.rank();
    if (rank != 3 && rank != 4) return false;
    const std::size_t r = static_cast<std::size_t>(rank - 2);
    // Axes (height, width); a 1-D transposed convolution is one row.
    cg::Axis axes[2];
    for (std::size_t i = 0; i < r; ++i) {
      if (!resolve_axis(x[static_cast<int>(i) + 2], w[static_cast<int>(i) + 2], i, r, axes[2 - r + i])) return false;
    }
    s = conv_override::shape_from_axes(x, static_cast<std::size_t>(w[1] * group_), group_, axes[0], axes[1]);
    return true;
  }

  // products-conv.md section 7, the output size and the padding before it on axis i of r.
  // False when the padding before is negative (output_shape beyond the natural size): the
  // reference handles that case.
  bool resolve_axis(std::int64_t in, std::int64_t kernel, std::size_t i, std::size_t r, cg::Axis& a) const {
    a.in = in;
    a.kernel = kernel;
    a.stride = window_.strides.empty() ? 1 : window_.strides[i];
    a.dilation = window_.dilations.empty() ? 1 : window_.dilations[i];
    const std::int64_t extra = output_padding_.empty() ? 0 : output_padding_[i];
    // s * (n - 1) + output_padding + e, before any padding is taken off.
    const std::int64_t natural = a.stride * std::max<std::int64_t>(a.in - 1, 0) + extra + a.effective();
    if (!output_shape_.empty()) {
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
        } else {
          a.pad_before = total - total / 2;
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
    }
    return a.pad_before >= 0 && a.out >= 0;
  }

  cg::WindowAttributes window_;
  std::int64_t group_;
  std::vector<std::int64_t> output_padding_;
  std::vector<std::int64_t> output_shape_;
};

}  // namespace

std::unique_ptr<OpKernel> make_optimized_conv_transpose(const NodeInfo& node, const OptimizedConfig& config) {
  return std::make_unique<ConvTransposeOverride>(node, config);
}

}  // namespace onemodel::opt
