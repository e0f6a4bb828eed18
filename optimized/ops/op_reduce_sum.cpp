// ReduceSum on float32: optimized/kernels/reduce/ through reduce_override.hpp (spec/ops/norms.md
// section 6, "Terms and finishing": term x, no finishing). Bits of reference/ops/op_reduce_sum.cpp in both modes.
#include "optimized/ops/reduce_override.hpp"

namespace onemodel::opt {

std::unique_ptr<OpKernel> make_optimized_reduce_sum_1(const NodeInfo& node, const OptimizedConfig& config) {
  return std::make_unique<ReduceF32Override>(node, config, reduce::AxesFrom::Attribute, ReduceKind::Sum,
                                             ReduceTerm::Identity, ReduceFinish::None);
}
std::unique_ptr<OpKernel> make_optimized_reduce_sum_13(const NodeInfo& node, const OptimizedConfig& config) {
  return std::make_unique<ReduceF32Override>(node, config, reduce::AxesFrom::Input, ReduceKind::Sum,
                                             ReduceTerm::Identity, ReduceFinish::None);
}

}  // namespace onemodel::opt
