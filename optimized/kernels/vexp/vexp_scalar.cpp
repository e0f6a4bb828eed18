// The vectorized exponentials on the scalar path (vexp_entries.inc with lanes_scalar.hpp).
#include "optimized/kernels/vexp/lanes_scalar.hpp"

#define ONEMODEL_KERNEL_ISA scalar
#include "optimized/kernels/vexp/vexp_entries.inc"
