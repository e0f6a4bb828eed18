// The tensor value. spec/tensors.md section 1: a tensor is a value holding a buffer reference, the
// buffer generation it was made in, an element type, a logical shape, strides (in elements) and an
// offset. Views (spec/tensors.md section 4) make new values over the same buffer; nothing is
// copied unless asked (contiguous(), reshape's fallback).
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "onemodel/buffer.hpp"
#include "onemodel/dtype.hpp"
#include "onemodel/shape.hpp"
#include "onemodel/tensor_error.hpp"

// The shared library exports what this header declares and nothing else (CMakeLists.txt:
// the library is compiled with -fvisibility=hidden; docs/design.md "Installed package").
#pragma GCC visibility push(default)

namespace onemodel {

// Which C++ type reads the storage of a DType. 16-bit floats are read as their raw bits
// (uint16_t; conversions in onemodel/half.hpp), 8-bit floats as their byte (uint8_t; conversions
// in onemodel/float8.hpp); Bool is read as bool or as its byte (uint8_t); String as std::string
// (spec/tensors.md section 8).
template <class T>
constexpr bool storage_matches(DType type) noexcept {
  if constexpr (std::is_same_v<T, std::string>) return type == DType::String;
  else if constexpr (std::is_same_v<T, float>) return type == DType::F32;
  else if constexpr (std::is_same_v<T, double>) return type == DType::F64;
  else if constexpr (std::is_same_v<T, bool>) return type == DType::Bool;
  // The sub-byte types hold one element per byte (spec/tensors.md section 2.2).
  else if constexpr (std::is_same_v<T, std::uint8_t>)
    return type == DType::U8 || type == DType::Bool || dtype_is_float8(type) ||  // 8-bit floats: raw bits
           type == DType::U4 || type == DType::U2 || type == DType::F4E2M1;
  else if constexpr (std::is_same_v<T, std::int8_t>) return type == DType::I8 || type == DType::I4 || type == DType::I2;
  else if constexpr (std::is_same_v<T, std::uint16_t>)
    return type == DType::U16 || type == DType::F16 || type == DType::BF16;
  else if constexpr (std::is_same_v<T, std::int16_t>) return type == DType::I16;
  else if constexpr (std::is_same_v<T, std::int32_t>) return type == DType::I32;
  else if constexpr (std::is_same_v<T, std::uint32_t>) return type == DType::U32;
  else if constexpr (std::is_same_v<T, std::int64_t>) return type == DType::I64;
  else if constexpr (std::is_same_v<T, std::uint64_t>) return type == DType::U64;
  else return false;
}

template <class T>
constexpr const char* storage_type_name() noexcept {
  if constexpr (std::is_same_v<T, std::string>) return "std::string";
  else if constexpr (std::is_same_v<T, float>) return "float";
  else if constexpr (std::is_same_v<T, double>) return "double";
  else if constexpr (std::is_same_v<T, bool>) return "bool";
  else if constexpr (std::is_same_v<T, std::uint8_t>) return "uint8_t";
  else if constexpr (std::is_same_v<T, std::int8_t>) return "int8_t";
  else if constexpr (std::is_same_v<T, std::uint16_t>) return "uint16_t";
  else if constexpr (std::is_same_v<T, std::int16_t>) return "int16_t";
  else if constexpr (std::is_same_v<T, std::int32_t>) return "int32_t";
  else if constexpr (std::is_same_v<T, std::uint32_t>) return "uint32_t";
  else if constexpr (std::is_same_v<T, std::int64_t>) return "int64_t";
  else if constexpr (std::is_same_v<T, std::uint64_t>) return "uint64_t";
  else return "unsupported";
}

class Tensor {
 public:
  // An undefined tensor: no buffer; every access throws TensorError(Stale).
  Tensor() = default;

  // A tensor owning a fresh pooled buffer with contiguous strides. The byte size is checked
  // (spec/tensors.md section 3) before anything is allocated. Contents are unspecified (0xFF in
  // Checked builds) for empty(), zero for zeros().
  static Tensor empty(DType type, const Shape& shape, BufferPool& pool = BufferPool::shared());
  static Tensor zeros(DType type, const Shape& shape, BufferPool& pool = BufferPool::shared());
  // A tensor owning a fresh buffer holding a copy of `bytes` (little-endian, row-major), whose
  // size must be the shape's byte size.
  static Tensor from_bytes(DType type, const Shape& shape, std::span<const std::byte> bytes,
                           BufferPool& pool = BufferPool::shared());
  template <class T>
  static Tensor from_values(DType type, const Shape& shape, std::span<const T> values,
                            BufferPool& pool = BufferPool::shared());
  // A STRING tensor holding copies of `values` in row-major order (spec/tensors.md section 8);
  // values.size() must be the shape's element count.
  static Tensor from_strings(const Shape& shape, std::span<const std::string> values);
  template <class T>
  static Tensor from_values(DType type, const Shape& shape, std::initializer_list<T> values) {
    return from_values<T>(type, shape, std::span<const T>(values.begin(), values.size()));
  }
  // A contiguous tensor over bytes [byte_offset, byte_offset + byte_length) of `buffer`, which it
  // does not own (release() throws; the owner returns the buffer). Used by the arena.
  // Throws TensorError(Type) for STRING: raw memory never holds strings (spec/tensors.md section 8).
  static Tensor over(std::shared_ptr<Buffer> buffer, std::size_t byte_offset, std::size_t byte_length,
                     DType type, const Shape& shape);
  // A contiguous STRING tensor owning all of `buffer`, a Buffer::for_strings() of at least the
  // shape's element count.
  static Tensor over_strings(std::shared_ptr<Buffer> buffer, const Shape& shape);

  bool defined() const noexcept { return buffer_ != nullptr; }
  DType dtype() const noexcept { return dtype_; }
  const Shape& shape() const noexcept { return shape_; }
  int rank() const noexcept { return shape_.rank(); }
  std::int64_t element_count() const noexcept { return shape_.element_count(); }
  const Strides& strides() const noexcept { return strides_; }
  std::span<const std::int32_t> stride_span() const noexcept {
    return {strides_.data(), static_cast<std::size_t>(shape_.rank())};
  }
  // Offset of element (0, ..., 0), in elements from byte_offset().
  std::int64_t offset() const noexcept { return offset_; }
  const std::shared_ptr<Buffer>& buffer() const noexcept { return buffer_; }
  // Where this tensor's allocation starts in the buffer, and how many elements it holds: the
  // element count that views are checked against (spec/tensors.md section 3).
  std::size_t byte_offset() const noexcept { return base_; }
  std::int64_t capacity_elements() const noexcept { return limit_; }
  std::uint64_t generation() const noexcept { return generation_; }
  bool owns_buffer() const noexcept { return owns_; }
  // True when the buffer was returned or its arena reset since this tensor was made.
  bool is_stale() const noexcept;
  // spec/tensors.md section 3: every dimension of extent != 1 has the stride equal to the product
  // of the extents to its right; empty tensors are contiguous.
  bool is_contiguous() const noexcept;

  // Views, spec/tensors.md section 4. Axes are 0-based and non-negative. Each checks that the
  // result reaches only offsets inside the allocation (TensorError(View) otherwise).
  Tensor permute(std::span<const int> order) const;
  Tensor permute(std::initializer_list<int> order) const {
    return permute(std::span<const int>(order.begin(), order.size()));
  }
  Tensor transpose(int a, int b) const;
  // Swaps the last two dimensions (rank >= 2).
  Tensor t() const;
  Tensor slice(int axis, std::int64_t start, std::int64_t end, std::int64_t step = 1) const;
  Tensor select(int axis, std::int64_t index) const;
  Tensor flip(int axis) const;
  Tensor unsqueeze(int axis) const;
  Tensor squeeze(int axis) const;
  Tensor squeeze() const;
  Tensor expand(const Shape& target) const;
  // A view with the new shape when the strides allow it (spec/tensors.md section 4, reshape
  // viewability), else nullopt. Throws TensorError(Shape) when the element counts differ.
  std::optional<Tensor> try_reshape(const Shape& target) const;
  // try_reshape, else contiguous() then a view. One extent may be -1 (inferred).
  Tensor reshape(std::span<const std::int64_t> extents, BufferPool& pool = BufferPool::shared()) const;
  Tensor reshape(std::initializer_list<std::int64_t> extents) const {
    return reshape(std::span<const std::int64_t>(extents.begin(), extents.size()));
  }

  // The tensor itself when contiguous, else a row-major copy in a fresh buffer.
  Tensor contiguous(BufferPool& pool = BufferPool::shared()) const;
  // The elements in row-major order into `out` (element_count() * element size bytes). Throws
  // TensorError(Type) for STRING tensors, whose elements are not bytes.
  void copy_to(std::span<std::byte> out) const;
  // The elements in row-major order into `destination`: contiguous, of the same type and element
  // count. Works for every type (strings are assigned, others copied as bytes).
  void copy_elements_to(const Tensor& destination) const;

  // Throws TensorError(View) when an invariant is broken (DESIGN.md section 3, item 10): limits
  // of the shape, strides past the rank, allocation inside the buffer and aligned, reachable
  // offsets inside the allocation, generation not ahead of the buffer's.
  void validate() const;

  // Typed element access: checks the type (TensorError(Type)), the generation (TensorError(Stale))
  // and the index (TensorError(Index)).
  template <class T>
  T at(std::span<const std::int64_t> index) const;
  template <class T>
  T at(std::initializer_list<std::int64_t> index) const {
    return at<T>(std::span<const std::int64_t>(index.begin(), index.size()));
  }
  // spec/tensors.md section 7 hook: a tracked write increases the buffer's version.
  template <class T>
  void set(std::span<const std::int64_t> index, T value) const;
  template <class T>
  void set(std::initializer_list<std::int64_t> index, T value) const {
    set<T>(std::span<const std::int64_t>(index.begin(), index.size()), value);
  }
  // The elements of a contiguous tensor (TensorError(View) otherwise).
  template <class T>
  std::span<const T> data() const;
  template <class T>
  std::span<T> mutable_data() const;
  // All elements in row-major order, for any strides.
  template <class T>
  std::vector<T> to_vector() const;

  // Returns the buffer to its pool (spec/tensors.md section 6, Dispose): every view and copy of
  // the handle becomes stale. Throws TensorError(Stale) when already stale (releasing twice) and
  // TensorError(Pool) when the tensor does not own its buffer (arena tensors).
  void release() const;

  // Throws TensorError(Stale) unless defined and not stale.
  void check_live() const;

 private:
  Tensor(std::shared_ptr<Buffer> buffer, std::size_t base, std::int64_t limit, std::uint64_t generation,
         bool owns, DType type, Shape shape, Strides strides, std::int64_t offset) noexcept;
  // Makes a view of this tensor's allocation, checking the reachable offsets and narrowing the
  // 64-bit strides to 32 bits (spec/tensors.md section 4).
  Tensor make_view(const Shape& shape, const std::array<std::int64_t, kMaxRank>& strides,
                   std::int64_t offset) const;
  template <class T>
  void check_type() const;
  // Address of an element after the live, index and type checks.
  std::byte* element_address(std::span<const std::int64_t> index) const;
  std::byte* origin() const noexcept;

  std::shared_ptr<Buffer> buffer_;
  std::size_t base_ = 0;
  std::int64_t limit_ = 0;
  std::uint64_t generation_ = 0;
  bool owns_ = false;
  DType dtype_ = DType::F32;
  Shape shape_;
  Strides strides_{};
  std::int64_t offset_ = 0;
};

// ---- template definitions ----

[[noreturn]] void throw_type_mismatch(DType have, const char* requested);

template <class T>
void Tensor::check_type() const {
  static_assert(storage_matches<T>(DType::F32) || storage_matches<T>(DType::F64) ||
                    storage_matches<T>(DType::Bool) || storage_matches<T>(DType::U8) ||
                    storage_matches<T>(DType::I8) || storage_matches<T>(DType::U16) ||
                    storage_matches<T>(DType::I16) || storage_matches<T>(DType::I32) ||
                    storage_matches<T>(DType::U32) || storage_matches<T>(DType::I64) ||
                    storage_matches<T>(DType::U64) || storage_matches<T>(DType::String),
                "no element type is stored as T");
  if (!storage_matches<T>(dtype_)) throw_type_mismatch(dtype_, storage_type_name<T>());
}

template <class T>
T Tensor::at(std::span<const std::int64_t> index) const {
  check_type<T>();
  const std::byte* p = element_address(index);
  if constexpr (std::is_same_v<T, std::string>) {
    return *reinterpret_cast<const std::string*>(p);
  } else if constexpr (std::is_same_v<T, bool>) {
    std::uint8_t byte = 0;
    std::memcpy(&byte, p, 1);
    return byte != 0;
  } else {
    T value;
    std::memcpy(&value, p, sizeof(T));
    return value;
  }
}

template <class T>
void Tensor::set(std::span<const std::int64_t> index, T value) const {
  check_type<T>();
  std::byte* p = element_address(index);
  if constexpr (std::is_same_v<T, std::string>) {
    *reinterpret_cast<std::string*>(p) = std::move(value);
  } else if constexpr (std::is_same_v<T, bool>) {
    const std::uint8_t byte = value ? 1 : 0;
    std::memcpy(p, &byte, 1);
  } else {
    std::memcpy(p, &value, sizeof(T));
  }
  buffer_->bump_version();
}

template <class T>
std::span<const T> Tensor::data() const {
  static_assert(!std::is_same_v<T, bool>, "read Bool storage as uint8_t");
  check_type<T>();
  check_live();
  if (!is_contiguous()) throw TensorError(TensorErrorKind::View, "data() of a non-contiguous tensor");
  return {reinterpret_cast<const T*>(origin()), static_cast<std::size_t>(element_count())};
}

template <class T>
std::span<T> Tensor::mutable_data() const {
  static_assert(!std::is_same_v<T, bool>, "write Bool storage as uint8_t");
  check_type<T>();
  check_live();
  if (!is_contiguous()) throw TensorError(TensorErrorKind::View, "mutable_data() of a non-contiguous tensor");
  buffer_->bump_version();
  return {reinterpret_cast<T*>(origin()), static_cast<std::size_t>(element_count())};
}

template <class T>
std::vector<T> Tensor::to_vector() const {
  check_type<T>();
  if constexpr (std::is_same_v<T, std::string>) {
    Tensor row_major = contiguous();
    std::span<const std::string> values = row_major.data<std::string>();
    return std::vector<std::string>(values.begin(), values.end());
  } else if constexpr (std::is_same_v<T, bool>) {
    const std::size_t n = static_cast<std::size_t>(element_count());
    std::vector<std::uint8_t> bytes(n);
    copy_to(std::as_writable_bytes(std::span<std::uint8_t>(bytes)));
    std::vector<T> result(n);
    for (std::size_t i = 0; i < n; ++i) result[i] = bytes[i] != 0;
    return result;
  } else {
    std::vector<T> out(static_cast<std::size_t>(element_count()));
    copy_to(std::as_writable_bytes(std::span<T>(out)));
    return out;
  }
}

template <class T>
Tensor Tensor::from_values(DType type, const Shape& shape, std::span<const T> values, BufferPool& pool) {
  static_assert(!std::is_same_v<T, bool>, "give Bool values as uint8_t");
  if (!storage_matches<T>(type)) throw_type_mismatch(type, storage_type_name<T>());
  if constexpr (std::is_same_v<T, std::string>) {
    (void)pool;  // string buffers are never pooled (spec/tensors.md section 8)
    return from_strings(shape, values);
  } else {
    return from_bytes(type, shape, std::as_bytes(values), pool);
  }
}

}  // namespace onemodel

#pragma GCC visibility pop
