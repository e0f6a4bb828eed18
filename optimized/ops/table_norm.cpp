// Optimized overrides of the norm family (none yet: the reference kernels run).
#include "optimized/ops/op_families.hpp"

namespace onemodel::opt {

std::span<const OptimizedOpDef> norm_optimized_ops() { return {}; }

}  // namespace onemodel::opt
