// Optimized overrides of the matmul family (none yet: the reference kernels run).
#include "optimized/ops/op_families.hpp"

namespace onemodel::opt {

std::span<const OptimizedOpDef> matmul_optimized_ops() { return {}; }

}  // namespace onemodel::opt
