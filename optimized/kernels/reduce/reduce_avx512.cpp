// The float32 reductions and the canonical sum on the avx512 path (reduce_entries.inc with
// lanes_avx512.hpp).
#include "optimized/kernels/vexp/lanes_avx512.hpp"

#define ONEMODEL_KERNEL_ISA avx512
#include "optimized/kernels/reduce/reduce_entries.inc"
