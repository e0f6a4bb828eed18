// The per-instruction-set variants of the element-wise kernels (file name = function name,
// DESIGN.md rule 5): elementwise_<isa>.cpp defines unary_f32__<isa>, binary_f32__<isa> and
// scale_shift_activation_f32__<isa>. Only
// the variants of the build's platform exist; the list (elementwise_list.inc) names them under the
// same guards, and declares them here, builds the registry table (elementwise.cpp) and nothing
// else refers to them.
#pragma once

#include <cstddef>
#include <span>
#include <string_view>

#include "optimized/frame/isa.hpp"
#include "optimized/kernels/elementwise/elementwise.hpp"

namespace onemodel::opt::ew {

#define ONEMODEL_EW_VARIANT(suffix, isa, name)                                                                         \
  void unary_f32__##suffix(const UnaryArgs& args, const float* x, float* y, std::size_t n);                            \
  void binary_f32__##suffix(BinaryOp op, const float* a, std::ptrdiff_t a_step, const float* b, std::ptrdiff_t b_step, \
                            float* y, std::size_t n);                                                                  \
  void scale_shift_activation_f32__##suffix(float a, float shift, const UnaryArgs& act, const float* x, float* y,      \
                                            std::size_t n);
#include "optimized/kernels/elementwise/elementwise_list.inc"

using UnaryFn = void (*)(const UnaryArgs& args, const float* x, float* y, std::size_t n);
using BinaryFn = void (*)(BinaryOp op, const float* a, std::ptrdiff_t a_step, const float* b, std::ptrdiff_t b_step,
                          float* y, std::size_t n);
using ScaleShiftActivationFn = void (*)(float a, float shift, const UnaryArgs& act, const float* x, float* y,
                                        std::size_t n);

// One variant of the family (kernel_registry.hpp).
struct Variant {
  std::string_view name;
  Isa isa;
  UnaryFn unary;
  BinaryFn binary;
  ScaleShiftActivationFn scale_shift_activation;
};

// The registry: every variant this build has, best first, scalar last.
std::span<const Variant> variants() noexcept;

}  // namespace onemodel::opt::ew
