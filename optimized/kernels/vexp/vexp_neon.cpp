// The vectorized exponentials on the neon path (vexp_entries.inc with lanes_neon.hpp).
#include "optimized/kernels/vexp/lanes_neon.hpp"

#define ONEMODEL_KERNEL_ISA neon
#include "optimized/kernels/vexp/vexp_entries.inc"
