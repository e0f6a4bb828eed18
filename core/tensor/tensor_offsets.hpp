// The view validity rule of spec/tensors.md section 3, shared by view construction and validate().
#pragma once

#include <array>
#include <cstdint>
#include <string>

#include "onemodel/dtype.hpp"

#include "onemodel/shape.hpp"

namespace onemodel::detail {

// For a non-empty shape: lowest reachable offset (offset + sum over negative strides of
// (extent-1)*stride) >= 0 and highest (offset + sum over positive strides) < limit. Computed with
// overflow checks; an overflow means out of bounds. Empty shapes are always in bounds.
// The distance in bytes between neighbouring elements of a buffer: dtype_size, or one std::string
// object for STRING (spec/tensors.md section 8). Only the tensor's own addressing uses it.
inline std::size_t element_stride_bytes(DType type) {
  return type == DType::String ? sizeof(std::string) : dtype_size(type);
}

bool view_in_bounds(const Shape& shape, const std::array<std::int64_t, kMaxRank>& strides, std::int64_t offset,
                    std::int64_t limit) noexcept;

}  // namespace onemodel::detail
