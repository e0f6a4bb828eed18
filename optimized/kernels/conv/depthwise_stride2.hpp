// The depthwise convolution at stride 2 read straight from the input plane on the AVX-512 and AVX2
// paths (docs/design.md "Stride-2 depthwise without phase planes"). The plane walk (depthwise.cpp)
// first copies each input plane into its four stride phases, which took about two thirds of a
// 96-channel 3x3 stride-2 layer on a 112 x 112 map (MobileNet, EfficientNet, MnasNet each have
// four or five such layers). Here sixteen (AVX-512) or eight (AVX2) output columns sit in the lanes
// (the loops written once, depthwise_stride2_body.hpp); per window row three loads cover the
// inputs of those columns, two permutes (AVX2: two shuffles and two 64-bit permutes) split them
// into even and odd input columns, and each tap kx = 2q + s is the s-parity vector moved q lanes
// on (one align; AVX2: a 128-bit permute and a byte align). Columns outside the input are
// masked-off lanes (never read) holding +0, and rows outside it are vectors of +0, so padding taps
// are real products with +0.
//
// Every lane is one output as kernels-depthwise.md "What each output is" states it: +0, the taps
// in row-major order, the bias one rounded addition afterwards; exact mode rounds each product and
// each sum (no fused multiply-add) and stores NaN as 0x7FC00000, fast mode makes one fused
// multiply-add per tap: the plane walk's sequence in both modes, so its bits.
#pragma once

#include <cstddef>

#include "optimized/frame/isa.hpp"
#include "optimized/kernels/conv/conv2d_shape.hpp"

namespace onemodel::opt {

// Whether the plane walk hands this shape's planes to the stride-2 kernel: the AVX-512 or AVX2 path,
// strides 2 x 2, no dilation, 3- or 5-wide windows at most 7 tall, left padding below the window
// width, output rows of at least 9 columns (narrower ones take the channel-blocked kernel first,
// depthwise_blocked.hpp) and on AVX2 fewer than 28 of windows that are not square or with a channel
// multiplier (square 3x3 and 5x5 windows of one filter a channel take the split walk's band
// kernel there), extents far below the 32-bit range.
bool depthwise_takes_stride2(Isa isa, const Conv2dShape& shape) noexcept;

#if defined(__x86_64__)
// One output plane: `in` the input plane (in_h x in_w), `w` its kernel_h x kernel_w taps, `bias`
// one value or nullptr, `out` out_h x out_w. Requires an AVX-512 machine and
// depthwise_takes_stride2.
void depthwise_stride2_plane__avx512(const Conv2dShape& shape, const float* in, const float* w, const float* bias,
                                     float* out, bool exact) noexcept;
// The same on eight lanes (depthwise_stride2_body.hpp; the same bits). Requires AVX2+FMA.
void depthwise_stride2_plane__avx2(const Conv2dShape& shape, const float* in, const float* w, const float* bias,
                                   float* out, bool exact) noexcept;
#endif

}  // namespace onemodel::opt
