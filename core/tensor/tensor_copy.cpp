// Row-major copies: contiguous() and copy_to(). spec/tensors.md section 3, Contiguous().
#include <cstring>
#include <string>

#include "onemodel/tensor.hpp"

namespace onemodel {

namespace {

// Copies `count` elements of `size` bytes, `stride` elements apart, to consecutive places.
void copy_strided_row(std::byte* out, const std::byte* in, std::int64_t count, std::int64_t stride,
                      std::size_t size) noexcept {
  const std::int64_t step = stride * static_cast<std::int64_t>(size);
  for (std::int64_t i = 0; i < count; ++i) {
    std::memcpy(out, in, size);
    out += size;
    in += step;
  }
}

}  // namespace

void Tensor::copy_to(std::span<std::byte> out) const {
  const std::size_t size = dtype_size(dtype_);
  const std::int64_t count = element_count();
  if (out.size() != static_cast<std::uint64_t>(count) * size) {
    throw TensorError(TensorErrorKind::Shape, "copy_to: destination of " + std::to_string(out.size()) +
                                                  " bytes for " + std::to_string(count) + " elements");
  }
  check_live();
  if (count == 0) return;
  if (is_contiguous()) {
    std::memcpy(out.data(), origin(), out.size());
    return;
  }
  // Walk the index space in row-major order: the innermost axis as a strided row, the others as
  // an odometer. The view was checked when made, so every address is inside the allocation.
  const int rank = shape_.rank();
  const std::int64_t inner = rank == 0 ? 1 : shape_[rank - 1];
  const std::int64_t inner_stride = rank == 0 ? 0 : strides_[static_cast<std::size_t>(rank - 1)];
  std::array<std::int64_t, kMaxRank> index{};
  const std::byte* base = buffer_->data() + base_;
  std::byte* dst = out.data();
  for (std::int64_t done = 0; done < count; done += inner) {
    std::int64_t at = offset_;
    for (int d = 0; d + 1 < rank; ++d) at += index[static_cast<std::size_t>(d)] * strides_[static_cast<std::size_t>(d)];
    copy_strided_row(dst, base + at * static_cast<std::int64_t>(size), inner, inner_stride, size);
    dst += static_cast<std::size_t>(inner) * size;
    for (int d = rank - 2; d >= 0; --d) {
      if (++index[static_cast<std::size_t>(d)] < shape_[d]) break;
      index[static_cast<std::size_t>(d)] = 0;
    }
  }
}

void Tensor::copy_elements_to(const Tensor& destination) const {
  if (destination.dtype() != dtype_ || destination.element_count() != element_count() ||
      !destination.is_contiguous()) {
    throw TensorError(TensorErrorKind::Shape, "copy_elements_to: destination " + destination.shape().to_string() +
                                                  " of " + std::string(dtype_name(destination.dtype())) + " for " +
                                                  shape_.to_string() + " of " + std::string(dtype_name(dtype_)));
  }
  check_live();
  destination.check_live();
  if (dtype_ != DType::String) {
    if (element_count() == 0) return;
    copy_to(std::span<std::byte>(destination.origin(), static_cast<std::size_t>(checked_byte_size(shape_, dtype_))));
    destination.buffer_->bump_version();
    return;
  }
  // spec/tensors.md section 8: strings are assigned one by one in row-major order (the odometer
  // of copy_to over element addresses).
  std::span<std::string> out = destination.mutable_data<std::string>();
  const int rank = shape_.rank();
  std::array<std::int64_t, kMaxRank> index{};
  const auto* base = reinterpret_cast<const std::string*>(buffer_->data() + base_);
  for (std::size_t k = 0; k < out.size(); ++k) {
    std::int64_t at = offset_;
    for (int d = 0; d < rank; ++d) at += index[static_cast<std::size_t>(d)] * strides_[static_cast<std::size_t>(d)];
    out[k] = base[at];
    for (int d = rank - 1; d >= 0; --d) {
      if (++index[static_cast<std::size_t>(d)] < shape_[d]) break;
      index[static_cast<std::size_t>(d)] = 0;
    }
  }
}

Tensor Tensor::contiguous(BufferPool& pool) const {
  check_live();
  if (is_contiguous()) return *this;
  if (dtype_ == DType::String) {
    Tensor out = empty(dtype_, shape_, pool);
    copy_elements_to(out);
    return out;
  }
  // The copy's byte size is checked before it is allocated (an expanded view may be larger than
  // its buffer).
  Tensor out = empty(dtype_, shape_, pool);
  copy_to(std::span<std::byte>(out.origin(), static_cast<std::size_t>(checked_byte_size(shape_, dtype_))));
  return out;
}

}  // namespace onemodel
