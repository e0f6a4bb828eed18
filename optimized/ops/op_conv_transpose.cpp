// ConvTranspose, optimized (spec/ops/products-conv.md section 7): one or two spatial axes,
// float32, as the matrix product col = Wg' * Xg (one accumulator over the group's channels in
// increasing order from +0, canonical NaN) and col2im (each output from +0, the taps landing on
// it in increasing tap order, then the bias): the reference's own two steps, so exact mode gives
// its bits. Three spatial axes, and output_shape larger than the natural size (padding before
// the output would be negative), run the reference kernel. Shapes, types and errors are the
// reference's (its infer()).
#include <memory>

#include "optimized/kernels/conv/conv2d.hpp"
#include "optimized/ops/optimized_kernel.hpp"
#include "reference/ops/conv_geometry.hpp"

namespace onemodel::opt {
namespace {

namespace cg = conv_geometry;

std::int64_t floor_div(std::int64_t a, std::int64_t b) noexcept { return a >= 0 ? a / b : -((-a + b - 1) / b); }

class ConvTransposeOverride final : public OptimizedKernel {
 public:
  ConvTransposeOverride(const NodeInfo& node, const OptimizedConfig& config)
      : OptimizedKernel(node, config),
        window_(cg::read_window_attributes(node, false)),
        group_(node.get_int("group", 1)),
        output_padding_(node.get_ints("output_padding")),
        output_shape_(node.get_ints("output_shape")) {}

  void run(RunContext& context) const override {
    const Tensor& x_in = context.input(0);
    const Tensor& w_in = context.input(1);
    const int rank = x_in.shape().rank();
    if (rank != 3 && rank != 4) {
      run_reference(context);
      return;
    }
    const std::size_t r = static_cast<std::size_t>(rank - 2);
    // Axes (height, width); a 1-D transposed convolution is one row.
    cg::Axis axes[2];
    for (std::size_t i = 0; i < r; ++i) {
      cg::Axis& a = axes[2 - r + i];
      if (!resolve_axis(x_in.shape()[static_cast<int>(i) + 2], w_in.shape()[static_cast<int>(i) + 2], i, r, a)) {
        run_reference(context);
        return;
      }
    }
    Conv2dShape s;
    s.batch = static_cast<std::size_t>(x_in.shape()[0]);
    s.in_channels = static_cast<std::size_t>(x_in.shape()[1]);
    s.out_channels = static_cast<std::size_t>(w_in.shape()[1] * group_);
    s.groups = static_cast<std::size_t>(group_);
    s.in_h = static_cast<std::size_t>(axes[0].in);
    s.in_w = static_cast<std::size_t>(axes[1].in);
    s.kernel_h = static_cast<std::size_t>(axes[0].kernel);
    s.kernel_w = static_cast<std::size_t>(axes[1].kernel);
    s.stride_h = static_cast<std::size_t>(axes[0].stride);
    s.stride_w = static_cast<std::size_t>(axes[1].stride);
    s.dilation_h = static_cast<std::size_t>(axes[0].dilation);
    s.dilation_w = static_cast<std::size_t>(axes[1].dilation);
    s.pad_top = static_cast<std::size_t>(axes[0].pad_before);
    s.pad_left = static_cast<std::size_t>(axes[1].pad_before);
    s.out_h = static_cast<std::size_t>(axes[0].out);
    s.out_w = static_cast<std::size_t>(axes[1].out);

    const Tensor x = x_in.contiguous();
    const Tensor w = w_in.contiguous();
    Tensor b;
    if (context.has_input(2)) b = context.input(2).contiguous();
    const std::size_t work = conv_transpose2d_workspace_floats(s);
    Tensor scratch;
    float* workspace = nullptr;
    if (work > 0) {
      scratch = context.scratch(DType::F32, Shape{static_cast<std::int64_t>(work)});
      workspace = scratch.mutable_data<float>().data();
    }
    conv_transpose2d_f32(kernel_context(context), s, x.data<float>().data(), w.data<float>().data(),
                         b.defined() ? b.data<float>().data() : nullptr,
                         context.output(0).mutable_data<float>().data(), workspace);
  }

 private:
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
