// NchwcConvOp, the node `nchwc-layout` makes of a Conv (optimized/passes/nchwc_layout.cpp;
// docs/design.md "Channel-blocked activations"): a 1x1 or depthwise convolution, with the
// activation and residual Add its Conv override had taken, reading and writing the blocked
// layout of optimized/kernels/nchwc/nchwc.hpp where the pass chose it. A blocked value has the
// shape [N, ceil(C / 16), H, W, 16], so the memory plan sizes it with its padding lanes and
// nothing else reads it: the pass gives this layout only to values every reader of which is such
// a node.
//
// infer() states the Conv's own shapes and errors: the replaced Conv override's infer() on the
// logical [N, C, H, W] shapes (a blocked input of another channel count or block count is
// refused as InvalidInput, naming the node), then the output in the node's layout. A residual
// must have the output's logical shape (the pass proves it, nchwc_layout.cpp). Fast mode on the
// AVX-512 path only.
#pragma once

#include <memory>

#include "optimized/kernels/elementwise/elementwise.hpp"
#include "optimized/ops/optimized_kernel.hpp"

namespace onemodel::opt {

struct NchwcConvSpec {
  enum class Kind : std::uint8_t { Pointwise, Depthwise };
  Kind kind = Kind::Pointwise;
  bool in_blocked = false;
  bool out_blocked = false;
  std::size_t in_channels = 0;   // W's input channels (pointwise) or the groups (depthwise)
  std::size_t out_channels = 0;  // W's output channels
  bool activate = false;         // apply `activation` last
  ew::UnaryArgs activation;
  bool residual = false;  // input 3 added before the activation
  bool residual_first = false;
};

class NchwcConvOp final : public OpKernel {
 public:
  // `conv`: the Conv override the node had (its infer() states the logical shapes).
  NchwcConvOp(NchwcConvSpec spec, std::unique_ptr<OpKernel> conv, const OptimizedConfig& config);

  void infer(InferContext& context) const override;
  std::shared_ptr<const void> prepare(const InferContext& context) const override;
  void run(RunContext& context) const override;

  const NchwcConvSpec& spec() const noexcept { return spec_; }

 private:
  NchwcConvSpec spec_;
  std::unique_ptr<OpKernel> conv_;
  OptimizedConfig config_;
};

}  // namespace onemodel::opt
