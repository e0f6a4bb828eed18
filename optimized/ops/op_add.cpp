// Add: a + b with NumPy broadcasting, the vectorized float32 kernel
// (optimized/kernels/elementwise/): one IEEE operation per element and the canonical NaN, the bits
// of reference/ops/op_add.cpp (spec/ops/elementwise.md sections 1 to 3); other types run the reference.
#include "optimized/ops/elementwise_override.hpp"

namespace onemodel::opt {

std::unique_ptr<OpKernel> make_optimized_add(const NodeInfo& node, const OptimizedConfig& config) {
  return std::make_unique<BinaryF32Override>(node, config, ew::BinaryOp::Add);
}

}  // namespace onemodel::opt
