// Attention work items on the scalar path (attention_entries.inc with lanes_scalar.hpp).
#include "optimized/kernels/vexp/lanes_scalar.hpp"

#define ONEMODEL_KERNEL_ISA scalar
#include "optimized/kernels/attention/attention_entries.inc"
