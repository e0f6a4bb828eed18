// LayerNormalization rows on the sse path (layernorm_entries.inc with lanes_sse.hpp).
#include "optimized/kernels/vexp/lanes_sse.hpp"

#define ONEMODEL_KERNEL_ISA sse
#include "optimized/kernels/layernorm/layernorm_entries.inc"
