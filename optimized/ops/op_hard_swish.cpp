// HardSwish: the vectorized float32 kernel (optimized/kernels/elementwise/), bits of
// reference/ops/op_hard_swish.cpp (spec/ops/elementwise.md section 8); other element types run the reference.
#include "optimized/ops/elementwise_override.hpp"

namespace onemodel::opt {

std::unique_ptr<OpKernel> make_optimized_hard_swish(const NodeInfo& node, const OptimizedConfig& config) {
  return std::make_unique<UnaryF32Override>(node, config, ew::UnaryArgs{ew::UnaryOp::HardSwish});
}

}  // namespace onemodel::opt
