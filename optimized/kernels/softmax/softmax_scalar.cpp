// Softmax and LogSoftmax rows on the scalar path (softmax_entries.inc with lanes_scalar.hpp).
#include "optimized/kernels/vexp/lanes_scalar.hpp"

#define ONEMODEL_KERNEL_ISA scalar
#include "optimized/kernels/softmax/softmax_entries.inc"
