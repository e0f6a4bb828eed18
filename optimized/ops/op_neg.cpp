// Neg: the vectorized float32 kernel (optimized/kernels/elementwise/), bits of
// reference/ops/op_neg.cpp (sign bit flipped); other element types run the reference.
#include "optimized/ops/elementwise_override.hpp"

namespace onemodel::opt {

std::unique_ptr<OpKernel> make_optimized_neg(const NodeInfo& node, const OptimizedConfig& config) {
  return std::make_unique<UnaryF32Override>(node, config, ew::UnaryArgs{ew::UnaryOp::Neg});
}

}  // namespace onemodel::opt
