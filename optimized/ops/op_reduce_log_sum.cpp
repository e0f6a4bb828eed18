// ReduceLogSum on float32: optimized/kernels/reduce/ through reduce_override.hpp (spec/ops/norms.md
// section 6, "Terms and finishing": term x, then the library's log; empty gives log(+0) = -inf).
// Bits of reference/ops/op_reduce_log_sum.cpp in both modes.
#include "optimized/ops/reduce_override.hpp"

namespace onemodel::opt {

std::unique_ptr<OpKernel> make_optimized_reduce_log_sum_1(const NodeInfo& node, const OptimizedConfig& config) {
  return std::make_unique<ReduceF32Override>(node, config, reduce::AxesFrom::Attribute, ReduceKind::Sum,
                                             ReduceTerm::Identity, ReduceFinish::Log);
}
std::unique_ptr<OpKernel> make_optimized_reduce_log_sum_18(const NodeInfo& node, const OptimizedConfig& config) {
  return std::make_unique<ReduceF32Override>(node, config, reduce::AxesFrom::Input, ReduceKind::Sum,
                                             ReduceTerm::Identity, ReduceFinish::Log);
}

}  // namespace onemodel::opt
