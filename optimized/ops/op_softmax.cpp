// Softmax: the vectorized rows of optimized/kernels/softmax/ (kernels-attention.md, "Softmax";
// spec/ops/norms.md section 5). Exact mode: the bits of reference/ops/op_softmax.cpp on every
// path and thread count. Fast mode: the fast exponential and e * (1/l).
#include "optimized/ops/softmax_override.hpp"

namespace onemodel::opt {

std::unique_ptr<OpKernel> make_optimized_softmax_1(const NodeInfo& node, const OptimizedConfig& config) {
  return std::make_unique<SoftmaxFamilyOverride>(node, config, /*coerce_2d=*/true, nullptr);
}
std::unique_ptr<OpKernel> make_optimized_softmax_13(const NodeInfo& node, const OptimizedConfig& config) {
  return std::make_unique<SoftmaxFamilyOverride>(node, config, /*coerce_2d=*/false, nullptr);
}

}  // namespace onemodel::opt
