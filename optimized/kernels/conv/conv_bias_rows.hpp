// The bias step of the convolution epilogue (conv_bias_epilogue.hpp) on the AVX-512 path: rows of
// C, one bias value per row, each output one rounded addition (spec/ops/products-conv.md section 6)
// and, in exact mode, the canonical NaN (exact-mode.md rule 4): the generic loop's bits. The
// epilogue is compiled without vector flags, and its plain loop moved four floats per instruction.
#pragma once

#include <cstddef>

namespace onemodel::opt {

#if defined(__x86_64__)
// Rows [0, rows) of c (row stride ldc), `cols` values each: c[r][j] = c[r][j] + bias[r]. Requires
// an AVX-512 machine.
void conv_bias_rows__avx512(float* c, std::ptrdiff_t ldc, const float* bias, std::size_t rows, std::size_t cols,
                            bool exact);
#endif

}  // namespace onemodel::opt
