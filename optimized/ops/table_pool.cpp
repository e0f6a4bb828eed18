// Optimized overrides of the pooling family (optimized/kernels/pool/): MaxPool, AveragePool,
// GlobalAveragePool and GlobalMaxPool on float32. Ranges equal the reference rows
// (reference/ops/table_conv.cpp, 1-27).
#include "optimized/ops/op_families.hpp"

namespace onemodel::opt {

std::unique_ptr<OpKernel> make_optimized_max_pool(const NodeInfo& node, const OptimizedConfig& config);
std::unique_ptr<OpKernel> make_optimized_average_pool(const NodeInfo& node, const OptimizedConfig& config);
std::unique_ptr<OpKernel> make_optimized_global_average_pool(const NodeInfo& node, const OptimizedConfig& config);
std::unique_ptr<OpKernel> make_optimized_global_max_pool(const NodeInfo& node, const OptimizedConfig& config);

std::span<const OptimizedOpDef> pool_optimized_ops() {
  static const OptimizedOpDef ops[] = {
      {"", "MaxPool", 1, 27, make_optimized_max_pool},
      {"", "AveragePool", 1, 27, make_optimized_average_pool},
      {"", "GlobalAveragePool", 1, 27, make_optimized_global_average_pool},
      {"", "GlobalMaxPool", 1, 27, make_optimized_global_max_pool},
  };
  return ops;
}

}  // namespace onemodel::opt
