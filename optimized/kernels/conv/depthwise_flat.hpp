// The flattened-plane direct depthwise convolution (docs/design.md "Flattened-plane depthwise"):
// for small unstrided maps whose rows are narrower than a vector (7 x 7, 14 x 14), an output plane
// is computed as its row-major sequence of positions, sixteen at a time on AVX-512, without
// copying the input. With stride 1 and an output as large as the input, output position i and
// tap (ky, kx) read input position i + (ky - pad_top) * in_w + (kx - pad_left); a mask per tap and
// vector of positions keeps the lanes whose input row and column lie inside the map, and the
// masked load gives +0 in the others: the padding taps' products with real zeros. The channel-
// blocked kernel (depthwise_blocked.hpp) interleaves sixteen planes into a padded tile and back
// for the same shapes; this one reads and writes each plane once.
//
// Every lane is one output computed as kernels-depthwise.md "What each output is" states it: +0,
// then the taps in row-major order, the bias one rounded addition afterwards; exact mode: product
// and sum rounded apart (exact-mode.md rule 1) and canonical NaN (rule 4), so the bits are the
// plane walk's, the blocked kernel's and the reference's. Fast mode: one fused multiply-add per
// tap, as the other kernels. Which outputs a thread computes never changes a value.
#pragma once

#include <cstddef>

#include "optimized/frame/isa.hpp"
#include "optimized/frame/kernel_context.hpp"
#include "optimized/kernels/conv/conv2d_shape.hpp"
#include "optimized/kernels/conv/conv_activation_step.hpp"

namespace onemodel::opt {

// Output planes of at most this many positions: one accumulator vector per sixteen positions,
// all held in registers (16 of the 32 zmm).
inline constexpr std::size_t kDepthwiseFlatMaxPlane = 256;
// Windows of at most this many taps (7 x 7): the mask table holds one mask per tap and vector.
inline constexpr std::size_t kDepthwiseFlatMaxTaps = 49;

// Whether the flattened-plane kernel can compute the shape at all: stride 1 and dilation 1 both
// ways, the output as large as the input (so the flattened offsets are constant), at most
// kDepthwiseFlatMaxTaps taps and kDepthwiseFlatMaxPlane positions per plane.
bool depthwise_flat_fits(const Conv2dShape& shape) noexcept;

// Whether depthwise_conv2d_f32 takes it: the AVX-512 path in fast mode, a shape that fits with at
// most 9 taps, rows narrower than sixteen (the rule measured in depthwise_flat.cpp). A constant of the shape, path and mode, never
// of the thread count; the bits are the same either way.
bool depthwise_takes_flat(Isa isa, bool exact, const Conv2dShape& shape) noexcept;

#if defined(__x86_64__)
// x, w, bias, y, activation as depthwise_conv2d_f32 (any channel multiplier). Requires an
// AVX-512 machine and depthwise_flat_fits(shape); callers go through depthwise_conv2d_f32, tests
// and benches call it directly.
void depthwise_flat_conv2d_f32__avx512(const KernelContext& context, const Conv2dShape& shape, const float* x,
                                       const float* w, const float* bias, float* y, const ConvActivation* activation);
#endif

}  // namespace onemodel::opt
