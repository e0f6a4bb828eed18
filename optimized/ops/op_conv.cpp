// Conv, optimized (spec/ops/products-conv.md section 6; kernels-gemm.md "Convolution";
// kernels-depthwise.md): one or two spatial axes, float32. groups == Cin takes the direct
// depthwise kernel, every other grouping im2col + the matrix product; both give the reference's
// bits in exact mode (same per-output order over c, ky, kx from +0, padding as real +0 products,
// the bias as one rounded addition afterwards, canonical NaN). Three spatial axes run the
// reference kernel. Shapes, types and errors are the reference's (its infer()).
#include <memory>

#include "optimized/kernels/conv/conv2d.hpp"
#include "optimized/kernels/conv/depthwise.hpp"
#include "optimized/ops/optimized_kernel.hpp"
#include "reference/ops/conv_geometry.hpp"

namespace onemodel::opt {
namespace {

namespace cg = conv_geometry;

class ConvOverride final : public OptimizedKernel {
 public:
  ConvOverride(const NodeInfo& node, const OptimizedConfig& config)
      : OptimizedKernel(node, config),
        window_(cg::read_window_attributes(node, false)),
        group_(node.get_int("group", 1)) {}

  // The geometry is resolved once per plan (the input shapes are known then), so a run does not
  // allocate; without a plan's state run() resolves it itself.
  std::shared_ptr<const void> prepare(const InferContext& context) const override {
    auto plan = std::make_shared<Plan>();
    plan->served = resolve(context.node(), context.input_shape(0), context.input_shape(1), plan->shape);
    return plan;
  }

  void run(RunContext& context) const override {
    const Tensor& x_in = context.input(0);
    const Tensor& w_in = context.input(1);
    Plan local;
    const Plan* plan = static_cast<const Plan*>(context.state());
    if (plan == nullptr || !plan->matches(x_in.shape())) {
      local.served = resolve(context.node(), x_in.shape(), w_in.shape(), local.shape);
      plan = &local;
    }
    if (!plan->served) {
      run_reference(context);
      return;
    }
    const Conv2dShape& s = plan->shape;
    const Tensor x = x_in.contiguous();
    const Tensor w = w_in.contiguous();
    Tensor b;
    if (context.has_input(2)) b = context.input(2).contiguous();
    const float* bias = b.defined() ? b.data<float>().data() : nullptr;
    float* y = context.output(0).mutable_data<float>().data();
    const KernelContext kc = kernel_context(context);
    if (s.groups == s.in_channels) {
      depthwise_conv2d_f32(kc, s, x.data<float>().data(), w.data<float>().data(), bias, y);
      return;
    }
    const std::size_t work = conv2d_workspace_floats(s);
    Tensor scratch;
    float* workspace = nullptr;
    if (work > 0) {
      scratch = context.scratch(DType::F32, Shape{static_cast<std::int64_t>(work)});
      workspace = scratch.mutable_data<float>().data();
    }
    conv2d_f32(kc, s, x.data<float>().data(), w.data<float>().data(), bias, y, workspace);
  }

 private:
  struct Plan {
    bool served = false;  // one or two spatial axes
    Conv2dShape shape;
    // A plan belongs to one input shape; this guards against being handed another.
    bool matches(const Shape& x) const {
      if (!served) return x.rank() != 3 && x.rank() != 4;
      const int r = x.rank();
      return static_cast<std::size_t>(x[0]) == shape.batch && static_cast<std::size_t>(x[1]) == shape.in_channels &&
             static_cast<std::size_t>(x[r - 1]) == shape.in_w && (r == 3 ? shape.in_h == 1 : static_cast<std::size_t>(x[2]) == shape.in_h);
    }
  };

  // The geometry as the reference resolves it (conv_geometry.hpp, products-conv.md section 3),
  // lifted to three axes: the last two are (height, width). False for three spatial axes.
  bool resolve(const NodeInfo& node, const Shape& x, const Shape& w, Conv2dShape& s) const {
    if (x.rank() != 3 && x.rank() != 4) return false;
    const std::vector<std::int64_t> kernel(w.extents().begin() + 2, w.extents().end());
    const std::vector<cg::Axis> axes = cg::resolve_axes(node, window_, x.extents().subspan(2), kernel);
    const cg::Axis& ah = axes[1];
    const cg::Axis& aw = axes[2];
    s.batch = static_cast<std::size_t>(x[0]);
    s.in_channels = static_cast<std::size_t>(x[1]);
    s.out_channels = static_cast<std::size_t>(w[0]);
    s.groups = static_cast<std::size_t>(group_);
    s.in_h = static_cast<std::size_t>(ah.in);
    s.in_w = static_cast<std::size_t>(aw.in);
    s.kernel_h = static_cast<std::size_t>(ah.kernel);
    s.kernel_w = static_cast<std::size_t>(aw.kernel);
    s.stride_h = static_cast<std::size_t>(ah.stride);
    s.stride_w = static_cast<std::size_t>(aw.stride);
    s.dilation_h = static_cast<std::size_t>(ah.dilation);
    s.dilation_w = static_cast<std::size_t>(aw.dilation);
    s.pad_top = static_cast<std::size_t>(ah.pad_before);
    s.pad_left = static_cast<std::size_t>(aw.pad_before);
    s.out_h = static_cast<std::size_t>(ah.out);
    s.out_w = static_cast<std::size_t>(aw.out);
    return true;
  }

  cg::WindowAttributes window_;
  std::int64_t group_;
};

}  // namespace

std::unique_ptr<OpKernel> make_optimized_conv(const NodeInfo& node, const OptimizedConfig& config) {
  return std::make_unique<ConvOverride>(node, config);
}

}  // namespace onemodel::opt
