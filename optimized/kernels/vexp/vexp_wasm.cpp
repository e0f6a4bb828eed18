// The vectorized exponentials on the wasm path (vexp_entries.inc with lanes_wasm.hpp).
#include "optimized/kernels/vexp/lanes_wasm.hpp"

#define ONEMODEL_KERNEL_ISA wasm
#include "optimized/kernels/vexp/vexp_entries.inc"
