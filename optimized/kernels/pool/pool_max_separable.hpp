// MaxPool over [H, W] planes in two passes (spec/ops/products-conv.md section 8.2), the bits of
// the one-pass fold of pool.cpp. Internal to the pooling family: pool_2d_f32 chooses it.
#pragma once

#include <cstddef>
#include <cstdint>

#include "optimized/kernels/pool/pool.hpp"
#include "optimized/kernels/pool/pool_literal.hpp"
#include "optimized/kernels/pool/pool_row.hpp"

namespace onemodel::opt::pool {

// The floats of per-thread storage max_planes_separable needs for `planes` planes of this shape,
// or SIZE_MAX for a shape it does not take (non-positive sizes, negative pads, absurd extents).
std::size_t separable_storage_floats(const Pool2dShape& s, std::int64_t planes) noexcept;

// `planes` consecutive planes: x holds planes * h.in * w.in floats, y planes * h.out * w.out;
// `rows` has room for h.kernel pointers.
void max_planes_separable(PoolRowFn row, const Pool2dShape& s, const float* x, float* y, std::int64_t planes,
                          const float** rows);

}  // namespace onemodel::opt::pool
