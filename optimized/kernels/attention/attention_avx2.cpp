// Attention work items on the avx2 path (attention_entries.inc with lanes_avx2.hpp).
#include "optimized/kernels/vexp/lanes_avx2.hpp"

#define ONEMODEL_KERNEL_ISA avx2
#include "optimized/kernels/attention/attention_entries.inc"
