// The per-path entry points behind reduce.hpp (reduce_<isa>.cpp); the dispatcher calls them under
// their platform guards.
#pragma once

#include <cstddef>

#include "optimized/kernels/reduce/reduce.hpp"

#define ONEMODEL_REDUCE_VARIANT(ns)                                                                      \
  namespace onemodel::opt::ns {                                                                          \
  float sum16_f32(const float* t, std::size_t n) noexcept;                                               \
  void reduce_rows_f32(ReduceKind kind, ReduceTerm term, const float* x, float* out, std::size_t begin,  \
                       std::size_t end, std::size_t terms) noexcept;                                     \
  void reduce_columns_f32(ReduceKind kind, ReduceTerm term, const float* x, float* out, std::size_t reduced, \
                          std::size_t inner, std::size_t c0, std::size_t count) noexcept;                \
  }

ONEMODEL_REDUCE_VARIANT(scalar)
#if defined(__x86_64__)
ONEMODEL_REDUCE_VARIANT(sse)
ONEMODEL_REDUCE_VARIANT(avx2)
ONEMODEL_REDUCE_VARIANT(avx512)
#endif
#if defined(__aarch64__)
ONEMODEL_REDUCE_VARIANT(neon)
#endif
#if defined(__wasm_simd128__)
ONEMODEL_REDUCE_VARIANT(wasm)
#endif
#undef ONEMODEL_REDUCE_VARIANT
