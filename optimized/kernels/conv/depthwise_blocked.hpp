// The channel-blocked direct depthwise convolution (docs/design.md "Channel-blocked depthwise"):
// sixteen output channels in the lanes of one AVX-512 vector (eight in one AVX2 vector; the loops
// written once, depthwise_blocked_body.hpp), each output plane's window walked over a small
// channel-interleaved copy of the zero-padded input. For small maps (7x7 and 14x14
// with 5x5 and 7x7 kernels in EfficientNet, MnasNet, ConvNeXt, MobileNetV3) where the plane walk
// (depthwise.cpp) fills few of its 16 column lanes and builds a padded plane per channel.
//
// Every lane is one output computed as kernels-depthwise.md "What each output is" states it: +0,
// then the taps in row-major order, padding taps real products with +0 (the copy holds zeros
// there), the bias one rounded addition afterwards; exact mode: product and sum rounded apart
// (no fused multiply-add, exact-mode.md rule 1) and canonical NaN (rule 4), so the bits are the
// plane walk's and the reference's on every path. Fast mode: one fused multiply-add per tap, as
// the plane walk. Which outputs a thread computes never changes a value.
#pragma once

#include <cstddef>

#include "optimized/frame/isa.hpp"
#include "optimized/frame/kernel_context.hpp"
#include "optimized/kernels/conv/conv2d_shape.hpp"
#include "optimized/kernels/conv/conv_activation_step.hpp"

namespace onemodel::opt {

// Channels per block on AVX-512: the lanes of one 512-bit vector (AVX2 blocks are of 8 channels;
// the bounds below, set for 16, hold for them too).
inline constexpr std::size_t kDepthwiseBlockLanes = 16;
// The channel-interleaved padded input of one block is at most this many floats (256 KiB).
inline constexpr std::size_t kDepthwiseBlockMaxTileFloats = 65536;

// Whether depthwise_conv2d_f32 takes the channel-blocked kernel for this shape on this path in
// this mode: the AVX-512 and AVX2 paths only, at most 64 taps, the block's padded copy within
// kDepthwiseBlockMaxTileFloats, and output rows of at most 8, or narrower than 16 unstrided or with
// at least 49 taps (on AVX2 those with fewer than 49 taps only with 25 taps or more and a column
// stride of 1 or 2, unstrided or not); unstrided 7x7 rows under 32 (fast) or of any width (exact); in exact mode
// unstrided 5x5 rows that are not a multiple of 16 wide (the rules measured in
// depthwise_blocked.cpp). A constant of the shape, path and mode, never of the thread count; the
// bits are the same either way.
bool depthwise_takes_blocked(Isa isa, bool exact, const Conv2dShape& shape) noexcept;

#if defined(__x86_64__)
// x, w, bias, y, activation as depthwise_conv2d_f32 (any channel multiplier). Requires an
// AVX-512 machine; callers go through depthwise_conv2d_f32, tests and benches call it directly.
void depthwise_blocked_conv2d_f32__avx512(const KernelContext& context, const Conv2dShape& shape, const float* x,
                                          const float* w, const float* bias, float* y,
                                          const ConvActivation* activation);
// The same in blocks of eight channels (the same bits). Requires AVX2+FMA.
void depthwise_blocked_conv2d_f32__avx2(const KernelContext& context, const Conv2dShape& shape, const float* x,
                                        const float* w, const float* bias, float* y,
                                        const ConvActivation* activation);
#endif

}  // namespace onemodel::opt
