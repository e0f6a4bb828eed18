// The per-path entry points behind vexp.hpp, one set per lanes type (vexp_<isa>.cpp). Only the
// dispatcher calls them, each under its platform guard.
#pragma once

#include <cstddef>
#include <span>
#include <string_view>

#include "optimized/frame/isa.hpp"

#define ONEMODEL_VEXP_VARIANT(ns, isa, name) \
  namespace onemodel::opt::ns {                                                    \
  void exp_non_positive_f32(const float* x, float* y, std::size_t n) noexcept;    \
  void fast_exp_f32(const float* x, float* y, std::size_t n) noexcept;            \
  }

#include "optimized/kernels/vexp/vexp_list.inc"

namespace onemodel::opt {

using VexpFn = void (*)(const float* x, float* y, std::size_t n) noexcept;

// One variant of the family (kernel_registry.hpp), from vexp_list.inc.
struct VexpVariant {
  std::string_view name;
  Isa isa;
  VexpFn exp_non_positive;
  VexpFn fast_exp;
};

// The registry: every variant this build has, best first, scalar last; dispatch, the kernel tests
// and bench_kernels read it.
std::span<const VexpVariant> vexp_variants() noexcept;

}  // namespace onemodel::opt
