// Softmax and LogSoftmax rows on the wasm path (softmax_entries.inc with lanes_wasm.hpp).
#include "optimized/kernels/vexp/lanes_wasm.hpp"

#define ONEMODEL_KERNEL_ISA wasm
#include "optimized/kernels/softmax/softmax_entries.inc"
