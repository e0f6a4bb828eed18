// ReduceMean on float32: optimized/kernels/reduce/ through reduce_override.hpp (spec/ops/norms.md
// section 6, "Terms and finishing": term x, then sum / count, 0 when empty). Bits of reference/ops/op_reduce_mean.cpp in both modes.
#include "optimized/ops/reduce_override.hpp"

namespace onemodel::opt {

std::unique_ptr<OpKernel> make_optimized_reduce_mean_1(const NodeInfo& node, const OptimizedConfig& config) {
  return std::make_unique<ReduceF32Override>(node, config, reduce::AxesFrom::Attribute, ReduceKind::Sum,
                                             ReduceTerm::Identity, ReduceFinish::Mean);
}
std::unique_ptr<OpKernel> make_optimized_reduce_mean_18(const NodeInfo& node, const OptimizedConfig& config) {
  return std::make_unique<ReduceF32Override>(node, config, reduce::AxesFrom::Input, ReduceKind::Sum,
                                             ReduceTerm::Identity, ReduceFinish::Mean);
}

}  // namespace onemodel::opt
