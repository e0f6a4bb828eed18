// Attention work items on the sse path (attention_entries.inc with lanes_sse.hpp).
#include "optimized/kernels/vexp/lanes_sse.hpp"

#define ONEMODEL_KERNEL_ISA sse
#include "optimized/kernels/attention/attention_entries.inc"
