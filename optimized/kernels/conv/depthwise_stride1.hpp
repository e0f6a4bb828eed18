// The unstrided depthwise convolution read straight from the input plane on the AVX-512 and AVX2
// paths (docs/design.md "Unstrided depthwise without padded planes"). The plane walk
// (depthwise.cpp) first copies each padded input plane into scratch, which took about a third of a
// 32-channel 3x3 layer on a 112 x 112 map. Here sixteen (AVX-512) or eight (AVX2) output columns
// sit in the lanes (the loops written once, depthwise_stride1_body.hpp); for every input row a
// tile of output rows reaches, each window column is one load of a vector of input columns, masked
// where they fall outside the input (masked-off lanes are never read and hold +0), and feeds the
// tile's output rows whose window holds that input row. Input rows outside the plane are vectors
// of +0, so padding taps are real products with +0 (an infinite weight meeting padding gives NaN).
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

// Whether the plane walk hands this shape's planes to the unstrided kernel: the AVX-512 or AVX2 path,
// strides 1 x 1, no dilation, square windows 3 or 7 wide, left padding below the window width,
// output rows of at least 64 columns for 3x3 windows and 16 for 7x7 (narrower ones take the
// channel-blocked kernel, depthwise_blocked.hpp, or the walk), extents far below the 32-bit range.
bool depthwise_takes_stride1(Isa isa, const Conv2dShape& shape) noexcept;

#if defined(__x86_64__)
// One output plane: `in` the input plane (in_h x in_w), `w` its kernel_h x kernel_w taps, `bias`
// one value or nullptr, `out` out_h x out_w. Requires an AVX-512 machine and
// depthwise_takes_stride1.
void depthwise_stride1_plane__avx512(const Conv2dShape& shape, const float* in, const float* w, const float* bias,
                                     float* out, bool exact) noexcept;
// The same on eight lanes (depthwise_stride1_body.hpp; the same bits). Requires AVX2+FMA.
void depthwise_stride1_plane__avx2(const Conv2dShape& shape, const float* in, const float* w, const float* bias,
                                   float* out, bool exact) noexcept;
#endif

}  // namespace onemodel::opt
