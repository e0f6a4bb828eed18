// NchwcConvOp (nchwc_conv_op.hpp).
#include "optimized/passes/nchwc_conv_op.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "onemodel/session_error.hpp"
#include "optimized/kernels/nchwc/nchwc.hpp"
#include "optimized/passes/nchwc_shapes.hpp"
#include "optimized/ops/conv_override_plan.hpp"
#include "reference/ops/conv_geometry.hpp"

namespace onemodel::opt {
namespace {

namespace cg = conv_geometry;

// What prepare() makes once per input shape: the geometry and the blocked weights and bias.
struct NchwcPlan {
  Shape x;  // the logical input shape it was made for
  Conv2dShape shape;
  std::vector<float> weights, bias;
  bool finite_weights = false;
};

// A blocked input of another channel or block count is the caller's (InvalidInput).
Shape logical_of_blocked(const NodeInfo& node, const Shape& blocked, std::size_t channels) {
  return nchwc::logical_of_blocked(node, blocked, channels, SessionErrorKind::InvalidInput);
}

Conv2dShape resolve(const NodeInfo& node, const Shape& x, const Shape& w) {
  const cg::WindowAttributes window = cg::read_window_attributes(node, false);
  const std::vector<std::int64_t> kernel(w.extents().begin() + 2, w.extents().end());
  const std::vector<cg::Axis> axes = cg::resolve_axes(node, window, x.extents().subspan(2), kernel);
  return conv_override::shape_from_axes(x, static_cast<std::size_t>(w[0]), node.get_int("group", 1), axes[1], axes[2]);
}

void make_plan(NchwcPlan& plan, const NchwcConvSpec& spec, const NodeInfo& node, const Shape& x, const Tensor& w,
               const Tensor* b) {
  plan.x = x;
  plan.shape = resolve(node, x, w.shape());
  const Tensor wc = w.contiguous();
  const float* wd = wc.data<float>().data();
  plan.finite_weights = std::all_of(wd, wd + w.element_count(), [](float v) { return std::isfinite(v); });
  if (spec.kind == NchwcConvSpec::Kind::Pointwise) {
    plan.weights = nchwc::pack_pointwise(wd, spec.out_channels, spec.in_channels);
  } else {
    plan.weights = nchwc::pack_depthwise(wd, spec.out_channels, plan.shape.taps());
  }
  if (b != nullptr) {
    const Tensor bc = b->contiguous();
    plan.bias = nchwc::pack_bias(bc.data<float>().data(), spec.out_channels);
  } else {
    plan.bias = nchwc::pack_bias(nullptr, spec.out_channels);
  }
}

}  // namespace

NchwcConvOp::NchwcConvOp(NchwcConvSpec spec, std::unique_ptr<OpKernel> conv, const OptimizedConfig& config)
    : spec_(spec), conv_(std::move(conv)), config_(config) {
  supports_exact = false;  // made in fast mode only (the pass does not preserve bits)
}

void NchwcConvOp::infer(InferContext& context) const {
  const std::span<const InferInput> given = context.inputs();
  std::vector<InferInput> logical(given.begin(), given.end());
  if (spec_.in_blocked && !logical.empty() && logical[0].present) {
    logical[0].shape = logical_of_blocked(context.node(), logical[0].shape, spec_.in_channels);
  }
  if (spec_.residual && spec_.out_blocked && logical.size() > 3 && logical[3].present) {
    logical[3].shape = logical_of_blocked(context.node(), logical[3].shape, spec_.out_channels);
  }
  std::vector<InferOutput> out(1);
  out[0].wanted = true;
  InferContext inner(context.node(), logical, out);
  conv_->infer(inner);
  if (inner.needs_runtime_values()) context.require_runtime_values();
  const Shape& y = out[0].shape;
  if (out[0].type != DType::F32 || y.rank() != 4 || static_cast<std::size_t>(y[1]) != spec_.out_channels ||
      (spec_.residual && (logical.size() < 4 || !(logical[3].shape == y)))) {
    // The pass makes these nodes for float32 four-dimensional Convs whose residual has the
    // output's shape; anything else is an engine defect, named as such.
    throw SessionError(SessionErrorKind::Unsupported,
                       "the channel-blocked Conv got an output or residual it was not made for (" + y.to_string() + ")",
                       context.node().name());
  }
  context.set_output(0, DType::F32, spec_.out_blocked ? nchwc::blocked_of_logical(y) : y);
}

std::shared_ptr<const void> NchwcConvOp::prepare(const InferContext& context) const {
  const Tensor* w = context.input_value(1);
  if (w == nullptr || w->dtype() != DType::F32) return nullptr;
  const Tensor* b = context.has_input(2) ? context.input_value(2) : nullptr;
  if (context.has_input(2) && b == nullptr) return nullptr;
  Shape x = context.input_shape(0);
  if (spec_.in_blocked) x = logical_of_blocked(context.node(), x, spec_.in_channels);
  auto plan = std::make_shared<NchwcPlan>();
  make_plan(*plan, spec_, context.node(), x, *w, b);
  return plan;
}

void NchwcConvOp::run(RunContext& context) const {
  const Tensor x = context.input(0).contiguous();
  Shape logical = x.shape();
  if (spec_.in_blocked) logical = logical_of_blocked(context.node(), logical, spec_.in_channels);
  const NchwcPlan* plan = static_cast<const NchwcPlan*>(context.state());
  NchwcPlan local;
  if (plan == nullptr || !(plan->x == logical)) {
    // No plan for this shape (a run without one): the same packing, into this run's memory.
    const Tensor* b = context.has_input(2) ? &context.input(2) : nullptr;
    make_plan(local, spec_, context.node(), logical, context.input(1), b);
    plan = &local;
  }
  if (x.dtype() != DType::F32 || config_.isa != Isa::Avx512) {
    context.node().fail_unsupported("the channel-blocked Conv runs on the AVX-512 path with float32 values only");
  }
  ConvActivation epilogue;
  Tensor residual;
  const bool fused = spec_.activate || spec_.residual;
  epilogue.activate = spec_.activate;
  epilogue.args = spec_.activation;
  if (spec_.residual) {
    residual = context.input(3).contiguous();
    epilogue.residual = residual.data<float>().data();
    epilogue.residual_first = spec_.residual_first;
  }
  const KernelContext kc{config_.isa, context.exact(), config_.pool};
  float* y = context.output(0).mutable_data<float>().data();
#if defined(__x86_64__)
  if (spec_.kind == NchwcConvSpec::Kind::Pointwise) {
    nchwc::Pointwise job;
    job.batch = plan->shape.batch;
    job.in_channels = spec_.in_channels;
    job.out_channels = spec_.out_channels;
    job.plane = plan->shape.in_plane();
    job.in_blocked = spec_.in_blocked;
    job.out_blocked = spec_.out_blocked;
    job.x = x.data<float>().data();
    job.weights = plan->weights.data();
    job.bias = plan->bias.data();
    job.y = y;
    job.activation = fused ? &epilogue : nullptr;
    nchwc::pointwise_f32__avx512(kc, job);
  } else {
    nchwc::Depthwise job;
    job.shape = plan->shape;
    job.out_blocked = spec_.out_blocked;
    job.x = x.data<float>().data();
    job.weights = plan->weights.data();
    job.bias = plan->bias.data();
    job.y = y;
    job.activation = fused ? &epilogue : nullptr;
    job.finite_weights = plan->finite_weights;
    nchwc::depthwise_f32__avx512(kc, job);
  }
#else
  (void)y;
  (void)kc;
  (void)fused;
  (void)plan;
  context.node().fail_unsupported("the channel-blocked Conv runs on the AVX-512 path only");
#endif
}

}  // namespace onemodel::opt
