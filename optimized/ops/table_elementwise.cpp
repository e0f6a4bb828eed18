// Optimized overrides of the elementwise family (none yet: the reference kernels run).
#include "optimized/ops/op_families.hpp"

namespace onemodel::opt {

std::span<const OptimizedOpDef> elementwise_optimized_ops() { return {}; }

}  // namespace onemodel::opt
