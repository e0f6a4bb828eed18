// ReduceL2 on float32: optimized/kernels/reduce/ through reduce_override.hpp (spec/ops/norms.md
// section 6, "Terms and finishing": term x*x, then sqrt). Bits of reference/ops/op_reduce_l2.cpp in both modes.
#include "optimized/ops/reduce_override.hpp"

namespace onemodel::opt {

std::unique_ptr<OpKernel> make_optimized_reduce_l2_1(const NodeInfo& node, const OptimizedConfig& config) {
  return std::make_unique<ReduceF32Override>(node, config, reduce::AxesFrom::Attribute, ReduceKind::Sum,
                                             ReduceTerm::Square, ReduceFinish::Sqrt);
}
std::unique_ptr<OpKernel> make_optimized_reduce_l2_18(const NodeInfo& node, const OptimizedConfig& config) {
  return std::make_unique<ReduceF32Override>(node, config, reduce::AxesFrom::Input, ReduceKind::Sum,
                                             ReduceTerm::Square, ReduceFinish::Sqrt);
}

}  // namespace onemodel::opt
