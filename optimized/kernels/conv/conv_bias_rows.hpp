// The bias step of the convolution epilogue (conv_bias_epilogue.hpp) on the AVX-512 and AVX2
// paths (one body over a lane type, conv_bias_rows_body.hpp): rows of C, one bias value per row, each output one rounded addition (spec/ops/products-conv.md section 6)
// and, in exact mode, the canonical NaN (exact-mode.md rule 4): the generic loop's bits. The
// epilogue is compiled without vector flags, and its plain loop moved four floats per instruction.
#pragma once

#include <cstddef>

#include "optimized/kernels/conv/conv_activation_step.hpp"

namespace onemodel::opt {

#if defined(__x86_64__)
// Rows [0, rows) of c (row stride ldc), `cols` values each: c[r][j] = c[r][j] + bias[r]. Requires
// an AVX-512 machine.
void conv_bias_rows__avx512(float* c, std::ptrdiff_t ldc, const float* bias, std::size_t rows, std::size_t cols,
                            bool exact);

// The bias step, then a residual Add when `residual` is not null (row r at residual + r * plane),
// then the activation (Relu, Clip, LeakyRelu, HardSwish or SiLU: fused_activation_avx512.hpp), in one pass over
// each value instead of three (one per step): c[r][j] + bias[r], one rounded addition;
// + residual[r][j], one rounded addition (IEEE addition is commutative, so the Add node's operand
// order gives the same value); then the activation as the element-wise kernel computes it, NaN
// stored as 0x7FC00000. Every NaN ends canonical in both modes, as the element-wise kernel stores
// it whatever the steps before left, so the bits are the three steps' in either mode. Requires an
// AVX-512 machine and activation_fuses_in_store(&activation).
void conv_bias_residual_activation_rows__avx512(float* c, std::ptrdiff_t ldc, const float* bias,
                                                const float* residual, std::size_t plane, std::size_t rows,
                                                std::size_t cols, const ConvActivation& activation);

// The same two on eight lanes, the same steps on every value, so the same bits. Require an AVX2
// machine (and, for the second, activation_fuses_in_store(&activation)).
void conv_bias_rows__avx2(float* c, std::ptrdiff_t ldc, const float* bias, std::size_t rows, std::size_t cols,
                          bool exact);
void conv_bias_residual_activation_rows__avx2(float* c, std::ptrdiff_t ldc, const float* bias, const float* residual,
                                              std::size_t plane, std::size_t rows, std::size_t cols,
                                              const ConvActivation& activation);
#endif

}  // namespace onemodel::opt
