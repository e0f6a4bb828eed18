// The float32 reductions and the canonical sum on the wasm path (reduce_entries.inc with
// lanes_wasm.hpp).
#include "optimized/kernels/vexp/lanes_wasm.hpp"

#define ONEMODEL_KERNEL_ISA wasm
#include "optimized/kernels/reduce/reduce_entries.inc"
