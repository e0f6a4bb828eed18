// GeluOp, the node the `gelu` pass makes (graph-passes.md, `gelu`, fast mode only): the erf or
// tanh form of Gelu applied with the Gelu override's own element-wise kernel (ew::UnaryOp::GeluErf
// or GeluTanh), one pass over memory instead of the five (erf) or eight (tanh) operators of the
// opset-17 exports. The fused node keeps the
// NodeInfo of the chain's last Mul (graph-runtime.md section 6), so it cannot build a Gelu
// reference kernel from it; it states its output itself: the input's type and shape (the pass
// only matches scalar constants, so the chain's broadcast never changes the shape).
#pragma once

#include "optimized/kernels/elementwise/elementwise.hpp"
#include "optimized/ops/optimized_kernel.hpp"

namespace onemodel::opt {

class GeluOp final : public OpKernel {
 public:
  // `form`: ew::UnaryOp::GeluErf, or GeluTanh for the tanh form (docs/design.md "GELU, tanh form").
  explicit GeluOp(const OptimizedConfig& config, ew::UnaryOp form = ew::UnaryOp::GeluErf);

  void infer(InferContext& context) const override;
  void run(RunContext& context) const override;

  ew::UnaryOp form() const noexcept { return form_; }

 private:
  OptimizedConfig config_;
  ew::UnaryOp form_;
};

}  // namespace onemodel::opt
