// Sigmoid: the vectorized float32 kernel (optimized/kernels/elementwise/), bits of
// reference/ops/op_sigmoid.cpp (spec/exact-transcendentals.md section 4); other element types run the reference.
#include "optimized/ops/elementwise_override.hpp"

namespace onemodel::opt {

std::unique_ptr<OpKernel> make_optimized_sigmoid(const NodeInfo& node, const OptimizedConfig& config) {
  return std::make_unique<UnaryF32Override>(node, config, ew::UnaryArgs{ew::UnaryOp::Sigmoid});
}

}  // namespace onemodel::opt
