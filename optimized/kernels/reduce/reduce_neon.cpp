// The float32 reductions and the canonical sum on the neon path (reduce_entries.inc with
// lanes_neon.hpp).
#include "optimized/kernels/vexp/lanes_neon.hpp"

#define ONEMODEL_KERNEL_ISA neon
#include "optimized/kernels/reduce/reduce_entries.inc"
