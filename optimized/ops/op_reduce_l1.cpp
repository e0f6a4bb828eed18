// ReduceL1 on float32: optimized/kernels/reduce/ through reduce_override.hpp (spec/ops/norms.md
// section 6, "Terms and finishing": term |x|). Bits of reference/ops/op_reduce_l1.cpp in both modes.
#include "optimized/ops/reduce_override.hpp"

namespace onemodel::opt {

std::unique_ptr<OpKernel> make_optimized_reduce_l1_1(const NodeInfo& node, const OptimizedConfig& config) {
  return std::make_unique<ReduceF32Override>(node, config, reduce::AxesFrom::Attribute, ReduceKind::Sum,
                                             ReduceTerm::Abs, ReduceFinish::None);
}
std::unique_ptr<OpKernel> make_optimized_reduce_l1_18(const NodeInfo& node, const OptimizedConfig& config) {
  return std::make_unique<ReduceF32Override>(node, config, reduce::AxesFrom::Input, ReduceKind::Sum,
                                             ReduceTerm::Abs, ReduceFinish::None);
}

}  // namespace onemodel::opt
