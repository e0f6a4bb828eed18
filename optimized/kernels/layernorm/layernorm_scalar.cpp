// LayerNormalization rows on the scalar path (layernorm_entries.inc with lanes_scalar.hpp).
#include "optimized/kernels/vexp/lanes_scalar.hpp"

#define ONEMODEL_KERNEL_ISA scalar
#include "optimized/kernels/layernorm/layernorm_entries.inc"
