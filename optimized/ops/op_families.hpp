// One table per family of optimized operators (optimized/ops/table_<family>.cpp), joined by
// op_table.cpp. A family's table lists only the operators it overrides.
#pragma once

#include <span>

#include "optimized/ops/optimized_kernel.hpp"

namespace onemodel::opt {

std::span<const OptimizedOpDef> matmul_optimized_ops();       // MatMul, Gemm
std::span<const OptimizedOpDef> conv_optimized_ops();         // Conv, ConvTranspose (im2col, depthwise)
std::span<const OptimizedOpDef> attention_optimized_ops();    // Softmax, LogSoftmax, Attention
std::span<const OptimizedOpDef> norm_optimized_ops();         // LayerNormalization, BatchNormalization, reductions
std::span<const OptimizedOpDef> elementwise_optimized_ops();  // unary, binary, Transpose, copies
std::span<const OptimizedOpDef> pool_optimized_ops();         // MaxPool, AveragePool, global pools
std::span<const OptimizedOpDef> resize_optimized_ops();       // Resize
std::span<const OptimizedOpDef> shape_optimized_ops();        // Concat
std::span<const OptimizedOpDef> recurrent_optimized_ops();    // RNN, GRU, LSTM

}  // namespace onemodel::opt
