// The float32 reductions and the canonical sum on the scalar path (reduce_entries.inc with
// lanes_scalar.hpp).
#include "optimized/kernels/vexp/lanes_scalar.hpp"

#define ONEMODEL_KERNEL_ISA scalar
#include "optimized/kernels/reduce/reduce_entries.inc"
