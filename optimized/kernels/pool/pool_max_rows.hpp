// MaxPool with 3-wide windows at width stride 1 or 2 on the AVX-512 and AVX2 paths, in two passes
// over each plane (spec/ops/products-conv.md section 8.2): the maximum of every input row over each
// output column's three window columns, sixteen (AVX2: eight) output columns a vector, then for
// every output the maximum of those row maxima down its window rows; one loop over the path's lanes
// (pool_max_rows_body.hpp). The direct kernel (pool_max_direct.hpp) folds all nine taps of a 3x3
// window per output; here each input row's maxima are made once and serve every output row whose
// window holds the row (two at height stride 2, three at stride 1), and at width stride 2 one pair
// of loads and a few permutes give all three window columns.
//
// The bits are the one-pass fold's. A fold by "strictly greater replaces" with NaN taps skipped
// ends on the first tap, in (h, w) order, that holds the window's maximum. Folding each row's taps
// in w order gives that row's first maximal tap; folding the rows' results in h order keeps the
// first row whose result is the maximum, and inside it its first maximal tap: the same tap, so the
// same value, sign of zero included. Taps outside the input are -inf in masked-off lanes (never
// read), rows outside it are skipped, and an output left at -inf goes to the literal rule
// (pool_literal.hpp), as in the direct kernel.
#pragma once

#include <cstdint>

#include "optimized/kernels/pool/pool.hpp"

namespace onemodel::opt::pool {

// Whether max_planes_rows__avx512 and __avx2 take this shape: 3-wide windows of width stride 1 or
// 2, no dilation, left padding at most 2, windows at most 64 rows tall, positive sizes far below
// the 32-bit range, and row maxima of one plane (h.in rows of the output width rounded up to 16) of
// at most 2^22 floats. pool_2d_f32 asks before the direct kernel on the AVX-512 and AVX2 paths.
bool rows_max_takes(const Pool2dShape& s) noexcept;

#if defined(__x86_64__)
// `planes` consecutive planes: x holds planes * h.in * w.in floats, y planes * h.out * w.out.
// Requires rows_max_takes, and a machine with the path's instructions.
void max_planes_rows__avx512(const Pool2dShape& s, const float* x, float* y, std::int64_t planes);
void max_planes_rows__avx2(const Pool2dShape& s, const float* x, float* y, std::int64_t planes);
#endif

}  // namespace onemodel::opt::pool
