// The float32 reductions and the canonical sum on the avx2 path (reduce_entries.inc with
// lanes_avx2.hpp).
#include "optimized/kernels/vexp/lanes_avx2.hpp"

#define ONEMODEL_KERNEL_ISA avx2
#include "optimized/kernels/reduce/reduce_entries.inc"
