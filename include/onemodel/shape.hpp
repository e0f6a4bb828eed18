// Logical shapes and their limits. spec/tensors.md section 3: rank 0..8, non-negative 32-bit
// extents, element count and every prefix product at most 2^31-1, checked in 64-bit arithmetic
// before anything is allocated.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <span>
#include <string>

#include "onemodel/dtype.hpp"

// The shared library exports what this header declares and nothing else (CMakeLists.txt:
// the library is compiled with -fvisibility=hidden; docs/design.md "Installed package").
#pragma GCC visibility push(default)

namespace onemodel {

inline constexpr int kMaxRank = 8;
inline constexpr std::int64_t kMaxElements = 2147483647;   // 2^31 - 1
inline constexpr std::int64_t kMaxBufferBytes = 2147483647;  // 2^31 - 1

// Strides count elements, not bytes (spec/tensors.md section 3). Entries past the rank are 0.
using Strides = std::array<std::int32_t, kMaxRank>;

class Shape {
 public:
  // Rank 0: a scalar with one element.
  Shape() noexcept = default;

  // Throw TensorError(Shape) when the rank exceeds 8, an extent is negative or above 2^31-1, or a
  // prefix product exceeds 2^31-1 (so [100000, 100000, 0] is rejected).
  Shape(std::initializer_list<std::int64_t> extents);
  explicit Shape(std::span<const std::int64_t> extents);
  explicit Shape(std::span<const std::int32_t> extents);

  int rank() const noexcept { return rank_; }
  // `axis` in [0, rank); unchecked.
  std::int32_t operator[](int axis) const noexcept { return extents_[static_cast<std::size_t>(axis)]; }
  // Checked: throws TensorError(View) for an axis outside [0, rank).
  std::int32_t extent(int axis) const;
  std::span<const std::int32_t> extents() const noexcept {
    return {extents_.data(), static_cast<std::size_t>(rank_)};
  }
  std::int64_t element_count() const noexcept { return count_; }
  bool empty() const noexcept { return count_ == 0; }

  // "[2, 3, 4]"; "[]" for a scalar.
  std::string to_string() const;

  friend bool operator==(const Shape& a, const Shape& b) noexcept {
    if (a.rank_ != b.rank_) return false;
    for (int i = 0; i < a.rank_; ++i) {
      if (a.extents_[static_cast<std::size_t>(i)] != b.extents_[static_cast<std::size_t>(i)]) return false;
    }
    return true;
  }

  // numpy's multidirectional broadcasting (spec/tensors.md section 3): right-align, each pair of
  // extents equal or one of them 1; the result must satisfy the limits. Throws TensorError(Shape).
  static Shape broadcast(const Shape& a, const Shape& b);

 private:
  void assign(const std::int64_t* extents, std::size_t rank);

  std::array<std::int32_t, kMaxRank> extents_{};
  int rank_ = 0;
  std::int64_t count_ = 1;
};

// Row-major strides: stride[d] is the product of the extents right of d. spec/tensors.md
// section 3 (this project's rule for empty shapes): a product that does not fit 32 bits can only
// occur in an empty shape, where no element is reachable, and is stored as 0.
Strides contiguous_strides(const Shape& shape) noexcept;

// Throws TensorError(Shape) unless element_count * dtype_size(type) <= 2^31-1.
std::int64_t checked_byte_size(const Shape& shape, DType type);
// The memory a tensor of this shape occupies: checked_byte_size, except that a STRING element
// counts as one std::string object (its characters live on the heap and are not counted;
// spec/tensors.md section 8). Used to charge runs and size buffers, never to copy bytes.
std::int64_t checked_storage_bytes(const Shape& shape, DType type);

}  // namespace onemodel

#pragma GCC visibility pop
