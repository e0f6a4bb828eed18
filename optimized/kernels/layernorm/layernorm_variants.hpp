// The per-path entry points behind layernorm.hpp (layernorm_<isa>.cpp): rows [begin, end).
#pragma once

#include <cstddef>
#include <span>
#include <string_view>

#include "optimized/frame/isa.hpp"

#include "optimized/kernels/layernorm/layernorm.hpp"

#define ONEMODEL_LAYERNORM_VARIANT(ns, isa, name) \
  namespace onemodel::opt::ns {                                                                        \
  void layer_norm_rows_f32(const LayerNormArgs& args, std::size_t begin, std::size_t end) noexcept;    \
  }

#include "optimized/kernels/layernorm/layernorm_list.inc"

namespace onemodel::opt {

using LayerNormRowsFn = void (*)(const LayerNormArgs& args, std::size_t begin, std::size_t end) noexcept;

// One variant of the family (kernel_registry.hpp), from layernorm_list.inc.
struct LayerNormVariant {
  std::string_view name;
  Isa isa;
  LayerNormRowsFn rows;
};

// The registry: every variant this build has, best first, scalar last; dispatch, the kernel tests
// and bench_kernels read it.
std::span<const LayerNormVariant> layernorm_variants() noexcept;

}  // namespace onemodel::opt
