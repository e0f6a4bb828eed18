// The activation a convolution kernel applies to its finished outputs (graph-passes.md
// `conv-activation`): the activation override's element-wise kernel, and in a model with half
// values a rounding through the storage type first (spec/half-precision.md section 8.6: the value
// the adapter stores between the Conv and its activation, so the fused node keeps the bits of the
// two nodes run one after the other). Before it, optionally, a BatchNormalization in inference
// form (graph-passes.md `conv-batchnorm-epilogue`): per output channel y = x * a + shift with the
// BatchNormalization kernel's own plane function, so the values are those its node would store.
#pragma once

#include <cstddef>
#include <type_traits>

#include "optimized/frame/isa.hpp"
#include "optimized/kernels/batchnorm/batch_norm.hpp"
#include "optimized/kernels/elementwise/elementwise.hpp"

namespace onemodel::opt {

struct ConvActivation {
  // Per output channel of the whole Conv (all groups), the BatchNormalization's factor and shift
  // (batchnorm::channel_affine); both null when there is no normalization.
  const float* norm_scale = nullptr;
  const float* norm_shift = nullptr;
  bool activate = true;  // false: the normalization and/or the residual alone
  ew::UnaryArgs args;
  // Narrows then widens `n` values in place (given by the operator layer, which owns the
  // engine's conversions); null in a binary32 model.
  void (*round_first)(Isa isa, float* values, std::size_t n, bool bfloat16) = nullptr;
  bool bfloat16 = false;
  // `conv-residual` (docs/design.md "Residual Add"): a float32 tensor of the Conv's output shape,
  // added to each finished value (after the normalization, before the activation) by the Add
  // override's own element-wise call (ew::binary_f32_run: one rounded addition, canonical NaN),
  // operands in the Add node's order (residual first when `residual_first`). Null: no residual.
  const float* residual = nullptr;
  bool residual_first = false;
};

// Whether a kernel may apply `activation` in its own stores (fused_activation_avx512.hpp and
// fused_activation_avx2.hpp): a Relu,
// Clip, LeakyRelu, HardSwish or SiLU alone, with no normalization and no narrowing first. A residual Add is allowed
// where the caller adds it (the one-pass epilogue, conv_bias_rows.hpp).
inline bool activation_fuses_in_store(const ConvActivation* activation) noexcept {
  if (activation == nullptr || !activation->activate || activation->norm_scale != nullptr ||
      activation->round_first != nullptr) {
    return false;
  }
  const ew::UnaryOp op = activation->args.op;
  return op == ew::UnaryOp::Relu || op == ew::UnaryOp::Clip || op == ew::UnaryOp::LeakyRelu ||
         op == ew::UnaryOp::HardSwish || op == ew::UnaryOp::Silu;
}

namespace fused_activation {

// For the kernels that apply an activation in their own stores (fused_activation_avx512.hpp,
// fused_activation_avx2.hpp): fn(std::integral_constant<ew::UnaryOp, op>{}) for the activation
// `op`, so that a loop over many vectors picks its activation once, outside the loop.
template <class Fn>
inline decltype(auto) with_op(ew::UnaryOp op, Fn&& fn) {
  switch (op) {
    case ew::UnaryOp::Clip: return fn(std::integral_constant<ew::UnaryOp, ew::UnaryOp::Clip>{});
    case ew::UnaryOp::LeakyRelu: return fn(std::integral_constant<ew::UnaryOp, ew::UnaryOp::LeakyRelu>{});
    case ew::UnaryOp::HardSwish: return fn(std::integral_constant<ew::UnaryOp, ew::UnaryOp::HardSwish>{});
    case ew::UnaryOp::Silu: return fn(std::integral_constant<ew::UnaryOp, ew::UnaryOp::Silu>{});
    default: return fn(std::integral_constant<ew::UnaryOp, ew::UnaryOp::Relu>{});
  }
}

}  // namespace fused_activation

// `values`: n finished outputs of output channel `channel`, the outputs y[offset .. offset + n)
// of the whole Conv (the residual is read at the same positions).
inline void apply_conv_activation(Isa isa, const ConvActivation& activation, std::size_t channel, float* values,
                                  std::size_t n, std::size_t offset) {
  if (activation.norm_scale != nullptr) {
    batchnorm::batch_norm_plane_f32(isa, values, values, n, activation.norm_scale[channel], activation.norm_shift[channel]);
  }
  if (activation.residual != nullptr) {
    const float* r = activation.residual + offset;
    if (activation.residual_first) {
      ew::binary_f32_run(isa, ew::BinaryOp::Add, r, 1, values, 1, values, n);
    } else {
      ew::binary_f32_run(isa, ew::BinaryOp::Add, values, 1, r, 1, values, n);
    }
  }
  if (!activation.activate) return;
  if (activation.round_first != nullptr) activation.round_first(isa, values, n, activation.bfloat16);
  ew::unary_f32_run(isa, activation.args, values, values, n);
}

}  // namespace onemodel::opt
