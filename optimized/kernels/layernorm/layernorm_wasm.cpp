// LayerNormalization rows on the wasm path (layernorm_entries.inc with lanes_wasm.hpp).
#include "optimized/kernels/vexp/lanes_wasm.hpp"

#define ONEMODEL_KERNEL_ISA wasm
#include "optimized/kernels/layernorm/layernorm_entries.inc"
