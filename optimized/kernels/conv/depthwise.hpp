// The direct depthwise convolution (kernels-depthwise.md): a Conv with groups == Cin and any
// channel multiplier (Cout = Cin * multiplier). Every output is +0 plus w*x over the taps in
// row-major order, padding taps being products with real zeros; the bias, when given, is one
// rounded addition afterwards. Exact mode: unfused, canonical NaN (exact-mode.md rules 1-4), the
// same bits on every path and thread count. Fast mode: one fused multiply-add per tap where the
// path has one.
#pragma once

#include "optimized/frame/kernel_context.hpp"
#include "optimized/kernels/conv/conv2d_shape.hpp"
#include "optimized/kernels/elementwise/elementwise.hpp"
#include "optimized/kernels/conv/conv_activation_step.hpp"

namespace onemodel::opt {

// x: [batch, Cin, in_h, in_w]; w: [Cout, 1, kernel_h, kernel_w]; bias: [Cout] or nullptr;
// y: [batch, Cout, out_h, out_w]. Requires shape.groups == shape.in_channels. `activation`, when
// given, is applied to each finished output plane through the element-wise kernel
// (graph-passes.md `conv-activation`: after the direct depthwise kernel, per plane).
void depthwise_conv2d_f32(const KernelContext& context, const Conv2dShape& shape, const float* x, const float* w,
                          const float* bias, float* y, const ConvActivation* activation = nullptr);

// The plane walk alone, whatever the shape (depthwise_conv2d_f32 takes the channel-blocked kernel
// for the shapes depthwise_takes_blocked names, depthwise_blocked.hpp): same arguments, the same
// bits in exact mode. For tests and benches that compare the two.
void depthwise_walk_conv2d_f32(const KernelContext& context, const Conv2dShape& shape, const float* x, const float* w,
                               const float* bias, float* y, const ConvActivation* activation = nullptr);

// The number of planes in one chunk: clamp(4096 / (OutH * OutW), 1, 32) (kernels-depthwise.md
// "Chunks"), a constant of the shape.
std::size_t depthwise_planes_per_chunk(const Conv2dShape& shape) noexcept;

// Whether the shape takes the plain per-output loop (more than 64 taps or a column stride above 8).
bool depthwise_uses_fallback(const Conv2dShape& shape) noexcept;

// Whether depthwise_walk_conv2d_f32 builds the stride-2 phase planes by bands with the AVX2 split
// (docs/design.md "Stride-2 phase planes by bands"): the AVX2 path, column stride 2, one filter
// per input channel, a shape neither the fallback nor an in-place kernel takes. For tests.
bool depthwise_walk_splits_bands(Isa isa, const Conv2dShape& shape) noexcept;

// Whether depthwise_walk_conv2d_f32 computes the shape's planes with the AVX2 band kernel
// (depthwise_band.hpp): square 3x3 and 5x5 windows, strides 1 x 1 (over the padded plane) or 2 x 2
// (over the split bands), no dilation, rows of at least 8 outputs, a shape neither the fallback nor
// an in-place kernel takes. For tests.
bool depthwise_walk_takes_band_kernel(Isa isa, const Conv2dShape& shape) noexcept;

}  // namespace onemodel::opt
