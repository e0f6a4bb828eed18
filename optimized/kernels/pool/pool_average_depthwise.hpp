// AveragePool as a depthwise sum (spec/ops/products-conv.md section 8.3): the window's inside taps
// summed from +0 in (h, w) order are the depthwise walk's sum of 1 * x over every tap in row-major
// order with zero padding (kernels-depthwise.md), bit for bit:
//  - 1 * x is x, exactly (a signalling NaN comes out quiet; NaN is made canonical at the end);
//  - a padding tap adds +0, the identity on any sum that starts at +0: such a sum is never -0
//    (+0 + -0 is +0), and x + +0 is x for every other x, infinities and NaN included;
//  - fast mode's fused step fma(1, x, acc) rounds acc + x once, as the unfused one does.
// The quotient is then the reference's: the sum divided by the section 8.3 divisor, one IEEE
// division per output (the element-wise Div kernel on each row's interior run), NaN canonical.
#pragma once

#include "optimized/frame/kernel_context.hpp"
#include "optimized/kernels/pool/pool.hpp"

namespace onemodel::opt::pool {

// Whether the shape takes average_planes_depthwise: windows the depthwise walk serves (at most 64
// taps, column stride at most 8: depthwise_uses_fallback) with non-negative pads.
bool average_takes_depthwise(const Pool2dShape& shape) noexcept;

// x: planes * h.in * w.in floats, y: planes * h.out * w.out floats; the reference's bits.
void average_planes_depthwise(const KernelContext& context, const Pool2dShape& shape, const float* x, float* y);

}  // namespace onemodel::opt::pool
