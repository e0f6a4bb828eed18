// The direct depthwise integer convolution (spec-source int8.md "Convolution": a direct kernel
// for group = input channels; kernels-depthwise.md for the row layout): one input channel per
// group, any channel multiplier, kernel size, stride, padding and dilation on one to three spatial
// axes. No packing: per (image, input channel) the input rows are widened once to int16 (x - zx),
// padded with zeros (a padding tap contributes 0, spec/ops/quantization.md section 7) and split
// into `stride` phases, so that every tap of an output row reads a contiguous run; each output is
// then sum over taps of (x - zx) * (w - zw), the products exact in int32 (|.| <= 255 * 255) and
// the sum modulo 2^32, which is the reference's wrapped 64-bit sum whatever the order.
#pragma once

#include <cstdint>

#include "optimized/frame/isa.hpp"
#include "optimized/ops/integer_conv_run.hpp"
#include "optimized/frame/thread_pool.hpp"
#include "reference/ops/integer_products.hpp"

namespace onemodel::opt {

// True when the row buffer of one channel stays within a sane size for this geometry (an absurd
// dilation or stride makes it large; the product-kernel path then serves the node).
bool integer_depthwise_fits(const quant::IntegerConvGeometry& g);

// y [n, m, spatial...] from x [n, c, spatial...] (bytes, int8 when x_signed) and `taps`, the
// (w - zw) values per output channel and tap. Chunks: one per (image, input channel), each
// calling `epilogue` (when given) on the planes it wrote.
void integer_depthwise(const quant::IntegerConvGeometry& g, const std::uint8_t* x, bool x_signed, std::int32_t zx,
                       const std::int32_t* taps, std::int32_t* y, ThreadPool* pool, Isa isa,
                       const IntegerConvEpilogue* epilogue);

}  // namespace onemodel::opt
