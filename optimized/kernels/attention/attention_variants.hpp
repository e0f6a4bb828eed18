// The per-path entry points behind attention.hpp (attention_<isa>.cpp): one work item.
#pragma once

#include <cstddef>
#include <span>
#include <string_view>

#include "optimized/frame/isa.hpp"
#include "optimized/kernels/attention/attention.hpp"

namespace onemodel::opt::attention {
struct Scratch;
}

#define ONEMODEL_ATTENTION_VARIANT(ns, isa, name)                                                       \
  namespace onemodel::opt::ns {                                                                         \
  void attention_item_f32(const AttentionArgs& args, const attention::Scratch& scratch, std::size_t b,  \
                          std::size_t h, std::size_t i0, std::size_t rows, bool fast) noexcept;         \
  }

#include "optimized/kernels/attention/attention_list.inc"

namespace onemodel::opt {

// One work item: (b, h, query rows [i0, i0 + rows)) into the output, with the thread's scratch.
using AttentionItemFn = void (*)(const AttentionArgs& args, const attention::Scratch& scratch, std::size_t b,
                                 std::size_t h, std::size_t i0, std::size_t rows, bool fast) noexcept;

// One variant of the family (kernel_registry.hpp), from attention_list.inc.
struct AttentionVariant {
  std::string_view name;
  Isa isa;
  AttentionItemFn item;
};

// The registry: every variant this build has, best first, scalar last; dispatch, the kernel tests
// and bench_kernels read it.
std::span<const AttentionVariant> attention_variants() noexcept;

}  // namespace onemodel::opt
