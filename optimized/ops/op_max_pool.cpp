// MaxPool on float32 rank-4 input (spec/ops/products-conv.md section 8.2): pool_2d_f32 reading
// the input in place, the reference's bits in both modes (optimized/kernels/pool/pool.hpp). The
// Indices output, other types and 1-D/3-D windows run the reference (pool_override.hpp).
#include "optimized/ops/pool_override.hpp"

namespace onemodel::opt {

std::unique_ptr<OpKernel> make_optimized_max_pool(const NodeInfo& node, const OptimizedConfig& config) {
  return std::make_unique<Pool2dOverride>(node, config, pool::PoolKind::Max);
}

}  // namespace onemodel::opt
