// Float32 BatchNormalization in inference form (spec/ops/products-conv.md section 9, from
// ops-conv.md "BatchNormalization"), reading every operand in place. Each (n, c) plane gets the
// reference kernel's bits (reference/ops/op_batch_normalization.cpp) in both modes: per channel
// a = scale / sqrt(var + epsilon), shift = bias - mean * a, in float32 and in that order; then
// y = x * a + shift, the product and the sum each rounded on their own (no fused multiply-add), NaN
// stored canonical (0x7FC00000). Element-wise IEEE operations in the reference's order, so vector
// lanes and thread count cannot change a result.
#pragma once

#include <cmath>
#include <cstddef>

#include "optimized/frame/kernel_context.hpp"
#include "optimized/kernels/elementwise/elementwise.hpp"

namespace onemodel::opt::batchnorm {

struct BatchNormArgs {
  const float* x = nullptr;
  float* y = nullptr;  // may equal x (the reference lets the output reuse X's storage)
  const float *scale = nullptr, *bias = nullptr, *mean = nullptr, *var = nullptr;  // C entries each
  float epsilon = 1e-5f;
  std::size_t n = 0, c = 0, plane = 0;  // x is [n, c, plane]
  // The activation the `batchnorm-activation` pass fused after the normalization
  // (spec/optimized-engine.md section 2; docs/design.md "BatchNormalization and its activation in
  // one pass"), applied to each value as the separate activation node would apply it to the
  // normalization's stored result; null: none.
  const ew::UnaryArgs* activation = nullptr;
};

void batch_norm_f32(const KernelContext& context, const BatchNormArgs& args);

// One channel's factor and shift as the reference computes them (reference/ops/
// op_batch_normalization.cpp), each float32 operation rounded on its own in this order:
// a = scale / sqrt(var + epsilon), shift = bias - mean * a. Shared by batch_norm_f32 and the
// Conv's BatchNormalization epilogue (graph-passes.md `conv-batchnorm-epilogue`), so both give the
// same bits. Callers are compiled with -ffp-contract=off (no fused multiply-add).
inline void channel_affine(float scale, float bias, float mean, float var, float epsilon, float& a,
                           float& shift) noexcept {
  const float denom = std::sqrt(var + epsilon);
  a = scale / denom;
  const float mean_a = mean * a;
  shift = bias - mean_a;
}

// One plane of `size` values: y = canonical(x * a + shift), the product and the sum each rounded
// (no fused multiply-add), NaN stored as 0x7FC00000. x and y may be the same array. The path's
// element-wise kernel (ew::UnaryOp::ScaleShift), so every path gives the same bits.
// With `activation` (not null) each stored value is then activation(y) as the activation's
// element-wise kernel computes it from that y (ew::scale_shift_activation_f32_run), so the bits
// of the plane function followed by ew::unary_f32_run(*activation) in place.
void batch_norm_plane_f32(Isa isa, const float* x, float* y, std::size_t size, float a, float shift,
                          const ew::UnaryArgs* activation = nullptr) noexcept;

}  // namespace onemodel::opt::batchnorm
