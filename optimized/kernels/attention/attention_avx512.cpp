// Attention work items on the avx512 path (attention_entries.inc with lanes_avx512.hpp).
#include "optimized/kernels/vexp/lanes_avx512.hpp"

#define ONEMODEL_KERNEL_ISA avx512
#include "optimized/kernels/attention/attention_entries.inc"
