// LayerNormalization rows on the avx2 path (layernorm_entries.inc with lanes_avx2.hpp).
#include "optimized/kernels/vexp/lanes_avx2.hpp"

#define ONEMODEL_KERNEL_ISA avx2
#include "optimized/kernels/layernorm/layernorm_entries.inc"
