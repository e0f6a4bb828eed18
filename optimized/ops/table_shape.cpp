// Optimized overrides of the shape family: Concat (optimized/kernels/concat/), Gather, Pad and Slice
// (row copies, optimized/kernels/datamove/). The ranges lie inside the reference rows
// (reference/ops/table_shape.cpp).
#include "optimized/ops/op_families.hpp"

namespace onemodel::opt {

std::unique_ptr<OpKernel> make_optimized_concat(const NodeInfo& node, const OptimizedConfig& config);
std::unique_ptr<OpKernel> make_optimized_gather(const NodeInfo& node, const OptimizedConfig& config);
std::unique_ptr<OpKernel> make_optimized_pad(const NodeInfo& node, const OptimizedConfig& config);
std::unique_ptr<OpKernel> make_optimized_slice(const NodeInfo& node, const OptimizedConfig& config);

std::span<const OptimizedOpDef> shape_optimized_ops() {
  static const OptimizedOpDef ops[] = {
      {"", "Concat", 1, 27, make_optimized_concat},
      {"", "Gather", 1, 27, make_optimized_gather},
      // Pad from opset 11 (inputs); the attribute forms of 1-10 stay the reference.
      {"", "Pad", 11, 27, make_optimized_pad},
      {"", "Slice", 1, 9, make_optimized_slice},
      {"", "Slice", 10, 27, make_optimized_slice},
  };
  return ops;
}

}  // namespace onemodel::opt
