// Float32 reductions with the orders of ops-norms.md, section "Reductions", on a geometry already
// merged to (outer kept) x (reduced) x (inner kept) with contiguous data:
//  - row layout (inner == 1): each of the `outer` outputs is the canonical 16-partial sum of its
//    `reduced` contiguous terms (or a sequential-scan extreme);
//  - column layout (inner > 1): each output is a sequential sum from +0 over the reduced index in
//    increasing order (or a sequential-scan extreme).
// Terms: x, x*x or |x|. Finishing (mean, sqrt, ...) is the caller's. Results are the same bits on
// every path and thread count: every output is computed whole by one chunk.
#pragma once

#include <cstddef>

#include "optimized/frame/kernel_context.hpp"

namespace onemodel::opt {

enum class ReduceKind { Sum, Max, Min };
enum class ReduceTerm { Identity, Square, Abs };

// out has outer * inner elements. A NaN result is stored as it comes (the caller canonicalises).
void reduce_f32(const KernelContext& context, ReduceKind kind, ReduceTerm term, const float* x, float* out,
                std::size_t outer, std::size_t reduced, std::size_t inner);

// The canonical 16-partial sum of n contiguous floats on one path (ops-norms.md).
float sum16_f32(Isa isa, const float* t, std::size_t n) noexcept;

}  // namespace onemodel::opt
