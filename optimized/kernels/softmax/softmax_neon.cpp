// Softmax and LogSoftmax rows on the neon path (softmax_entries.inc with lanes_neon.hpp).
#include "optimized/kernels/vexp/lanes_neon.hpp"

#define ONEMODEL_KERNEL_ISA neon
#include "optimized/kernels/softmax/softmax_entries.inc"
