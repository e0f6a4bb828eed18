// Softmax and LogSoftmax over the rows of a contiguous rows x cols float32 array
// (kernels-attention.md "Softmax"; ops-norms.md "Softmax, LogSoftmax, Hardmax"). Exact mode gives
// the bits of reference/ops/op_softmax.cpp and op_log_softmax.cpp on every path and thread count;
// fast mode uses the fast exponential and multiplies by 1/l. Rows are processed in chunks of
// max(1, 16384 / cols) rows; a row is never split.
#pragma once

#include <cstddef>

#include "optimized/frame/kernel_context.hpp"

namespace onemodel::opt {

void softmax_rows_f32(const KernelContext& context, const float* x, float* y, std::size_t rows, std::size_t cols);

// `log_fn` is the library's exact log (exact-transcendentals.md "log(x)"), called once per row.
void log_softmax_rows_f32(const KernelContext& context, const float* x, float* y, std::size_t rows,
                          std::size_t cols, float (*log_fn)(float));

}  // namespace onemodel::opt
