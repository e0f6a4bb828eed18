// The per-instruction-set variants of the element-wise kernels (file name = function name,
// DESIGN.md rule 5): elementwise_<isa>.cpp defines unary_f32__<isa> and binary_f32__<isa>. Only
// the variants of the build's platform exist; callers reference them under the same guards.
#pragma once

#include <cstddef>

#include "optimized/kernels/elementwise/elementwise.hpp"

namespace onemodel::opt::ew {

#define ONEMODEL_EW_DECLARE_PATH(isa)                                                                       \
  void unary_f32__##isa(const UnaryArgs& args, const float* x, float* y, std::size_t n);                   \
  void binary_f32__##isa(BinaryOp op, const float* a, std::ptrdiff_t a_step, const float* b, std::ptrdiff_t b_step, \
                         float* y, std::size_t n);

ONEMODEL_EW_DECLARE_PATH(scalar)
#if defined(__x86_64__)
ONEMODEL_EW_DECLARE_PATH(sse)
ONEMODEL_EW_DECLARE_PATH(avx2)
ONEMODEL_EW_DECLARE_PATH(avx512)
#endif
#if defined(__aarch64__)
ONEMODEL_EW_DECLARE_PATH(neon)
#endif
#if defined(__wasm_simd128__)
ONEMODEL_EW_DECLARE_PATH(wasm)
#endif

#undef ONEMODEL_EW_DECLARE_PATH

}  // namespace onemodel::opt::ew
