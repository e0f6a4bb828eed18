// LayerNormalization rows on the avx512 path (layernorm_entries.inc with lanes_avx512.hpp).
#include "optimized/kernels/vexp/lanes_avx512.hpp"

#define ONEMODEL_KERNEL_ISA avx512
#include "optimized/kernels/layernorm/layernorm_entries.inc"
