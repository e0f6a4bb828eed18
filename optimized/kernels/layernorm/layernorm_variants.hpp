// The per-path entry points behind layernorm.hpp (layernorm_<isa>.cpp): rows [begin, end).
#pragma once

#include <cstddef>

#include "optimized/kernels/layernorm/layernorm.hpp"

#define ONEMODEL_LAYERNORM_VARIANT(ns)                                                                 \
  namespace onemodel::opt::ns {                                                                        \
  void layer_norm_rows_f32(const LayerNormArgs& args, std::size_t begin, std::size_t end) noexcept;    \
  }

ONEMODEL_LAYERNORM_VARIANT(scalar)
#if defined(__x86_64__)
ONEMODEL_LAYERNORM_VARIANT(sse)
ONEMODEL_LAYERNORM_VARIANT(avx2)
ONEMODEL_LAYERNORM_VARIANT(avx512)
#endif
#if defined(__aarch64__)
ONEMODEL_LAYERNORM_VARIANT(neon)
#endif
#if defined(__wasm_simd128__)
ONEMODEL_LAYERNORM_VARIANT(wasm)
#endif
#undef ONEMODEL_LAYERNORM_VARIANT
