// Conv, optimized (spec/ops/products-conv.md section 6; kernels-gemm.md "Convolution";
// kernels-depthwise.md): one or two spatial axes, float32. groups == Cin takes the direct
// depthwise kernel, every other grouping im2col + the matrix product; both give the reference's
// bits in exact mode (same per-output order over c, ky, kx from +0, padding as real +0 products,
// the bias as one rounded addition afterwards, canonical NaN). Three spatial axes run the
// reference kernel. Shapes, types and errors are the reference's (its infer()). With a fused
// activation (conv_activation.hpp) the kernels apply it to the finished outputs, after the fused
// BatchNormalization when there is one.
#include <memory>
#include <string>

#include "onemodel/half.hpp"
#include "optimized/kernels/batchnorm/batch_norm.hpp"
#include "optimized/kernels/conv/conv2d.hpp"
#include "optimized/kernels/conv/depthwise.hpp"
#include "optimized/ops/conv_activation.hpp"
#include "optimized/ops/conv_override_plan.hpp"
#include "optimized/ops/optimized_kernel.hpp"
#include "optimized/runtime/half_conversions.hpp"
#include "reference/ops/conv_geometry.hpp"

namespace onemodel::opt {
namespace {

namespace cg = conv_geometry;
using conv_override::Plan;

class ConvOverride final : public OptimizedKernel {
 public:
  ConvOverride(const NodeInfo& node, const OptimizedConfig& config)
      : OptimizedKernel(node, config),
        window_(cg::read_window_attributes(node, false)),
        group_(node.get_int("group", 1)) {
    accepts_compact_weights = true;
  }
  ConvOverride(const NodeInfo& node, const OptimizedConfig& config, FusedActivation activation)
      : ConvOverride(node, config) {
    activation_ = std::make_unique<FusedActivation>(std::move(activation));
  }
  ConvOverride(const NodeInfo& node, const OptimizedConfig& config, std::shared_ptr<const FusedNorm> norm,
               std::unique_ptr<FusedActivation> activation)
      : ConvOverride(node, config) {
    norm_ = std::move(norm);
    activation_ = std::move(activation);
  }

  const std::shared_ptr<const FusedNorm>& norm() const noexcept { return norm_; }
  bool has_activation() const noexcept { return activation_ != nullptr; }

  std::shared_ptr<const void> prepare(const InferContext& context) const override {
    auto plan = std::make_shared<Plan>();
    plan->served = resolve(context.node(), context.input_shape(0), context.input_shape(1), plan->shape);
    // Constant float32 weights of an im2col convolution: packed once here as each group's A
    // (kernels-gemm.md "Convolution"; graph-runtime.md section 2, prepare() turns constant inputs
    // into a faster form). Packing is a copy, so the results are the unpacked path's bits.
    const Tensor* w = context.input_value(1);
    const Conv2dShape& s = plan->shape;
    if (plan->served && w != nullptr && context.input_type(0) == DType::F32 && w->dtype() == DType::F32 &&
        s.groups > 0 && s.groups != s.in_channels && s.out_channels % s.groups == 0 &&
        s.in_channels % s.groups == 0 &&
        static_cast<std::size_t>(w->element_count()) == s.out_channels * s.in_per_group() * s.taps()) {
      const Tensor contiguous = w->contiguous();
      // Windows that mostly reach padding (a dilated convolution on a small map): one product
      // per tap region over the taps inside the image, same bits (conv2d_regions.hpp).
      plan->regions = conv2d_plan_regions(config().isa, s, contiguous.data<float>().data());
      if (plan->regions.empty()) {
        plan->packed_weights = conv2d_pack_weights(config().isa, s, contiguous.data<float>().data());
      }
    }
    return plan;
  }

  void run(RunContext& context) const override {
    Plan local;
    const Plan& plan = conv_override::plan_for(context, local, [&](const Shape& x, const Shape& w, Conv2dShape& s) {
      return resolve(context.node(), x, w, s);
    });
    const bool compact_w = has_compact_weight(context);
    if (!plan.served || context.input(0).dtype() != DType::F32 || (context.input(1).dtype() != DType::F32 && !compact_w)) {
      run_reference(context);
      if (norm_ != nullptr) run_norm(context);
      if (activation_ != nullptr) run_activation(context);
      return;
    }
    if (norm_ != nullptr) check_norm(context);
    ConvActivation fused;
    if (norm_ != nullptr) {
      fused.norm_scale = norm_->scale.data();
      fused.norm_shift = norm_->shift.data();
      fused.activate = activation_ != nullptr;
    }
    if (activation_ != nullptr) {
      fused.args = activation_->args;
      if (activation_->round_first != DType::F32) {
        fused.round_first = round_through_16;
        fused.bfloat16 = activation_->round_first == DType::BF16;
      }
    }
    const ConvActivation* activation = activation_ != nullptr || norm_ != nullptr ? &fused : nullptr;
    const Conv2dShape& s = plan.shape;
    const Tensor x = context.input(0).contiguous();
    Tensor b;
    if (context.has_input(2)) b = context.input(2).contiguous();
    const float* bias = b.defined() ? b.data<float>().data() : nullptr;
    float* y = context.output(0).mutable_data<float>().data();
    const KernelContext kc = kernel_context(context);
    if (compact_w && s.groups != s.in_channels) {
      // A compact weight (spec/session.md section 9): widened block by block inside the product's
      // packing of A (conv2d_f32_half_weights), never as a whole binary32 copy.
      const Tensor w = context.input(1).contiguous();
      const HalfMatrixView half{w.data<std::uint16_t>().data(), 0, 1,
                                w.dtype() == DType::F16 ? HalfFormat::Binary16 : HalfFormat::BFloat16, kc.isa};
      conv2d_f32_half_weights(kc, s, x.data<float>().data(), half, bias, y, activation);
      return;
    }
    if (s.groups == s.in_channels) {
      // Depthwise filters are read in place by the direct kernel, which has no packing: a compact
      // one (C x KH x KW values, small beside its maps) is widened into run scratch.
      const Tensor w = compact_w ? widened(context) : context.input(1).contiguous();
      depthwise_conv2d_f32(kc, s, x.data<float>().data(), w.data<float>().data(), bias, y, activation);
      return;
    }
    Tensor scratch;
    if (!plan.regions.empty()) {
      // The plan's tap-region packs stand for W (prepare()).
      float* region_workspace = conv_override::workspace(context, plan.regions.workspace_floats, scratch);
      conv2d_f32_regions(kc, s, plan.regions, x.data<float>().data(), bias, y, region_workspace, activation);
      return;
    }
    float* workspace =
        conv_override::workspace(context, conv2d_workspace_floats(s, !plan.packed_weights.empty()), scratch);
    if (!plan.packed_weights.empty()) {
      // The plan's packed weights stand for W (prepare()); W itself is not read here.
      conv2d_f32(kc, s, x.data<float>().data(), nullptr, bias, y, workspace, activation, plan.packed_weights.data());
      return;
    }
    const Tensor w = context.input(1).contiguous();
    conv2d_f32(kc, s, x.data<float>().data(), w.data<float>().data(), bias, y, workspace, activation);
  }

 private:
  // The geometry as the reference resolves it (conv_geometry.hpp, products-conv.md section 3),
  // lifted to three axes: the last two are (height, width). False for three spatial axes.
  bool resolve(const NodeInfo& node, const Shape& x, const Shape& w, Conv2dShape& s) const {
    if (x.rank() != 3 && x.rank() != 4) return false;
    const std::vector<std::int64_t> kernel(w.extents().begin() + 2, w.extents().end());
    const std::vector<cg::Axis> axes = cg::resolve_axes(node, window_, x.extents().subspan(2), kernel);
    s = conv_override::shape_from_axes(x, static_cast<std::size_t>(w[0]), group_, axes[1], axes[2]);
    return true;
  }

  // Input 1 (a compact weight) widened into run scratch (spec/half-precision.md sections 3, 5).
  static Tensor widened(RunContext& context) {
    const Tensor& w = context.input(1);
    const Tensor dense = w.contiguous();
    Tensor out = context.scratch(DType::F32, w.shape());
    if (w.dtype() == DType::F16) {
      half_bits_to_floats(dense.data<std::uint16_t>(), out.mutable_data<float>());
    } else {
      bfloat16_bits_to_floats(dense.data<std::uint16_t>(), out.mutable_data<float>());
    }
    return out;
  }

  // The normalization's channel count is the constant W's output-channel count (the pass checks
  // it); a Y of another channel count cannot occur, but is refused rather than read past.
  void check_norm(const RunContext& context) const {
    const Tensor& y = context.output(0);
    if (y.dtype() != DType::F32 || y.shape().rank() < 2 || y.shape()[1] != static_cast<std::int64_t>(norm_->scale.size())) {
      std::string message("the fused BatchNormalization has ");
      message.append(std::to_string(norm_->scale.size())).append(" channels, the Conv's output does not");
      context.node().fail_invalid(message);
    }
  }

  // The BatchNormalization on the reference Conv's output, in place: each (n, c) plane through
  // the BatchNormalization kernel's plane function (what its node would store).
  void run_norm(const RunContext& context) const {
    check_norm(context);
    const Tensor& y = context.output(0);
    const std::size_t n = static_cast<std::size_t>(y.shape()[0]), c = norm_->scale.size();
    if (n * c == 0) return;
    const std::size_t plane = static_cast<std::size_t>(y.element_count()) / (n * c);
    float* data = y.mutable_data<float>().data();
    for (std::size_t p = 0; p < n * c; ++p) {
      batchnorm::batch_norm_plane_f32(data + p * plane, data + p * plane, plane, norm_->scale[p % c], norm_->shift[p % c]);
    }
  }

  // The activation node's own kernel on the finished output, in place (as the unfused graph
  // would run it on the Conv's result; its in_place_input is 0).
  void run_activation(RunContext& context) const {
    if (activation_->round_first != DType::F32) {
      // Section 8.6: the Conv's result as the adapter would have stored it.
      const Tensor& y = context.output(0);
      round_through_16(kernel_context(context).isa, y.mutable_data<float>().data(),
                       static_cast<std::size_t>(y.element_count()), activation_->round_first == DType::BF16);
    }
    std::vector<Tensor> inputs{context.output(0)};
    inputs.insert(inputs.end(), activation_->extra_inputs.begin(), activation_->extra_inputs.end());
    std::vector<Tensor> outputs{context.output(0)};
    RunContext sub(activation_->info, inputs, outputs, nullptr, nullptr);
    activation_->kernel->run(sub);
  }

  cg::WindowAttributes window_;
  std::int64_t group_;
  std::unique_ptr<FusedActivation> activation_;  // graph-passes.md `conv-activation`, or none
  std::shared_ptr<const FusedNorm> norm_;        // graph-passes.md `conv-batchnorm-epilogue`, or none
};

}  // namespace

std::unique_ptr<OpKernel> make_optimized_conv(const NodeInfo& node, const OptimizedConfig& config) {
  return std::make_unique<ConvOverride>(node, config);
}

std::unique_ptr<OpKernel> make_optimized_conv_with_activation(const NodeInfo& conv, const OptimizedConfig& config,
                                                               FusedActivation activation) {
  return std::make_unique<ConvOverride>(conv, config, std::move(activation));
}

std::unique_ptr<OpKernel> make_optimized_conv_with_norm(const NodeInfo& conv, const OptimizedConfig& config,
                                                         std::shared_ptr<const FusedNorm> norm,
                                                         std::unique_ptr<FusedActivation> activation) {
  return std::make_unique<ConvOverride>(conv, config, std::move(norm), std::move(activation));
}

std::shared_ptr<const FusedNorm> conv_fused_norm(const OpKernel& kernel) {
  const auto* conv = dynamic_cast<const ConvOverride*>(&kernel);
  return conv != nullptr ? conv->norm() : nullptr;
}

std::string conv_fused_label(const OpKernel& kernel) {
  const auto* conv = dynamic_cast<const ConvOverride*>(&kernel);
  std::string label("Conv");
  if (conv == nullptr) return label;
  if (conv->norm() != nullptr) label.append("+BatchNormalization");
  if (conv->has_activation()) label.append("+activation");
  return label;
}

}  // namespace onemodel::opt
