// Regular and grouped 2-D convolution as im2col + the matrix product (kernels-gemm.md
// "Convolution"), and the 2-D transposed convolution as the matrix product + col2im
// (spec/ops/products-conv.md section 7). Per output the matrix product keeps one accumulator over
// increasing k from +0, so im2col rows ordered (c, ky, kx) give exactly the exact-mode
// convolution order (exact-mode.md "Convolution").
#pragma once

#include <cstddef>
#include <vector>

#include "optimized/frame/kernel_context.hpp"
#include "optimized/kernels/conv/conv2d_shape.hpp"
#include "optimized/kernels/elementwise/elementwise.hpp"
#include "optimized/kernels/conv/conv_activation_step.hpp"
#include "optimized/kernels/gemm/gemm.hpp"
#include "optimized/kernels/gemm/gemm_half.hpp"

namespace onemodel::opt {

// Floats of workspace conv2d_f32 needs on path `isa`: one image-and-group im2col matrix, or 0 when
// the input itself is the matrix (1x1 kernel, stride 1, no padding) or when the weights come packed
// (the product then fills each strip of the im2col matrix from the image as it needs it), but for
// the phase planes of one image and group where a strided convolution with packed weights reads
// through them (conv_phase_split.hpp). Without a path: the most any path needs.
std::size_t conv2d_workspace_floats(const Conv2dShape& shape, bool packed_weights = false,
                                    Isa isa = Isa::Scalar) noexcept;

// x: [batch, Cin, in_h, in_w]; w: [Cout, Cin/G, KH, KW]; bias: [Cout] or nullptr;
// y: [batch, Cout, out_h, out_w]. The bias is one rounded addition after the sum; exact mode
// stores canonical NaN. `activation`, when given, is then applied to each finished tile of the
// product through the element-wise kernel (graph-passes.md `conv-activation`).
//
// `packed_weights`, when given, is conv2d_pack_weights(context.isa, shape, w): one PackedA per
// group, and w is then not read (it may be nullptr). The results are the same bits either way.
// `workspace` holds conv2d_workspace_floats(shape, packed_weights != nullptr, context.isa) floats;
// with packed weights it may be nullptr (the strided fill from the image then serves every shape).
void conv2d_f32(const KernelContext& context, const Conv2dShape& shape, const float* x, const float* w,
                const float* bias, float* y, float* workspace, const ConvActivation* activation = nullptr,
                const PackedA* packed_weights = nullptr);

// conv2d_f32 with 16-bit weights (a compact weight, spec/session.md section 9): each group's A is
// widened block by block as the product packs it (gemm_half.hpp) and the im2col matrix is filled
// strip by strip from the image, so neither is stored whole; no workspace is needed. The results
// are conv2d_f32's bits on weights holding the widened values.
void conv2d_f32_half_weights(const KernelContext& context, const Conv2dShape& shape, const float* x,
                             const HalfMatrixView& w, const float* bias, float* y,
                             const ConvActivation* activation = nullptr);

// Constant weights w: [Cout, Cin/G, KH, KW] packed once as the A operand of each group's product
// (Cout/G x Cin/G*KH*KW, rows ordered like the im2col rows), so a call does not re-pack them per
// tile row (kernels-gemm.md "Convolution": the group's weights are A).
std::vector<PackedA> conv2d_pack_weights(Isa isa, const Conv2dShape& shape, const float* w);

// The transposed convolution: the shape's in_* are X's spatial extents, out_* Y's, in_channels
// = C, out_channels = M; pad_top/pad_left the padding taken off the front.
// x: [batch, C, in_h, in_w]; w: [C, M/G, KH, KW]; bias: [M] or nullptr; y: [batch, M, out_h, out_w].
std::size_t conv_transpose2d_workspace_floats(const Conv2dShape& shape) noexcept;
void conv_transpose2d_f32(const KernelContext& context, const Conv2dShape& shape, const float* x, const float* w,
                          const float* bias, float* y, float* workspace);

}  // namespace onemodel::opt
