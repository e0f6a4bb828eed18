// Tanh: the vectorized float32 kernel (optimized/kernels/elementwise/), bits of
// reference/ops/op_tanh.cpp (spec/exact-transcendentals.md section 5); other element types run the reference.
#include "optimized/ops/elementwise_override.hpp"

namespace onemodel::opt {

std::unique_ptr<OpKernel> make_optimized_tanh(const NodeInfo& node, const OptimizedConfig& config) {
  return std::make_unique<UnaryF32Override>(node, config, ew::UnaryArgs{ew::UnaryOp::Tanh});
}

}  // namespace onemodel::opt
