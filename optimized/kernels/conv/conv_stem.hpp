// The direct convolution for few input channels on the AVX-512 path (docs/design.md "Direct stem
// convolution"): a network's first layer (3 input channels, 3 x 3 or 7 x 7 at stride 2) has a short
// product dimension K = Cin * KH * KW, so im2col + the product spent a fifth of its time building
// the im2col strips and ran at about 55% of the multiply-add peak. Here sixteen output channels sit
// in the lanes of a register and up to sixteen output columns of one row in as many registers (32
// channels by 14 columns where there are more than 16 channels): per tap, one vector of 16
// weights per 16 channels times one broadcast input value per column, no im2col; a 16 x 16
// transpose then stores each channel's columns. The same kernel serves unstrided layers with
// few output channels over wide rows (conv_stem_takes). Every output is the product's sequence
// (kernels-gemm.md "Convolution", exact-mode.md "Convolution"): +0, then w * x over k = (c, ky, kx)
// in increasing order, padding taps products with +0, the bias one rounded addition afterwards;
// exact mode unfused with canonical NaN, fast mode one fused multiply-add per tap. So exact
// results are the im2col path's and the reference's bits.
#pragma once

#include <cstddef>
#include <vector>

#include "optimized/frame/isa.hpp"
#include "optimized/frame/kernel_context.hpp"
#include "optimized/kernels/conv/conv2d_shape.hpp"
#include "optimized/kernels/conv/conv_activation_step.hpp"

namespace onemodel::opt {

// Whether the direct kernel serves this shape on this path in this mode: the AVX-512 path, one
// group, either at most 4 input channels and K <= 256 (a stem) or an unstrided, undilated KxK
// convolution (K > 1 tap) with K <= 1152 over output rows of at least 48 columns to 16, 32 or 64
// output channels in fast mode and to 16 in exact mode, or in fast mode to 32 or 64 channels over
// rows of whole 14-column tiles (28, 42) (where im2col + the product measured slower,
// conv_stem.cpp); output rows of at least 8 columns, column stride at most 8, and extents far
// below the 32-bit range; or a grouped (not depthwise) convolution with 16 filters a group, or in
// fast mode 32 or 64, K <= 1152 per group and output rows that fill at least 85% of the kernel's
// column tiles (conv_stem.cpp). A constant of the shape, path and mode; either choice gives the
// same bits.
bool conv_stem_takes(Isa isa, bool exact, const Conv2dShape& shape) noexcept;

// The weights w [Cout, Cin/G, KH, KW] as the kernel reads them, group after group: in group g,
// row k = (c, ky, kx) holds the group's Cout/G weights of that tap, then zeros up to
// conv_stem_padded_channels(isa, Cout/G) (the AVX-512 kernel reads 16 or 32 channels at a time).
// On AVX2 a group is blocks of 8 channels instead, each block its K rows of 8 weights (the kernel
// reads 8 channels at a time: conv_stem_avx2.cpp).
std::size_t conv_stem_padded_channels(Isa isa, std::size_t out_channels) noexcept;
std::vector<float> conv_stem_pack_weights(Isa isa, const Conv2dShape& shape, const float* w);

#if defined(__x86_64__)
// x: [batch, Cin, in_h, in_w]; packed: conv_stem_pack_weights; bias: [Cout] or nullptr; y: [batch,
// Cout, out_h, out_w]; `activation` as conv2d_f32's. Requires an AVX-512 machine and
// conv_stem_takes.
void conv_stem_f32__avx512(const KernelContext& context, const Conv2dShape& shape, const float* x,
                           const float* packed, const float* bias, float* y, const ConvActivation* activation);
// The AVX2 twin (conv_stem_avx2.cpp): 8 output channels in the lanes of a ymm register, tiles of
// 14 columns (fast-mode stems: 16 channels by 6 columns), the same bits. packed: conv_stem_pack_weights(Isa::Avx2, ...). Requires an AVX2
// machine and conv_stem_takes(Isa::Avx2, ...).
void conv_stem_f32__avx2(const KernelContext& context, const Conv2dShape& shape, const float* x,
                         const float* packed, const float* bias, float* y, const ConvActivation* activation);
#endif

}  // namespace onemodel::opt
