// SelfGateOp, the node the `self-gate` pass makes (docs/design.md "Self-gated activations";
// spec/optimized-engine.md section 2): y = x * gate(x) for the exporters' SiLU/Swish,
// Mul(x, Sigmoid(x)), and HardSwish, Mul(x, HardSigmoid(x)), as one element-wise kernel
// (ew::UnaryOp::Silu, HardSwish or HardSigmoidGate) whose bits are the two operators' in both
// modes. Like GeluOp it keeps the NodeInfo of the replaced Mul, so it states its output itself:
// X's type and shape (both Mul operands are X and its gate, so there is no broadcast).
// conv-activation and linear-pack-fuse then take it into a product's tile epilogue
// (activation_args.cpp recognises it by its kernel).
#pragma once

#include "optimized/kernels/elementwise/elementwise.hpp"
#include "optimized/ops/optimized_kernel.hpp"

namespace onemodel::opt {

class SelfGateOp final : public OpKernel {
 public:
  SelfGateOp(const ew::UnaryArgs& args, const OptimizedConfig& config);

  void infer(InferContext& context) const override;
  // Reads input 0 and writes output 0, which may be the same tensor (in_place_input = 0): the
  // kernel reads each element before writing it.
  void run(RunContext& context) const override;

  // The function applied (what a fusing pass puts into a product's epilogue).
  const ew::UnaryArgs& args() const noexcept { return args_; }

 private:
  ew::UnaryArgs args_;
  OptimizedConfig config_;
};

}  // namespace onemodel::opt
