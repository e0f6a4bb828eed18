// MaxPool straight from the input with masked vector loads (spec/ops/products-conv.md section 8.2):
// 16 (AVX2: 8) output columns per register, each output folded from -inf over its taps in (h, w)
// order, one max per tap; a tap outside the input is a masked-off lane that reads nothing and stays
// -inf, which never replaces anything, so border columns run in the same vector loop as the rest.
// Four output rows at a time keep independent max chains in flight. An output left at -inf goes
// to the literal rule (pool_literal.hpp). The bits are the one-pass fold's on every path. One loop
// over the path's lanes (pool_max_direct_body.hpp); x86-64 only, pool_2d_f32 calls it on the
// AVX-512 and AVX2 paths.
#pragma once

#include <cstdint>

#include "optimized/kernels/pool/pool.hpp"

namespace onemodel::opt::pool {

// Whether max_planes_direct__avx512 and __avx2 take this shape (positive sizes, non-negative pads,
// a window of at most 64 columns); pool_2d_f32 otherwise keeps its other loops.
bool direct_max_takes(const Pool2dShape& s) noexcept;

#if defined(__x86_64__)
// `planes` consecutive planes: x holds planes * h.in * w.in floats, y planes * h.out * w.out.
// Requires direct_max_takes, and a machine with the path's instructions.
void max_planes_direct__avx512(const Pool2dShape& s, const float* x, float* y, std::int64_t planes) noexcept;
void max_planes_direct__avx2(const Pool2dShape& s, const float* x, float* y, std::int64_t planes) noexcept;
#endif

}  // namespace onemodel::opt::pool
