// The squeeze-and-excitation nodes `nchwc-layout` makes (optimized/passes/nchwc_layout.cpp;
// docs/design.md "Channel-blocked activations"), so that a depthwise layer followed by a
// squeeze-and-excitation block keeps the blocked layout:
//  - NchwcPoolOp: GlobalAveragePool of a blocked [N, ceil(C/16), H, W, 16] value holding C
//    channels, into the plain [N, C, 1, 1] the node states;
//  - NchwcScaleOp: Mul of a blocked value by a [N, C, 1, 1] factor (input `factor_slot`; the pass
//    proves that shape: the factor comes from a GlobalAveragePool of the same value through 1x1
//    Convs and element-wise activations), into a blocked value of the same shape.
// A shape that is not the one the pass proved is an engine defect, refused as such (Unsupported,
// naming the node). Fast mode on the AVX-512 path only.
#pragma once

#include "optimized/ops/optimized_kernel.hpp"

namespace onemodel::opt {

class NchwcPoolOp final : public OpKernel {
 public:
  NchwcPoolOp(std::size_t channels, const OptimizedConfig& config);
  void infer(InferContext& context) const override;
  void run(RunContext& context) const override;

 private:
  std::size_t channels_;
  OptimizedConfig config_;
};

class NchwcScaleOp final : public OpKernel {
 public:
  // `value_slot`: the Mul's input holding the blocked value (0 or 1); the other is the factor.
  NchwcScaleOp(std::size_t channels, int value_slot, const OptimizedConfig& config);
  void infer(InferContext& context) const override;
  void run(RunContext& context) const override;

 private:
  std::size_t channels_;
  int value_slot_;
  OptimizedConfig config_;
};

}  // namespace onemodel::opt
