// HardSigmoid: clamp(alpha * x + beta, 0, 1), product then sum rounded (defaults 0.2, 0.5), the
// vectorized float32 kernel, bits of reference/ops/op_hard_sigmoid.cpp (spec/ops/elementwise.md
// section 8).
#include "optimized/ops/elementwise_override.hpp"

namespace onemodel::opt {

std::unique_ptr<OpKernel> make_optimized_hard_sigmoid(const NodeInfo& node, const OptimizedConfig& config) {
  return std::make_unique<UnaryF32Override>(
      node, config, ew::UnaryArgs{ew::UnaryOp::HardSigmoid, node.get_float("alpha", 0.2f), node.get_float("beta", 0.5f)});
}

}  // namespace onemodel::opt
