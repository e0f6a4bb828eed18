// Raw byte access to contiguous tensors, for kernels that move elements of any type (Reshape,
// Concat, Gather, ...) and for copying results. Checks liveness and contiguity.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "onemodel/tensor.hpp"

namespace onemodel {

// The element bytes of a contiguous tensor, row-major. Throws TensorError otherwise.
std::span<const std::byte> tensor_bytes(const Tensor& tensor);
// The same, writable; bumps the buffer's version (spec/tensors.md section 7).
std::span<std::byte> mutable_tensor_bytes(const Tensor& tensor);

// The elements of any tensor (any layout, any type) as one byte string, row-major, for hashing,
// comparing and saving: the element bytes for every stored type; for STRING, whose elements are
// not bytes (spec/tensors.md section 8), each element as its byte length (8 bytes, little-endian)
// followed by its bytes, so two string tensors give the same bytes only when every element is equal.
std::vector<std::byte> canonical_bytes(const Tensor& tensor);
// The inverse for STRING: the elements of `bytes` made by canonical_bytes. Throws TensorError
// (Shape) when the bytes do not hold exactly `count` length-prefixed elements.
std::vector<std::string> strings_from_canonical(std::span<const std::byte> bytes, std::int64_t count);

}  // namespace onemodel
