// The vectorized exponentials on the avx2 path (vexp_entries.inc with lanes_avx2.hpp).
#include "optimized/kernels/vexp/lanes_avx2.hpp"

#define ONEMODEL_KERNEL_ISA avx2
#include "optimized/kernels/vexp/vexp_entries.inc"
