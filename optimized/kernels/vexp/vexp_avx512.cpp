// The vectorized exponentials on the avx512 path (vexp_entries.inc with lanes_avx512.hpp).
#include "optimized/kernels/vexp/lanes_avx512.hpp"

#define ONEMODEL_KERNEL_ISA avx512
#include "optimized/kernels/vexp/vexp_entries.inc"
