// Regular and grouped 2-D convolution as im2col + the matrix product (kernels-gemm.md
// "Convolution"), and the 2-D transposed convolution as the matrix product + col2im
// (spec/ops/products-conv.md section 7). Per output the matrix product keeps one accumulator over
// increasing k from +0, so im2col rows ordered (c, ky, kx) give exactly the exact-mode
// convolution order (exact-mode.md "Convolution").
#pragma once

#include <cstddef>

#include "optimized/frame/kernel_context.hpp"
#include "optimized/kernels/conv/conv2d_shape.hpp"
#include "optimized/kernels/elementwise/elementwise.hpp"

namespace onemodel::opt {

// Floats of workspace conv2d_f32 needs: one image-and-group im2col matrix, or 0 when the input
// itself is the matrix (1x1 kernel, stride 1, no padding).
std::size_t conv2d_workspace_floats(const Conv2dShape& shape) noexcept;

// x: [batch, Cin, in_h, in_w]; w: [Cout, Cin/G, KH, KW]; bias: [Cout] or nullptr;
// y: [batch, Cout, out_h, out_w]. The bias is one rounded addition after the sum; exact mode
// stores canonical NaN. `activation`, when given, is then applied to each finished tile of the
// product through the element-wise kernel (graph-passes.md `conv-activation`).
void conv2d_f32(const KernelContext& context, const Conv2dShape& shape, const float* x, const float* w,
                const float* bias, float* y, float* workspace, const ew::UnaryArgs* activation = nullptr);

// The transposed convolution: the shape's in_* are X's spatial extents, out_* Y's, in_channels
// = C, out_channels = M; pad_top/pad_left the padding taken off the front.
// x: [batch, C, in_h, in_w]; w: [C, M/G, KH, KW]; bias: [M] or nullptr; y: [batch, M, out_h, out_w].
std::size_t conv_transpose2d_workspace_floats(const Conv2dShape& shape) noexcept;
void conv_transpose2d_f32(const KernelContext& context, const Conv2dShape& shape, const float* x, const float* w,
                          const float* bias, float* y, float* workspace);

}  // namespace onemodel::opt
