// Optimized overrides of the resize family: Resize 11-27 on float32 (optimized/kernels/resize/), the
// range of the reference's Resize_11 row (reference/ops/table_conv.cpp). Resize 10 and Upsample run
// the reference (resize_plan.hpp says why not Resize 10).
#include "optimized/ops/op_families.hpp"

namespace onemodel::opt {

std::unique_ptr<OpKernel> make_optimized_resize(const NodeInfo& node, const OptimizedConfig& config);

std::span<const OptimizedOpDef> resize_optimized_ops() {
  static const OptimizedOpDef ops[] = {
      {"", "Resize", 11, 27, make_optimized_resize},
  };
  return ops;
}

}  // namespace onemodel::opt
