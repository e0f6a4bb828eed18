// Attention work items on the wasm path (attention_entries.inc with lanes_wasm.hpp).
#include "optimized/kernels/vexp/lanes_wasm.hpp"

#define ONEMODEL_KERNEL_ISA wasm
#include "optimized/kernels/attention/attention_entries.inc"
