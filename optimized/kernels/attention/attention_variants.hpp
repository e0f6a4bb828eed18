// The per-path entry points behind attention.hpp (attention_<isa>.cpp): one work item.
#pragma once

#include <cstddef>

#include "optimized/kernels/attention/attention.hpp"

namespace onemodel::opt::attention {
struct Scratch;
}

#define ONEMODEL_ATTENTION_VARIANT(ns)                                                                  \
  namespace onemodel::opt::ns {                                                                         \
  void attention_item_f32(const AttentionArgs& args, const attention::Scratch& scratch, std::size_t b,  \
                          std::size_t h, std::size_t i0, std::size_t rows, bool fast) noexcept;         \
  }

ONEMODEL_ATTENTION_VARIANT(scalar)
#if defined(__x86_64__)
ONEMODEL_ATTENTION_VARIANT(sse)
ONEMODEL_ATTENTION_VARIANT(avx2)
ONEMODEL_ATTENTION_VARIANT(avx512)
#endif
#if defined(__aarch64__)
ONEMODEL_ATTENTION_VARIANT(neon)
#endif
#if defined(__wasm_simd128__)
ONEMODEL_ATTENTION_VARIANT(wasm)
#endif
#undef ONEMODEL_ATTENTION_VARIANT
