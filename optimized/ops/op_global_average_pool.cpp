// GlobalAveragePool on float32 (spec/ops/products-conv.md section 8.4): each plane's sum in index
// order from +0 divided by the plane size, NaN canonical, eight planes at a time, read in place
// (optimized/kernels/pool/pool.hpp); the reference's bits in both modes.
#include "optimized/ops/pool_override.hpp"

namespace onemodel::opt {

std::unique_ptr<OpKernel> make_optimized_global_average_pool(const NodeInfo& node, const OptimizedConfig& config) {
  return std::make_unique<GlobalPoolOverride>(node, config, pool::PoolKind::Average);
}

}  // namespace onemodel::opt
