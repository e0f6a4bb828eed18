// The global pools' vector loops on the AVX-512 path (global_pool_avx512.cpp) and the AVX2 path
// (global_pool_avx2.cpp): planes [begin, end) of `size` floats each, y[p] their average (max
// false) or maximum (true), the bits of pool.cpp's scalar loop (spec/ops/products-conv.md section
// 8.4). x86-64 with AVX-512, respectively AVX2, only.
#pragma once

#include <cstddef>

namespace onemodel::opt::pool {

// Planes the AVX-512 loop folds at once, one per lane: pool.cpp chunks planes in whole sixteens.
inline constexpr std::size_t kGlobalLanes = 16;

void global_planes__avx512(bool max, const float* x, float* y, std::size_t begin, std::size_t end,
                           std::size_t size) noexcept;

// Planes folded at once on every path but AVX-512: the AVX2 loop's lanes and the scalar loop's
// independent chains (pool.cpp global_planes), so its chunks are whole groups of them.
inline constexpr std::size_t kGlobalGroup = 8;

void global_planes__avx2(bool max, const float* x, float* y, std::size_t begin, std::size_t end,
                         std::size_t size) noexcept;

}  // namespace onemodel::opt::pool
