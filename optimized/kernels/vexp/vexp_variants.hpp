// The per-path entry points behind vexp.hpp, one set per lanes type (vexp_<isa>.cpp). Only the
// dispatcher calls them, each under its platform guard.
#pragma once

#include <cstddef>

#define ONEMODEL_VEXP_VARIANT(ns)                                                  \
  namespace onemodel::opt::ns {                                                    \
  void exp_non_positive_f32(const float* x, float* y, std::size_t n) noexcept;    \
  void fast_exp_f32(const float* x, float* y, std::size_t n) noexcept;            \
  }

ONEMODEL_VEXP_VARIANT(scalar)
#if defined(__x86_64__)
ONEMODEL_VEXP_VARIANT(sse)
ONEMODEL_VEXP_VARIANT(avx2)
ONEMODEL_VEXP_VARIANT(avx512)
#endif
#if defined(__aarch64__)
ONEMODEL_VEXP_VARIANT(neon)
#endif
#if defined(__wasm_simd128__)
ONEMODEL_VEXP_VARIANT(wasm)
#endif
#undef ONEMODEL_VEXP_VARIANT
