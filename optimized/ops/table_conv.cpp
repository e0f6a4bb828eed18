// Optimized overrides of the conv family (none yet: the reference kernels run).
#include "optimized/ops/op_families.hpp"

namespace onemodel::opt {

std::span<const OptimizedOpDef> conv_optimized_ops() { return {}; }

}  // namespace onemodel::opt
