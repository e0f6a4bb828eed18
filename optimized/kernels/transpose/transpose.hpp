// Transpose and strided copy of any element type (spec/ops/shape-indexing.md section 2,
// Transpose: output axis i is input axis perm[i]). Only bytes move, so the result is the
// reference's in both modes on every path; the paths differ only in speed.
//
// After axes of extent 1 are dropped and axes that stay adjacent are merged, either the output's
// last axis is contiguous in the input (a strided copy of whole runs) or some other output axis p
// is: then the plane (p, last) is a 2-D transpose, walked in square tiles so both the reads and
// the writes stay within a few cache lines. Work is cut into fixed chunks (tiles or run groups),
// constants of the shape, so threads only decide who copies what.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "optimized/frame/kernel_context.hpp"

namespace onemodel::opt::tr {

inline constexpr int kMaxRank = 8;
// Elements per chunk of a run copy; side of a transpose tile.
inline constexpr std::size_t kCopyChunkElements = 16384;
inline constexpr std::size_t kTile = 64;
// Side of the register-transposed sub-tiles of 4-byte elements inside a tile.
inline constexpr std::size_t kSubTile = 16;

// out (contiguous, shape in_shape permuted) = in (contiguous, shape in_shape) with output axis i
// taken from input axis perm[i]. perm must be a permutation of [0, rank). in and out must not
// overlap. Returns false, copying nothing, for an element size other than 1, 2, 4, 8 bytes or a
// rank above kMaxRank (the caller then uses the reference).
bool transpose(const KernelContext& context, std::size_t element_size, const void* in,
               std::span<const std::int32_t> in_shape, std::span<const int> perm, void* out);

// dst (contiguous, row-major over `shape`) = the elements of a source view: element (i0, ..., ik)
// at src + sum(i_d * src_strides[d]) (strides in elements, any sign, 0 for a broadcast axis).
// Transpose is this with the input's strides permuted; expand and slice views are the same call.
// Same refusals as transpose().
bool strided_copy(const KernelContext& context, std::size_t element_size, const void* src,
                  std::span<const std::int32_t> shape, std::span<const std::int64_t> src_strides, void* dst);

}  // namespace onemodel::opt::tr
