// AveragePool on float32 rank-4 input (spec/ops/products-conv.md section 8.3): pool_2d_f32 with
// the reference's tap order and divisor rules (count_include_pad, never the ceil_mode overhang),
// the reference's bits in both modes. 1-D/3-D windows run the reference (pool_override.hpp).
#include "optimized/ops/pool_override.hpp"

namespace onemodel::opt {

std::unique_ptr<OpKernel> make_optimized_average_pool(const NodeInfo& node, const OptimizedConfig& config) {
  return std::make_unique<Pool2dOverride>(node, config, pool::PoolKind::Average);
}

}  // namespace onemodel::opt
