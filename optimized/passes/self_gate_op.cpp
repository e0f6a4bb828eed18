// SelfGateOp (self_gate_op.hpp).
#include "optimized/passes/self_gate_op.hpp"

namespace onemodel::opt {

SelfGateOp::SelfGateOp(const ew::UnaryArgs& args, const OptimizedConfig& config) : args_(args), config_(config) {
  // Bit-preserving (the element-wise kernels give the reference's bits in both modes), so it is
  // made in exact mode too.
  supports_exact = true;
  in_place_input = 0;
}

void SelfGateOp::infer(InferContext& context) const {
  // The pass matches float32 X only (PassGraph::known_f32); anything else is refused here.
  context.require_type(0, {DType::F32});
  context.set_output(0, DType::F32, context.input_shape(0));
}

void SelfGateOp::run(RunContext& context) const {
  const Tensor x = context.input(0).contiguous();
  const Tensor& y = context.output(0);
  const std::size_t n = static_cast<std::size_t>(x.element_count());
  if (n == 0) return;
  ew::unary_f32(KernelContext{config_.isa, context.exact(), config_.pool}, args_, x.data<float>().data(),
                y.mutable_data<float>().data(), n);
}

}  // namespace onemodel::opt
