// ReduceSumSquare on float32: optimized/kernels/reduce/ through reduce_override.hpp (spec/ops/norms.md
// section 6, "Terms and finishing": term x*x). Bits of reference/ops/op_reduce_sum_square.cpp in both modes.
#include "optimized/ops/reduce_override.hpp"

namespace onemodel::opt {

std::unique_ptr<OpKernel> make_optimized_reduce_sum_square_1(const NodeInfo& node, const OptimizedConfig& config) {
  return std::make_unique<ReduceF32Override>(node, config, reduce::AxesFrom::Attribute, ReduceKind::Sum,
                                             ReduceTerm::Square, ReduceFinish::None);
}
std::unique_ptr<OpKernel> make_optimized_reduce_sum_square_18(const NodeInfo& node, const OptimizedConfig& config) {
  return std::make_unique<ReduceF32Override>(node, config, reduce::AxesFrom::Input, ReduceKind::Sum,
                                             ReduceTerm::Square, ReduceFinish::None);
}

}  // namespace onemodel::opt
