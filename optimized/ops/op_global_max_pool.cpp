// GlobalMaxPool on float32 (spec/ops/products-conv.md section 8.4): from the lowest finite float,
// replaced by strictly greater values in index order (NaN ignored), eight planes at a time, read in
// place (optimized/kernels/pool/pool.hpp); the reference's bits in both modes.
#include "optimized/ops/pool_override.hpp"

namespace onemodel::opt {

std::unique_ptr<OpKernel> make_optimized_global_max_pool(const NodeInfo& node, const OptimizedConfig& config) {
  return std::make_unique<GlobalPoolOverride>(node, config, pool::PoolKind::Max);
}

}  // namespace onemodel::opt
