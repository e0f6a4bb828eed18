// The activation a convolution kernel applies to its finished outputs (graph-passes.md
// `conv-activation`): the activation override's element-wise kernel, and in a model with half
// values a rounding through the storage type first (spec/half-precision.md section 8.6: the value
// the adapter stores between the Conv and its activation, so the fused node keeps the bits of the
// two nodes run one after the other).
#pragma once

#include <cstddef>

#include "optimized/frame/isa.hpp"
#include "optimized/kernels/elementwise/elementwise.hpp"

namespace onemodel::opt {

struct ConvActivation {
  ew::UnaryArgs args;
  // Narrows then widens `n` values in place (given by the operator layer, which owns the
  // engine's conversions); null in a binary32 model.
  void (*round_first)(Isa isa, float* values, std::size_t n, bool bfloat16) = nullptr;
  bool bfloat16 = false;
};

inline void apply_conv_activation(Isa isa, const ConvActivation& activation, float* values, std::size_t n) {
  if (activation.round_first != nullptr) activation.round_first(isa, values, n, activation.bfloat16);
  ew::unary_f32_run(isa, activation.args, values, values, n);
}

}  // namespace onemodel::opt
