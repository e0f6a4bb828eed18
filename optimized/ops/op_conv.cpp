// Conv, optimized (spec/ops/products-conv.md section 6; kernels-gemm.md "Convolution";
// kernels-depthwise.md): one or two spatial axes, float32. groups == Cin takes the direct
// depthwise kernel, every other grouping im2col + the matrix product; both give the reference's
// bits in exact mode (same per-output order over c, ky, kx from +0, padding as real +0 products,
// the bias as one rounded addition afterwards, canonical NaN). Three spatial axes run the
// reference kernel. Shapes, types and errors are the reference's (its infer()). With a fused
// activation (conv_activation.hpp) the kernels apply it to the finished outputs, after the fused
// BatchNormalization when there is one; with a fused residual Add (`conv-residual`) they add the
// residual between the two.
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "onemodel/half.hpp"
#include "onemodel/session_error.hpp"
#include "optimized/kernels/batchnorm/batch_norm.hpp"
#include "optimized/kernels/conv/conv2d.hpp"
#include "optimized/kernels/conv/conv_stem.hpp"
#include "optimized/kernels/conv/depthwise.hpp"
#include "optimized/kernels/conv/winograd.hpp"
#include "optimized/ops/conv_activation.hpp"
#include "optimized/ops/conv_override_plan.hpp"
#include "optimized/ops/optimized_kernel.hpp"
#include "optimized/runtime/half_conversions.hpp"
#include "reference/ops/conv_geometry.hpp"

namespace onemodel::opt {
namespace {

namespace cg = conv_geometry;
using conv_override::Plan;

// When a single-input-channel convolution takes the direct stem kernel (single_input_stem).
constexpr std::size_t kSingleInputStemFilters = 16;
constexpr std::size_t kSingleInputStemTaps = 9;

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
  ConvOverride(const NodeInfo& node, const OptimizedConfig& config, FusedResidual residual,
               std::shared_ptr<const FusedNorm> norm, std::unique_ptr<FusedActivation> activation)
      : ConvOverride(node, config) {
    residual_ = std::make_unique<FusedResidual>(std::move(residual));
    norm_ = std::move(norm);
    activation_ = std::move(activation);
  }

  const std::shared_ptr<const FusedNorm>& norm() const noexcept { return norm_; }
  bool has_activation() const noexcept { return activation_ != nullptr; }
  bool has_residual() const noexcept { return residual_ != nullptr; }
  const FusedActivation* activation() const noexcept { return activation_.get(); }
  const FusedResidual* residual() const noexcept { return residual_.get(); }

  std::shared_ptr<const void> prepare(const InferContext& context) const override {
    auto plan = std::make_shared<Plan>();
    plan->served = resolve(context.node(), context.input_shape(0), context.input_shape(1), plan->shape);
    // Constant float32 weights of an im2col convolution: packed once here as each group's A
    // (kernels-gemm.md "Convolution"; graph-runtime.md section 2, prepare() turns constant inputs
    // into a faster form). Packing is a copy, so the results are the unpacked path's bits.
    const Tensor* w = context.input_value(1);
    const Conv2dShape& s = plan->shape;
    const bool constant_f32 =
        plan->served && w != nullptr && context.input_type(0) == DType::F32 && w->dtype() == DType::F32 &&
        s.groups > 0 && s.out_channels % s.groups == 0 && s.in_channels % s.groups == 0 &&
        static_cast<std::size_t>(w->element_count()) == s.out_channels * s.in_per_group() * s.taps();
    if (winograd_constant(context, *plan)) {
      // Fast mode's 3x3 layers by Winograd F(2x2, 3x3) (winograd.hpp): every run of the plan takes
      // it (the path is the session's, W a constant; another input shape resolves a plan of its
      // own), so no other layout is made. A compact weight is transformed from its widened values,
      // as its binary32 original would be, so the results stay that model's bits (spec/session.md
      // section 9.5); the transformed filters are binary32 either way (docs/design.md "Winograd
      // convolution in fast mode").
      const Tensor contiguous = w->contiguous();
      std::vector<float> widened_w;
      if (w->dtype() != DType::F32) {
        widened_w.resize(static_cast<std::size_t>(w->element_count()));
        widen_into(contiguous, widened_w);
      }
      const float* filters = widened_w.empty() ? contiguous.data<float>().data() : widened_w.data();
      plan->winograd_weights = winograd_pack_weights(config().isa, s, filters);
      return plan;
    }
    if (constant_f32 && single_input_stem(context.node().exact(), s)) {
      // Depthwise by its groups, but run by the stem kernel (single_input_stem).
      plan->stem_weights = conv_stem_pack_weights(config().isa, s, w->contiguous().data<float>().data());
    } else if (constant_f32 && s.groups != s.in_channels) {
      const Tensor contiguous = w->contiguous();
      if (conv_stem_takes(config().isa, context.node().exact(), s)) {
        // The direct kernel serves every run of this plan: the path is the session's, W a float32
        // constant (never a compact weight, which does not reach this branch), and a run of
        // another input shape resolves a plan of its own (plan_for) that reads W. So the
        // product's packed weights would never be read, and are not made: they had doubled the
        // weights' memory and packing time of every such layer (docs/kernel-performance.md,
        // "Session 30").
        plan->stem_weights = conv_stem_pack_weights(config().isa, s, contiguous.data<float>().data());
        return plan;
      }
      // Windows that mostly reach padding (a dilated convolution on a small map): one product
      // per tap region over the taps inside the image, same bits (conv2d_regions.hpp). Not with
      // a fused residual: a narrow region's tile is computed in a workspace whose columns are not
      // the output's positions, where the residual would be read (conv_bias_epilogue.hpp).
      // Fast mode reads each weight once, tap by tap (conv2d_taps.hpp): the regions' per-output order
      // is exact mode's, which fast mode need not keep. With or without a fused residual, which the
      // closing pass adds at the output's own positions, so fusing it keeps the unfused bits.
      if (!context.node().exact()) {
        plan->taps = conv2d_plan_taps(config().isa, s, contiguous.data<float>().data());
        if (!plan->taps.empty()) return plan;
      }
      if (residual_ == nullptr) plan->regions = conv2d_plan_regions(config().isa, s, contiguous.data<float>().data());
      if (plan->regions.empty()) {
        plan->packed_weights = conv2d_pack_weights(config().isa, s, contiguous.data<float>().data());
      }
    }
    return plan;
  }

  void infer(InferContext& context) const override {
    if (residual_ == nullptr) return OptimizedKernel::infer(context);
    // graph-passes.md `conv-residual`: inputs X, W, B (or omitted), R. The Conv's result as the
    // Conv states it, then the output as the Add states it from that result and R (its own rules,
    // broadcasting included: a residual of another shape runs the separate nodes, run_residual).
    const std::span<const InferInput> all = context.inputs();
    if (all.size() != 4 || !all[3].present) {
      // The pass always gives four inputs; anything else is an engine defect, named as such.
      throw SessionError(SessionErrorKind::InvalidModel, "Conv: the fused residual Add has no residual input",
                         context.node().name());
    }
    InferInput conv_result;
    context.infer_as(all.first(3), [&](InferContext& inner) {
      std::vector<InferOutput> out(1);
      out[0].wanted = true;
      InferContext conv(inner.node(), inner.inputs(), out);
      OptimizedKernel::infer(conv);
      if (conv.needs_runtime_values()) inner.require_runtime_values();
      conv_result = InferInput{true, out[0].type, out[0].shape, nullptr, false};
    });
    const InferInput add_inputs[2] = {residual_->residual_first ? all[3] : conv_result,
                                      residual_->residual_first ? conv_result : all[3]};
    context.infer_as(add_inputs, [&](InferContext& inner) { residual_->add_kernel->infer(inner); });
  }

  void run(RunContext& context) const override {
    Plan local;
    const Plan& plan = conv_override::plan_for(context, local, [&](const Shape& x, const Shape& w, Conv2dShape& s) {
      return resolve(context.node(), x, w, s);
    });
    if (residual_ != nullptr) return run_residual(context, plan);
    if (!served(context, plan)) {
      run_reference(context);
      if (norm_ != nullptr) run_norm(context);
      if (activation_ != nullptr) run_activation(context);
      return;
    }
    if (norm_ != nullptr) check_norm(context);
    const ConvActivation fused = epilogue();
    run_kernels(context, plan, activation_ != nullptr || norm_ != nullptr ? &fused : nullptr);
  }

 private:
  // Whether prepare() makes Winograd's filters: a constant W of float32, float16 or bfloat16
  // values (the last two a compact weight, spec/session.md section 9) for a float32 X, of a shape
  // winograd_takes serves in this mode on this path.
  bool winograd_constant(const InferContext& context, const Plan& plan) const {
    const Tensor* w = context.input_value(1);
    if (!plan.served || w == nullptr || context.input_type(0) != DType::F32) return false;
    const DType t = w->dtype();
    const bool compact = context.input_compact(1) && (t == DType::F16 || t == DType::BF16);
    const Conv2dShape& s = plan.shape;
    return (t == DType::F32 || compact) && winograd_takes(config().isa, context.node().exact(), s) &&
           static_cast<std::size_t>(w->element_count()) == s.out_channels * s.in_channels * s.taps();
  }

  bool served(const RunContext& context, const Plan& plan) const {
    return plan.served && context.input(0).dtype() == DType::F32 &&
           (context.input(1).dtype() == DType::F32 || has_compact_weight(context));
  }

  // What the kernels apply to finished outputs: the normalization, then (set by run_residual) the
  // residual, then the activation, each when fused.
  ConvActivation epilogue() const {
    ConvActivation fused;
    if (norm_ != nullptr) {
      fused.norm_scale = norm_->scale.data();
      fused.norm_shift = norm_->shift.data();
    }
    fused.activate = activation_ != nullptr;
    if (activation_ != nullptr) {
      fused.args = activation_->args;
      if (activation_->round_first != DType::F32) {
        fused.round_first = round_through_16;
        fused.bfloat16 = activation_->round_first == DType::BF16;
      }
    }
    return fused;
  }

  // graph-passes.md `conv-residual`: when R has the output's shape and type and the Conv's result
  // is that shape too, the kernels add R to each finished tile then apply the activation; else the
  // separate nodes run in order: the Conv (and its normalization) into scratch, the Add node's
  // kernel, the activation's.
  void run_residual(RunContext& context, const Plan& plan) const {
    const Tensor& y = context.output(0);
    const Tensor& r = context.input(3);
    const Conv2dShape& s = plan.shape;
    if (served(context, plan) && y.dtype() == DType::F32 && r.dtype() == DType::F32 && r.shape() == y.shape() &&
        s.batch * s.out_channels * s.out_plane() == static_cast<std::size_t>(y.element_count())) {
      if (norm_ != nullptr) check_norm(context);
      const Tensor residual = r.contiguous();
      ConvActivation fused = epilogue();
      fused.residual = residual.data<float>().data();
      fused.residual_first = residual_->residual_first;
      run_kernels(context, plan, &fused);
      return;
    }
    // The Conv's result shape as its infer() states it for these inputs.
    std::vector<InferInput> described(3);
    for (std::size_t i = 0; i < 3; ++i) {
      if (!context.has_input(i)) continue;
      described[i] = InferInput{true, context.input(i).dtype(), context.input(i).shape(), nullptr, false};
    }
    std::vector<InferOutput> out(1);
    out[0].wanted = true;
    InferContext shaping(context.node(), described, out);
    OptimizedKernel::infer(shaping);
    std::vector<Tensor> conv_in = {context.input(0), context.input(1),
                                   context.has_input(2) ? context.input(2) : Tensor()};
    std::vector<Tensor> conv_out = {context.scratch(out[0].type, out[0].shape)};
    RunContext conv = context.with(conv_in, conv_out, nullptr);
    Plan conv_local;
    const Plan& conv_plan = conv_override::plan_for(conv, conv_local, [&](const Shape& x, const Shape& w, Conv2dShape& cs) {
      return resolve(context.node(), x, w, cs);
    });
    if (served(conv, conv_plan)) {
      ConvActivation norm_only;
      if (norm_ != nullptr) {
        check_norm(conv);
        norm_only.norm_scale = norm_->scale.data();
        norm_only.norm_shift = norm_->shift.data();
        norm_only.activate = false;
      }
      run_kernels(conv, conv_plan, norm_ != nullptr ? &norm_only : nullptr);
    } else {
      run_reference(conv);
      if (norm_ != nullptr) run_norm(conv);
    }
    std::vector<Tensor> add_in = {residual_->residual_first ? r : conv_out[0],
                                  residual_->residual_first ? conv_out[0] : r};
    std::vector<Tensor> add_out = {y};
    RunContext add(residual_->add_info, add_in, add_out, nullptr, nullptr);
    residual_->add_kernel->run(add);
    if (activation_ != nullptr) run_activation(context);
  }

  // The float32 kernels, `activation` (normalization, residual, activation) applied to finished
  // outputs.
  void run_kernels(RunContext& context, const Plan& plan, const ConvActivation* activation) const {
    const bool compact_w = has_compact_weight(context);
    const Conv2dShape& s = plan.shape;
    const Tensor x = context.input(0).contiguous();
    Tensor b;
    if (context.has_input(2)) b = context.input(2).contiguous();
    const float* bias = b.defined() ? b.data<float>().data() : nullptr;
    float* y = context.output(0).mutable_data<float>().data();
    const KernelContext kc = kernel_context(context);
#if defined(__x86_64__)
    if (!plan.winograd_weights.empty() && (kc.isa == Isa::Avx512 || kc.isa == Isa::Avx2)) {
      // The kernel's workspace is its calling thread's (winograd.hpp), not run scratch.
      if (winograd_conv2d_f32(kc, s, x.data<float>().data(), plan.winograd_weights, bias, y, nullptr, activation)) {
        return;
      }
      // A NaN came out (an infinity or NaN among the operands, winograd.hpp): the direct sum over
      // W itself decides, by the paths below as for any plan without packed weights (one group,
      // at least 8 input channels: the compact-weight product or im2col + the product). Y is not
      // an input (the Conv has no in-place input), so nothing they read was overwritten.
    }
#endif
    if (compact_w && s.groups != s.in_channels) {
      // A compact weight (spec/session.md section 9): widened block by block inside the product's
      // packing of A (conv2d_f32_half_weights), never as a whole binary32 copy.
      const Tensor w = context.input(1).contiguous();
      const HalfMatrixView half{w.data<std::uint16_t>().data(), 0, 1,
                                w.dtype() == DType::F16 ? HalfFormat::Binary16 : HalfFormat::BFloat16, kc.isa};
      conv2d_f32_half_weights(kc, s, x.data<float>().data(), half, bias, y, activation);
      return;
    }
#if defined(__x86_64__)
    if (!plan.stem_weights.empty() && kc.isa == Isa::Avx512 && !compact_w) {
      // Few input channels (one, for single_input_stem): the direct kernel on its packed weights
      // (conv_stem.hpp), same bits.
      conv_stem_f32__avx512(kc, s, x.data<float>().data(), plan.stem_weights.data(), bias, y, activation);
      return;
    }
    if (!plan.stem_weights.empty() && kc.isa == Isa::Avx2 && !compact_w) {
      // The AVX2 twin on its packed weights (8-channel rows, conv_stem_pack_weights(Isa::Avx2)).
      conv_stem_f32__avx2(kc, s, x.data<float>().data(), plan.stem_weights.data(), bias, y, activation);
      return;
    }
#endif
    if (s.groups == s.in_channels) {
      // Depthwise filters are read in place by the direct kernel, which has no packing: a compact
      // one (C x KH x KW values, small beside its maps) is widened into run scratch.
      const Tensor w = compact_w ? widened(context) : context.input(1).contiguous();
      depthwise_conv2d_f32(kc, s, x.data<float>().data(), w.data<float>().data(), bias, y, activation);
      return;
    }
    Tensor scratch;
    if (!plan.taps.empty() && !kc.exact) {
      // The plan's per-tap packs stand for W (prepare(), fast mode).
      float* tap_workspace = conv_override::workspace(context, plan.taps.workspace_floats, scratch);
      conv2d_f32_taps(kc, s, plan.taps, x.data<float>().data(), bias, y, tap_workspace, activation);
      return;
    }
    if (!plan.regions.empty()) {
      // The plan's tap-region packs stand for W (prepare()).
      float* region_workspace = conv_override::workspace(context, plan.regions.workspace_floats, scratch);
      conv2d_f32_regions(kc, s, plan.regions, x.data<float>().data(), bias, y, region_workspace, activation);
      return;
    }
    float* workspace =
        conv_override::workspace(context, conv2d_workspace_floats(s, !plan.packed_weights.empty(), kc.isa), scratch);
    if (!plan.packed_weights.empty()) {
      // The plan's packed weights stand for W (prepare()); W itself is not read here.
      conv2d_f32(kc, s, x.data<float>().data(), nullptr, bias, y, workspace, activation, plan.packed_weights.data());
      return;
    }
    const Tensor w = context.input(1).contiguous();
    conv2d_f32(kc, s, x.data<float>().data(), w.data<float>().data(), bias, y, workspace, activation);
  }

  // One input channel and one group is also a depthwise convolution (groups == Cin, Cout filters
  // on that channel). The depthwise kernel walks the input once per filter, the direct stem
  // kernel once per 32 filters and without the phase planes of a stride. Measured (session 21,
  // one thread, Intel Xeon, fast mode; depthwise against stem): wav2vec 2.0's first layer 1 -> 256,
  // 10 taps at stride 5 over 16000 samples 1744 -> 241 us; 1 -> 64 7x7/2 at 224 1770 -> 499 us;
  // 1 -> 32 3x3 at 112 118 -> 98 us; 1 -> 64, 10 taps unstrided 89 -> 83 us. With 3 taps the
  // depthwise walk is faster (1 -> 64 and 1 -> 256 over 4000: 1.12-1.26x with the stem), and below
  // 16 filters the stem's 16-channel registers run partly empty (1 -> 8 5x5 at 224: 1.35x); those
  // stay depthwise. The bits are the same either way (one order per output, conv_stem.hpp).
  bool single_input_stem(bool exact, const Conv2dShape& s) const noexcept {
    return s.in_channels == 1 && s.groups == 1 && s.out_channels >= kSingleInputStemFilters &&
           s.taps() >= kSingleInputStemTaps && conv_stem_takes(config().isa, exact, s);
  }

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
    Tensor out = context.scratch(DType::F32, w.shape());
    widen_into(w.contiguous(), out.mutable_data<float>());
    return out;
  }

  // A contiguous float16 or bfloat16 tensor's values as binary32, into `out` (its element count).
  static void widen_into(const Tensor& dense, std::span<float> out) {
    if (dense.dtype() == DType::F16) {
      half_bits_to_floats(dense.data<std::uint16_t>(), out);
    } else {
      bfloat16_bits_to_floats(dense.data<std::uint16_t>(), out);
    }
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
    const Isa isa = config().isa;
    for (std::size_t p = 0; p < n * c; ++p) {
      batchnorm::batch_norm_plane_f32(isa, data + p * plane, data + p * plane, plane, norm_->scale[p % c], norm_->shift[p % c]);
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
  std::unique_ptr<FusedResidual> residual_;      // graph-passes.md `conv-residual`, or none
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

std::unique_ptr<OpKernel> make_optimized_conv_with_residual(const NodeInfo& conv, const OptimizedConfig& config,
                                                             FusedResidual residual,
                                                             std::shared_ptr<const FusedNorm> norm,
                                                             std::unique_ptr<FusedActivation> activation) {
  return std::make_unique<ConvOverride>(conv, config, std::move(residual), std::move(norm), std::move(activation));
}

std::shared_ptr<const FusedNorm> conv_fused_norm(const OpKernel& kernel) {
  const auto* conv = dynamic_cast<const ConvOverride*>(&kernel);
  return conv != nullptr ? conv->norm() : nullptr;
}

ConvOverrideParts conv_override_parts(const OpKernel& kernel) {
  ConvOverrideParts parts;
  const auto* conv = dynamic_cast<const ConvOverride*>(&kernel);
  if (conv == nullptr) return parts;
  parts.is_override = true;
  parts.has_norm = conv->norm() != nullptr;
  parts.activation = conv->activation();
  parts.residual = conv->residual();
  return parts;
}

std::string conv_fused_label(const OpKernel& kernel) {
  const auto* conv = dynamic_cast<const ConvOverride*>(&kernel);
  std::string label("Conv");
  if (conv == nullptr) return label;
  if (conv->norm() != nullptr) label.append("+BatchNormalization");
  if (conv->has_residual()) label.append("+residual");
  if (conv->has_activation()) label.append("+activation");
  return label;
}

}  // namespace onemodel::opt
