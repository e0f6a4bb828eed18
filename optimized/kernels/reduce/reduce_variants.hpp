// The per-path entry points behind reduce.hpp (reduce_<isa>.cpp); the dispatcher calls them under
// their platform guards.
#pragma once

#include <cstddef>
#include <span>
#include <string_view>

#include "optimized/frame/isa.hpp"

#include "optimized/kernels/reduce/reduce.hpp"

#define ONEMODEL_REDUCE_VARIANT(ns, isa, name) \
  namespace onemodel::opt::ns {                                                                          \
  float sum16_f32(const float* t, std::size_t n) noexcept;                                               \
  void reduce_rows_f32(ReduceKind kind, ReduceTerm term, const float* x, float* out, std::size_t begin,  \
                       std::size_t end, std::size_t terms) noexcept;                                     \
  void reduce_columns_f32(ReduceKind kind, ReduceTerm term, const float* x, float* out, std::size_t reduced, \
                          std::size_t inner, std::size_t c0, std::size_t count) noexcept;                \
  }

#include "optimized/kernels/reduce/reduce_list.inc"

namespace onemodel::opt {

using ReduceRowsFn = void (*)(ReduceKind kind, ReduceTerm term, const float* x, float* out, std::size_t begin,
                             std::size_t end, std::size_t terms) noexcept;
using ReduceColumnsFn = void (*)(ReduceKind kind, ReduceTerm term, const float* x, float* out, std::size_t reduced,
                                std::size_t inner, std::size_t c0, std::size_t count) noexcept;
using Sum16Fn = float (*)(const float* t, std::size_t n) noexcept;

// One variant of the family (kernel_registry.hpp), from reduce_list.inc.
struct ReduceVariant {
  std::string_view name;
  Isa isa;
  ReduceRowsFn rows;
  ReduceColumnsFn columns;
  Sum16Fn sum16;
};

// The registry: every variant this build has, best first, scalar last; dispatch, the kernel tests
// and bench_kernels read it.
std::span<const ReduceVariant> reduce_variants() noexcept;

}  // namespace onemodel::opt
