// Raw byte access to contiguous tensors, for kernels that move elements of any type (Reshape,
// Concat, Gather, ...) and for copying results. Checks liveness and contiguity.
#pragma once

#include <cstddef>
#include <span>

#include "onemodel/tensor.hpp"

namespace onemodel {

// The element bytes of a contiguous tensor, row-major. Throws TensorError otherwise.
std::span<const std::byte> tensor_bytes(const Tensor& tensor);
// The same, writable; bumps the buffer's version (spec/tensors.md section 7).
std::span<std::byte> mutable_tensor_bytes(const Tensor& tensor);

}  // namespace onemodel
