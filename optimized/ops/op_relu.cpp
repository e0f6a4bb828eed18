// Relu: the vectorized float32 kernel (optimized/kernels/elementwise/), bits of
// reference/ops/op_relu.cpp (spec/ops/elementwise.md section 3: x > 0 ? x : +0, NaN passes); other element types run the reference.
#include "optimized/ops/elementwise_override.hpp"

namespace onemodel::opt {

std::unique_ptr<OpKernel> make_optimized_relu(const NodeInfo& node, const OptimizedConfig& config) {
  return std::make_unique<UnaryF32Override>(node, config, ew::UnaryArgs{ew::UnaryOp::Relu});
}

}  // namespace onemodel::opt
