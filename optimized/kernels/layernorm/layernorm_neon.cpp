// LayerNormalization rows on the neon path (layernorm_entries.inc with lanes_neon.hpp).
#include "optimized/kernels/vexp/lanes_neon.hpp"

#define ONEMODEL_KERNEL_ISA neon
#include "optimized/kernels/layernorm/layernorm_entries.inc"
