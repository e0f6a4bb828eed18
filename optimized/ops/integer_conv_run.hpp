// The integer convolution of ConvInteger and QLinearConv on the integer product kernel
// (spec-source int8.md "Convolution"; optimized/kernels/int8gemm): per image and group, the
// input's windows laid out as the columns of B (im2col, a padding tap holding the input's zero
// point so that it contributes (zx - zx) = 0, as spec/ops/quantization.md section 7 defines it),
// the group's weights as A with their zero point per output channel, the output plane as C.
// Every sum is the reference's modulo 2^32 (int8_gemm.hpp), so the bits are the reference's.
#pragma once

#include <cstdint>
#include <vector>

#include "core/graph/op_kernel.hpp"
#include "optimized/ops/optimized_kernel.hpp"
#include "reference/ops/integer_products.hpp"

namespace onemodel::opt {

// y [n, m, spatial...] (int32) from input `x_input` and weights `w_input` of `context`; `zw` one
// value or one per output channel.
void run_integer_conv(const RunContext& context, const quant::IntegerConvGeometry& g, std::size_t x_input,
                      std::size_t w_input, std::int32_t zx, const std::vector<std::int32_t>& zw, std::int32_t* y,
                      const OptimizedConfig& config);

}  // namespace onemodel::opt
