// The direct stem convolution with output columns in the lanes (conv_stem_columns_avx512.cpp): the
// shapes conv_stem_takes names, with a 3-, 5- or 7-wide window, column stride 1 or 2 and no column
// dilation, computed without the 16 x 16 transposes of the channels-in-lanes stem kernel
// (conv_stem.hpp). The same per-output sequence, so the same bits in both modes.
#pragma once

#include "optimized/frame/kernel_context.hpp"
#include "optimized/kernels/conv/conv2d_shape.hpp"
#include "optimized/kernels/conv/conv_activation_step.hpp"

namespace onemodel::opt {

// Whether conv_stem_f32__avx512 hands a shape it serves to the columns kernel: one group, at most 4 input
// channels, more than 16 output channels, a 3-, 5- or 7-wide window, column stride 1 or 2, no
// column dilation (conv_stem.cpp has the measurements). A constant of the shape.
bool conv_stem_columns_takes(const Conv2dShape& shape) noexcept;

#if defined(__x86_64__)
// Arguments and requirements as conv_stem_f32__avx512's, and conv_stem_columns_takes.
void conv_stem_columns_f32__avx512(const KernelContext& context, const Conv2dShape& shape, const float* x,
                                   const float* packed, const float* bias, float* y, const ConvActivation* activation);
#endif

}  // namespace onemodel::opt
