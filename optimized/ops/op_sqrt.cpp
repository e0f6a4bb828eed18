// Sqrt: the vectorized float32 kernel (optimized/kernels/elementwise/), bits of
// reference/ops/op_sqrt.cpp (IEEE square root, spec/ops/elementwise.md section 3); other element types run the reference.
#include "optimized/ops/elementwise_override.hpp"

namespace onemodel::opt {

std::unique_ptr<OpKernel> make_optimized_sqrt(const NodeInfo& node, const OptimizedConfig& config) {
  return std::make_unique<UnaryF32Override>(node, config, ew::UnaryArgs{ew::UnaryOp::Sqrt});
}

}  // namespace onemodel::opt
