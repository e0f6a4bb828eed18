// NchwcPoolOp and NchwcScaleOp (nchwc_se_ops.hpp).
#include "optimized/passes/nchwc_se_ops.hpp"

#include <string>

#include "onemodel/session_error.hpp"
#include "optimized/kernels/nchwc/nchwc.hpp"
#include "optimized/passes/nchwc_shapes.hpp"

namespace onemodel::opt {
namespace {

// A shape other than the pass proved is an engine defect (Unsupported).
Shape logical_blocked(const NodeInfo& node, const Shape& blocked, std::size_t channels) {
  return nchwc::logical_of_blocked(node, blocked, channels, SessionErrorKind::Unsupported);
}

void require_avx512(const RunContext& context, const OptimizedConfig& config) {
  if (config.isa != Isa::Avx512) {
    context.node().fail_unsupported("the channel-blocked node runs on the AVX-512 path only");
  }
}

}  // namespace

NchwcPoolOp::NchwcPoolOp(std::size_t channels, const OptimizedConfig& config) : channels_(channels), config_(config) {
  supports_exact = false;
}

void NchwcPoolOp::infer(InferContext& context) const {
  context.require_type(0, {DType::F32});
  const Shape x = logical_blocked(context.node(), context.input_shape(0), channels_);
  context.set_output(0, DType::F32, Shape{x[0], x[1], 1, 1});
}

void NchwcPoolOp::run(RunContext& context) const {
  require_avx512(context, config_);
  const Tensor x = context.input(0).contiguous();
  const Shape logical = logical_blocked(context.node(), x.shape(), channels_);
  float* y = context.output(0).mutable_data<float>().data();
#if defined(__x86_64__)
  nchwc::global_average_pool_f32__avx512(KernelContext{config_.isa, context.exact(), config_.pool},
                                         x.data<float>().data(), static_cast<std::size_t>(logical[0]), channels_,
                                         static_cast<std::size_t>(logical[2]) * static_cast<std::size_t>(logical[3]), y);
#else
  (void)y;
  (void)logical;
#endif
}

NchwcScaleOp::NchwcScaleOp(std::size_t channels, int value_slot, const OptimizedConfig& config)
    : channels_(channels), value_slot_(value_slot), config_(config) {
  supports_exact = false;
  in_place_input = value_slot;  // each element is read before its place is written
}

void NchwcScaleOp::infer(InferContext& context) const {
  const std::size_t v = static_cast<std::size_t>(value_slot_), f = 1 - v;
  context.require_type(v, {DType::F32});
  context.require_type(f, {DType::F32});
  const Shape x = logical_blocked(context.node(), context.input_shape(v), channels_);
  const Shape& s = context.input_shape(f);
  if (!(s == Shape{x[0], x[1], 1, 1})) {
    throw SessionError(SessionErrorKind::Unsupported,
                       "the channel-blocked Mul got a factor of shape " + s.to_string() + " for a value of shape " +
                           x.to_string(),
                       context.node().name());
  }
  context.set_output(0, DType::F32, context.input_shape(v));
}

void NchwcScaleOp::run(RunContext& context) const {
  require_avx512(context, config_);
  const std::size_t v = static_cast<std::size_t>(value_slot_), f = 1 - v;
  const Tensor x = context.input(v).contiguous();
  const Tensor s = context.input(f).contiguous();
  const Shape logical = logical_blocked(context.node(), x.shape(), channels_);
  float* y = context.output(0).mutable_data<float>().data();
#if defined(__x86_64__)
  nchwc::scale_f32__avx512(KernelContext{config_.isa, context.exact(), config_.pool}, x.data<float>().data(),
                           s.data<float>().data(), static_cast<std::size_t>(logical[0]), channels_,
                           static_cast<std::size_t>(logical[2]) * static_cast<std::size_t>(logical[3]), y);
#else
  (void)y;
  (void)logical;
#endif
}

}  // namespace onemodel::opt
