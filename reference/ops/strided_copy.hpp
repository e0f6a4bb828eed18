// Type-generic element movement for the shape and indexing operators (spec/ops/shape-indexing.md
// section 1, Types: an operator that only moves elements moves bytes, so one loop serves every
// stored element type of that width).
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "core/graph/tensor_bytes.hpp"
#include "onemodel/tensor.hpp"

namespace onemodel::shape_ops {

// Writes the elements of `view` (any strides) row-major into the contiguous `out`. STRING
// elements are assigned, never copied as bytes (spec/tensors.md section 8).
inline void copy_view_into(const Tensor& view, const Tensor& out) {
  if (view.dtype() != DType::String) return view.copy_to(mutable_tensor_bytes(out));
  std::vector<std::string> values = view.to_vector<std::string>();
  const std::span<std::string> to = out.mutable_data<std::string>();
  for (std::size_t i = 0; i < values.size(); ++i) to[i] = std::move(values[i]);
}

// The elements of a contiguous tensor for the element-moving loops below: bytes of one width for
// every stored type, std::string objects for STRING (spec/tensors.md section 8), so one loop
// serves every element type an operator that only moves elements accepts.
struct SourceElements {
  explicit SourceElements(const Tensor& t)
      : strings(t.dtype() == DType::String ? t.data<std::string>() : std::span<const std::string>()),
        bytes(t.dtype() == DType::String ? std::span<const std::byte>() : tensor_bytes(t)),
        size(t.dtype() == DType::String ? 0 : dtype_size(t.dtype())) {}
  std::span<const std::string> strings;
  std::span<const std::byte> bytes;
  std::size_t size;
};
struct TargetElements {
  explicit TargetElements(const Tensor& t)
      : strings(t.dtype() == DType::String ? t.mutable_data<std::string>() : std::span<std::string>()),
        bytes(t.dtype() == DType::String ? std::span<std::byte>() : mutable_tensor_bytes(t)),
        size(t.dtype() == DType::String ? 0 : dtype_size(t.dtype())) {}
  std::span<std::string> strings;
  std::span<std::byte> bytes;
  std::size_t size;
};

// Copies element `from` of `src` to element `to` of `dst` (both flat row-major indices).
inline void move_element(std::span<std::byte> dst, std::int64_t to, std::span<const std::byte> src,
                         std::int64_t from, std::size_t element_size) {
  std::memcpy(dst.data() + static_cast<std::size_t>(to) * element_size,
              src.data() + static_cast<std::size_t>(from) * element_size, element_size);
}

// The same for any element type (the tensors' types are equal; checked by the operator's infer).
inline void move_element(const TargetElements& dst, std::int64_t to, const SourceElements& src, std::int64_t from) {
  if (dst.size == 0) {
    dst.strings[static_cast<std::size_t>(to)] = src.strings[static_cast<std::size_t>(from)];
    return;
  }
  move_element(dst.bytes, to, src.bytes, from, dst.size);
}

// Copies `count` consecutive elements from element `from` of `src` to element `to` of `dst`: one
// memcpy for stored types, assignments for STRING (spec/tensors.md section 8).
inline void move_elements(const TargetElements& dst, std::int64_t to, const SourceElements& src, std::int64_t from,
                          std::int64_t count) {
  if (count <= 0) return;
  if (dst.size == 0) {
    std::copy_n(src.strings.begin() + static_cast<std::ptrdiff_t>(from), static_cast<std::ptrdiff_t>(count),
                dst.strings.begin() + static_cast<std::ptrdiff_t>(to));
    return;
  }
  std::memcpy(dst.bytes.data() + static_cast<std::size_t>(to) * dst.size,
              src.bytes.data() + static_cast<std::size_t>(from) * dst.size, static_cast<std::size_t>(count) * dst.size);
}

// Row-major strides in elements, 64-bit.
inline std::vector<std::int64_t> row_major_strides(const Shape& shape) {
  std::vector<std::int64_t> strides(static_cast<std::size_t>(shape.rank()), 1);
  for (int d = shape.rank() - 2; d >= 0; --d) {
    strides[static_cast<std::size_t>(d)] = strides[static_cast<std::size_t>(d) + 1] * shape[d + 1];
  }
  return strides;
}

// Calls fn(index, flat) for every element of `shape` in row-major order; `index` holds rank
// coordinates.
template <class Fn>
void for_each_index(const Shape& shape, Fn&& fn) {
  const std::int64_t count = shape.element_count();
  if (count == 0) return;
  const int rank = shape.rank();
  std::array<std::int64_t, kMaxRank> index{};
  for (std::int64_t flat = 0; flat < count; ++flat) {
    fn(static_cast<const std::array<std::int64_t, kMaxRank>&>(index), flat);
    for (int d = rank - 1; d >= 0; --d) {
      if (++index[static_cast<std::size_t>(d)] < shape[d]) break;
      index[static_cast<std::size_t>(d)] = 0;
    }
  }
}

}  // namespace onemodel::shape_ops
