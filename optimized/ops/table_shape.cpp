// Optimized overrides of the shape family: Concat (optimized/kernels/concat/). The range equals
// the reference row (reference/ops/table_shape.cpp, 1-27).
#include "optimized/ops/op_families.hpp"

namespace onemodel::opt {

std::unique_ptr<OpKernel> make_optimized_concat(const NodeInfo& node, const OptimizedConfig& config);

std::span<const OptimizedOpDef> shape_optimized_ops() {
  static const OptimizedOpDef ops[] = {
      {"", "Concat", 1, 27, make_optimized_concat},
  };
  return ops;
}

}  // namespace onemodel::opt
