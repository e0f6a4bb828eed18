// Row-major copy of a strided view (Slice's result, spec/ops/shape-indexing.md section 3) into a
// contiguous destination: axes of extent 1 dropped, neighbouring axes that are one run merged, an
// inner run of stride 1 copied with memcpy, other inner strides by a loop typed on the element
// width. Only bytes move, so the result is Tensor::copy_to's (the reference) on every path, in
// both modes, at any thread count.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "optimized/frame/kernel_context.hpp"

namespace onemodel::opt::datamove {

// origin: the address of element (0, ..., 0); strides in elements (any sign); extents and strides
// of equal length. False (nothing written) for more than kMaxAxes axes. The caller guarantees every reachable
// element lies in the source (the view was checked when made) and dst holds the product of the
// extents times esize bytes, not overlapping the source.
inline constexpr int kMaxAxes = 8;  // onemodel/shape.hpp kMaxRank

[[nodiscard]] bool copy_view(const KernelContext& context, std::size_t esize, const std::byte* origin,
               std::span<const std::int64_t> extents, std::span<const std::int64_t> strides, std::byte* dst);

}  // namespace onemodel::opt::datamove
