// ReduceMax on float32: optimized/kernels/reduce/ through reduce_override.hpp (spec/ops/norms.md
// section 6, "Terms and finishing": a sequential scan from the first element, strictly greater replaces). Bits of reference/ops/op_reduce_max.cpp in both modes.
#include "optimized/ops/reduce_override.hpp"

namespace onemodel::opt {

std::unique_ptr<OpKernel> make_optimized_reduce_max_1(const NodeInfo& node, const OptimizedConfig& config) {
  return std::make_unique<ReduceF32Override>(node, config, reduce::AxesFrom::Attribute, ReduceKind::Max,
                                             ReduceTerm::Identity, ReduceFinish::None);
}
std::unique_ptr<OpKernel> make_optimized_reduce_max_18(const NodeInfo& node, const OptimizedConfig& config) {
  return std::make_unique<ReduceF32Override>(node, config, reduce::AxesFrom::Input, ReduceKind::Max,
                                             ReduceTerm::Identity, ReduceFinish::None);
}

}  // namespace onemodel::opt
