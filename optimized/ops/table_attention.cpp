// Optimized overrides of the attention family (none yet: the reference kernels run).
#include "optimized/ops/op_families.hpp"

namespace onemodel::opt {

std::span<const OptimizedOpDef> attention_optimized_ops() { return {}; }

}  // namespace onemodel::opt
