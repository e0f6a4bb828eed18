// Making tensors, element access, the invariant checker and release.
#include "onemodel/tensor.hpp"

#include <cstring>
#include <string>

#include "core/tensor/checked_math.hpp"
#include "core/tensor/tensor_offsets.hpp"

namespace onemodel {

void throw_type_mismatch(DType have, const char* requested) {
  throw TensorError(TensorErrorKind::Type, std::string("tensor of ") + std::string(dtype_name(have)) +
                                               " accessed as " + requested);
}

Tensor::Tensor(std::shared_ptr<Buffer> buffer, std::size_t base, std::int64_t limit, std::uint64_t generation,
               bool owns, DType type, Shape shape, Strides strides, std::int64_t offset) noexcept
    : buffer_(std::move(buffer)),
      base_(base),
      limit_(limit),
      generation_(generation),
      owns_(owns),
      dtype_(type),
      shape_(shape),
      strides_(strides),
      offset_(offset) {}

namespace {

// spec/tensors.md section 8: a STRING tensor's elements are empty strings when it is made.
Tensor make_string_tensor(const Shape& shape) {
  (void)checked_storage_bytes(shape, DType::String);
  return Tensor::over_strings(Buffer::for_strings(static_cast<std::size_t>(shape.element_count())), shape);
}

}  // namespace

Tensor Tensor::over_strings(std::shared_ptr<Buffer> buffer, const Shape& shape) {
  if (!buffer || buffer->released() || !buffer->holds_strings() ||
      buffer->length() / sizeof(std::string) < static_cast<std::uint64_t>(shape.element_count())) {
    throw TensorError(TensorErrorKind::View, "a STRING tensor " + shape.to_string() + " needs a live buffer of as many strings");
  }
  const std::uint64_t generation = buffer->generation();
  return Tensor(std::move(buffer), 0, shape.element_count(), generation, true, DType::String, shape,
                contiguous_strides(shape), 0);
}

Tensor Tensor::from_strings(const Shape& shape, std::span<const std::string> values) {
  if (static_cast<std::uint64_t>(shape.element_count()) != values.size()) {
    throw TensorError(TensorErrorKind::Shape, "shape " + shape.to_string() + " needs " +
                                                  std::to_string(shape.element_count()) + " strings, got " +
                                                  std::to_string(values.size()));
  }
  Tensor t = make_string_tensor(shape);
  std::span<std::string> out = t.mutable_data<std::string>();
  for (std::size_t i = 0; i < values.size(); ++i) out[i] = values[i];
  return t;
}

Tensor Tensor::empty(DType type, const Shape& shape, BufferPool& pool) {
  if (type == DType::String) return make_string_tensor(shape);
  // spec/tensors.md section 3: the byte size is checked before anything is allocated.
  const std::int64_t bytes = checked_byte_size(shape, type);
  auto buffer = pool.rent(static_cast<std::size_t>(bytes));
  const std::uint64_t generation = buffer->generation();
  return Tensor(std::move(buffer), 0, shape.element_count(), generation, true, type, shape,
                contiguous_strides(shape), 0);
}

Tensor Tensor::zeros(DType type, const Shape& shape, BufferPool& pool) {
  if (type == DType::String) return make_string_tensor(shape);  // every element the empty string
  const std::int64_t bytes = checked_byte_size(shape, type);
  auto buffer = pool.rent(static_cast<std::size_t>(bytes), true);
  const std::uint64_t generation = buffer->generation();
  return Tensor(std::move(buffer), 0, shape.element_count(), generation, true, type, shape,
                contiguous_strides(shape), 0);
}

Tensor Tensor::from_bytes(DType type, const Shape& shape, std::span<const std::byte> bytes, BufferPool& pool) {
  const std::int64_t size = checked_byte_size(shape, type);
  if (static_cast<std::uint64_t>(size) != bytes.size()) {
    throw TensorError(TensorErrorKind::Shape, "shape " + shape.to_string() + " of " +
                                                  std::string(dtype_name(type)) + " needs " +
                                                  std::to_string(size) + " bytes, got " +
                                                  std::to_string(bytes.size()));
  }
  Tensor t = empty(type, shape, pool);
  if (!bytes.empty()) std::memcpy(t.origin(), bytes.data(), bytes.size());
  return t;
}

Tensor Tensor::over(std::shared_ptr<Buffer> buffer, std::size_t byte_offset, std::size_t byte_length, DType type,
                    const Shape& shape) {
  if (!buffer || buffer->released()) throw TensorError(TensorErrorKind::Stale, "tensor over a released buffer");
  const std::size_t size = dtype_size(type);
  const std::int64_t needed = checked_byte_size(shape, type);
  if (byte_offset > buffer->length() || byte_length > buffer->length() - byte_offset ||
      byte_offset % size != 0 || static_cast<std::uint64_t>(needed) > byte_length) {
    throw TensorError(TensorErrorKind::View, "allocation of " + std::to_string(byte_length) + " bytes at " +
                                                 std::to_string(byte_offset) + " does not fit a buffer of " +
                                                 std::to_string(buffer->length()) + " bytes or shape " +
                                                 shape.to_string());
  }
  const std::uint64_t generation = buffer->generation();
  return Tensor(std::move(buffer), byte_offset, static_cast<std::int64_t>(byte_length / size), generation, false,
                type, shape, contiguous_strides(shape), 0);
}

bool Tensor::is_stale() const noexcept { return buffer_ && buffer_->generation() != generation_; }

void Tensor::check_live() const {
  if (!buffer_) throw TensorError(TensorErrorKind::Stale, "access to an undefined tensor");
  // spec/tensors.md section 6: every access compares the remembered generation to the buffer's.
  if (buffer_->generation() != generation_) {
    throw TensorError(TensorErrorKind::Stale, "the buffer was returned or its arena reset (generation " +
                                                  std::to_string(generation_) + ", now " +
                                                  std::to_string(buffer_->generation()) + ")");
  }
}

bool Tensor::is_contiguous() const noexcept {
  // spec/tensors.md section 3: extent-1 strides are ignored; empty tensors are contiguous.
  if (shape_.empty()) return true;
  std::int64_t expected = 1;
  for (int d = shape_.rank() - 1; d >= 0; --d) {
    const std::int32_t e = shape_[d];
    if (e != 1 && strides_[static_cast<std::size_t>(d)] != expected) return false;
    expected *= e;  // non-empty: the product stays <= 2^31-1
  }
  return true;
}

std::byte* Tensor::origin() const noexcept {
  return buffer_->data() + base_ + static_cast<std::size_t>(offset_) * detail::element_stride_bytes(dtype_);
}

std::byte* Tensor::element_address(std::span<const std::int64_t> index) const {
  check_live();
  if (index.size() != static_cast<std::size_t>(shape_.rank())) {
    throw TensorError(TensorErrorKind::Index, "index of rank " + std::to_string(index.size()) +
                                                  " for shape " + shape_.to_string());
  }
  std::int64_t at = offset_;
  for (std::size_t d = 0; d < index.size(); ++d) {
    const std::int64_t i = index[d];
    if (i < 0 || i >= shape_[static_cast<int>(d)]) {
      throw TensorError(TensorErrorKind::Index, "index " + std::to_string(i) + " on axis " + std::to_string(d) +
                                                    " of shape " + shape_.to_string());
    }
    // spec/tensors.md section 3: element (i0, ..., ik) lives at offset + sum of i_d * stride_d.
    // The view was checked when made, so this stays inside [0, limit).
    at += i * strides_[d];
  }
  return buffer_->data() + base_ + static_cast<std::size_t>(at) * detail::element_stride_bytes(dtype_);
}

void Tensor::validate() const {
  auto fail = [&](const std::string& what) {
    throw TensorError(TensorErrorKind::View, "invalid tensor " + shape_.to_string() + ": " + what);
  };
  if (!dtype_is_stored(static_cast<std::int32_t>(dtype_))) fail("element type is not stored");
  // The shape re-checks its own limits when rebuilt from its extents.
  try {
    Shape again(shape_.extents());
    if (again.element_count() != shape_.element_count()) fail("element count disagrees with extents");
  } catch (const TensorError&) {
    fail("shape breaks the limits");
  }
  for (int d = shape_.rank(); d < kMaxRank; ++d) {
    if (strides_[static_cast<std::size_t>(d)] != 0) fail("stride set past the rank");
  }
  if (!buffer_) {
    if (offset_ != 0 || limit_ != 0) fail("undefined tensor with an offset or allocation");
    return;
  }
  const std::size_t size = detail::element_stride_bytes(dtype_);
  if (base_ % size != 0) fail("allocation not aligned to the element size");
  // spec/tensors.md section 8: string elements only in a buffer of constructed strings, and
  // nothing else there.
  if ((dtype_ == DType::String) != buffer_->holds_strings()) fail("string elements and string buffer disagree");
  if (limit_ < 0 || base_ > buffer_->length() ||
      static_cast<std::uint64_t>(limit_) > (buffer_->length() - base_) / size) {
    fail("allocation extends past the buffer");
  }
  if (generation_ > buffer_->generation()) fail("generation ahead of the buffer");
  if (!buffer_->released() &&
      reinterpret_cast<std::uintptr_t>(buffer_->data()) % kBufferAlignment != 0) {
    fail("buffer not 64-byte aligned");
  }
  if (!shape_.empty()) {
    std::array<std::int64_t, kMaxRank> wide{};
    for (int d = 0; d < shape_.rank(); ++d) wide[static_cast<std::size_t>(d)] = strides_[static_cast<std::size_t>(d)];
    if (!detail::view_in_bounds(shape_, wide, offset_, limit_)) fail("reachable offsets leave the allocation");
  }
}

void Tensor::release() const {
  check_live();
  if (!owns_) {
    throw TensorError(TensorErrorKind::Pool,
                      "the tensor does not own its buffer (arena tensors are reclaimed by Arena::reset)");
  }
  buffer_->release();
}

}  // namespace onemodel
