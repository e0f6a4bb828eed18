// Concat of contiguous inputs of any element type (spec/ops/shape-indexing.md section 2, Concat):
// the output is `outer` rows, each the inputs' blocks side by side in input order (block = the
// input's extent on the axis times the inner extent, in bytes). Pure byte copies, so the result is
// the reference's (reference/ops/op_concat.cpp) whatever the path, mode or thread count.
#pragma once

#include <cstddef>

#include "optimized/frame/kernel_context.hpp"

namespace onemodel::opt::concat {

struct ConcatInput {
  const std::byte* data = nullptr;  // outer * block bytes
  std::size_t block = 0;            // bytes per output row
};

// dst: outer * (sum of blocks) bytes, not overlapping any input.
void concat_bytes(const KernelContext& context, const ConcatInput* inputs, std::size_t count, std::size_t outer,
                  std::byte* dst);

}  // namespace onemodel::opt::concat
