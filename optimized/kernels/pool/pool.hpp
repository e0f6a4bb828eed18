// Float32 pooling kernels of the optimized engine (spec/ops/products-conv.md section 8, from
// ops-conv.md "Pooling"), reading the input in place:
//  - pool_2d_f32: MaxPool and AveragePool over the last two axes of [planes, H, W]; every output
//    is the reference kernel's bits (reference/ops/op_max_pool.cpp, op_average_pool.cpp): taps
//    inside the input only, in (h, w) order; max by "strictly greater replaces", NaN ignored unless
//    every inside tap is NaN, lowest finite for a window with no inside tap; average as the sum
//    from +0 in tap order divided by the section 8.3 divisor, NaN canonical;
//  - global_pool_f32: GlobalAveragePool and GlobalMaxPool (section 8.4) on contiguous planes.
// These orders do not depend on the mode, so fast and exact mode give the same bits. Work is cut
// into chunks of whole planes whose size depends on the shape only, so thread count and path
// cannot change a result.
#pragma once

#include <cstddef>
#include <cstdint>

#include "optimized/frame/kernel_context.hpp"

namespace onemodel::opt::pool {

enum class PoolKind { Max, Average };

// One spatial axis as reference/ops/conv_geometry.hpp resolves it (pads already resolved from
// auto_pad; `out` includes any ceil_mode overhang).
struct PoolAxis {
  std::int64_t in = 1, out = 1, kernel = 1, stride = 1, dilation = 1, pad_before = 0, pad_after = 0;
};

struct Pool2dShape {
  std::int64_t planes = 0;  // N * C
  PoolAxis h, w;
  bool count_include_pad = false;  // AveragePool only
};

// x: planes * h.in * w.in floats, y: planes * h.out * w.out floats.
void pool_2d_f32(const KernelContext& context, PoolKind kind, const Pool2dShape& shape, const float* x, float* y);

// y[p] for p < planes: the reduction of x[p * size, (p + 1) * size).
void global_pool_f32(const KernelContext& context, PoolKind kind, const float* x, float* y, std::size_t planes,
                     std::size_t size);

}  // namespace onemodel::opt::pool
