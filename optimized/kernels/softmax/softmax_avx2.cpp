// Softmax and LogSoftmax rows on the avx2 path (softmax_entries.inc with lanes_avx2.hpp).
#include "optimized/kernels/vexp/lanes_avx2.hpp"

#define ONEMODEL_KERNEL_ISA avx2
#include "optimized/kernels/softmax/softmax_entries.inc"
