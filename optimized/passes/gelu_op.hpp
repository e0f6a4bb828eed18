// GeluOp, the node the `gelu` pass makes (graph-passes.md, `gelu`, fast mode only): the erf form
// of Gelu applied with the Gelu override's own element-wise kernel (ew::UnaryOp::GeluErf), one
// pass over memory instead of the five operators of the opset-17 export. The fused node keeps the
// NodeInfo of the chain's last Mul (graph-runtime.md section 6), so it cannot build a Gelu
// reference kernel from it; it states its output itself: the input's type and shape (the pass
// only matches scalar constants, so the chain's broadcast never changes the shape).
#pragma once

#include "optimized/ops/optimized_kernel.hpp"

namespace onemodel::opt {

class GeluOp final : public OpKernel {
 public:
  explicit GeluOp(const OptimizedConfig& config);

  void infer(InferContext& context) const override;
  void run(RunContext& context) const override;

 private:
  OptimizedConfig config_;
};

}  // namespace onemodel::opt
