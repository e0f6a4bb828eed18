// The float32 reductions and the canonical sum on the sse path (reduce_entries.inc with
// lanes_sse.hpp).
#include "optimized/kernels/vexp/lanes_sse.hpp"

#define ONEMODEL_KERNEL_ISA sse
#include "optimized/kernels/reduce/reduce_entries.inc"
