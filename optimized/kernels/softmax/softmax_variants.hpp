// The per-path entry points behind softmax.hpp (softmax_<isa>.cpp): rows [begin, end).
#pragma once

#include <cstddef>
#include <span>
#include <string_view>

#include "optimized/frame/isa.hpp"

#define ONEMODEL_SOFTMAX_VARIANT(ns, isa, name) \
  namespace onemodel::opt::ns {                                                                        \
  void softmax_rows_f32(const float* x, float* y, std::size_t begin, std::size_t end, std::size_t cols, \
                        bool fast) noexcept;                                                           \
  void log_softmax_rows_f32(const float* x, float* y, std::size_t begin, std::size_t end,              \
                            std::size_t cols, bool fast, float (*log_fn)(float)) noexcept;             \
  }

#include "optimized/kernels/softmax/softmax_list.inc"

namespace onemodel::opt {

using SoftmaxRowsFn = void (*)(const float* x, float* y, std::size_t begin, std::size_t end, std::size_t cols,
                              bool fast) noexcept;
using LogSoftmaxRowsFn = void (*)(const float* x, float* y, std::size_t begin, std::size_t end, std::size_t cols,
                                 bool fast, float (*log_fn)(float)) noexcept;

// One variant of the family (kernel_registry.hpp), from softmax_list.inc.
struct SoftmaxVariant {
  std::string_view name;
  Isa isa;
  SoftmaxRowsFn softmax;
  LogSoftmaxRowsFn log_softmax;
};

// The registry: every variant this build has, best first, scalar last; dispatch, the kernel tests
// and bench_kernels read it.
std::span<const SoftmaxVariant> softmax_variants() noexcept;

}  // namespace onemodel::opt
