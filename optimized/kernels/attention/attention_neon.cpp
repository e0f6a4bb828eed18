// Attention work items on the neon path (attention_entries.inc with lanes_neon.hpp).
#include "optimized/kernels/vexp/lanes_neon.hpp"

#define ONEMODEL_KERNEL_ISA neon
#include "optimized/kernels/attention/attention_entries.inc"
