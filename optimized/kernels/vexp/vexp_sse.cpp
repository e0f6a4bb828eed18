// The vectorized exponentials on the sse path (vexp_entries.inc with lanes_sse.hpp).
#include "optimized/kernels/vexp/lanes_sse.hpp"

#define ONEMODEL_KERNEL_ISA sse
#include "optimized/kernels/vexp/vexp_entries.inc"
