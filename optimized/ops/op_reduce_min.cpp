// ReduceMin on float32: optimized/kernels/reduce/ through reduce_override.hpp (spec/ops/norms.md
// section 6, "Terms and finishing": a sequential scan from the first element, strictly smaller replaces). Bits of reference/ops/op_reduce_min.cpp in both modes.
#include "optimized/ops/reduce_override.hpp"

namespace onemodel::opt {

std::unique_ptr<OpKernel> make_optimized_reduce_min_1(const NodeInfo& node, const OptimizedConfig& config) {
  return std::make_unique<ReduceF32Override>(node, config, reduce::AxesFrom::Attribute, ReduceKind::Min,
                                             ReduceTerm::Identity, ReduceFinish::None);
}
std::unique_ptr<OpKernel> make_optimized_reduce_min_18(const NodeInfo& node, const OptimizedConfig& config) {
  return std::make_unique<ReduceF32Override>(node, config, reduce::AxesFrom::Input, ReduceKind::Min,
                                             ReduceTerm::Identity, ReduceFinish::None);
}

}  // namespace onemodel::opt
