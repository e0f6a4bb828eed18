// Softmax and LogSoftmax rows on the sse path (softmax_entries.inc with lanes_sse.hpp).
#include "optimized/kernels/vexp/lanes_sse.hpp"

#define ONEMODEL_KERNEL_ISA sse
#include "optimized/kernels/softmax/softmax_entries.inc"
