// The per-path entry points behind softmax.hpp (softmax_<isa>.cpp): rows [begin, end).
#pragma once

#include <cstddef>

#define ONEMODEL_SOFTMAX_VARIANT(ns)                                                                   \
  namespace onemodel::opt::ns {                                                                        \
  void softmax_rows_f32(const float* x, float* y, std::size_t begin, std::size_t end, std::size_t cols, \
                        bool fast) noexcept;                                                           \
  void log_softmax_rows_f32(const float* x, float* y, std::size_t begin, std::size_t end,              \
                            std::size_t cols, bool fast, float (*log_fn)(float)) noexcept;             \
  }

ONEMODEL_SOFTMAX_VARIANT(scalar)
#if defined(__x86_64__)
ONEMODEL_SOFTMAX_VARIANT(sse)
ONEMODEL_SOFTMAX_VARIANT(avx2)
ONEMODEL_SOFTMAX_VARIANT(avx512)
#endif
#if defined(__aarch64__)
ONEMODEL_SOFTMAX_VARIANT(neon)
#endif
#if defined(__wasm_simd128__)
ONEMODEL_SOFTMAX_VARIANT(wasm)
#endif
#undef ONEMODEL_SOFTMAX_VARIANT
