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

Tensor Tensor::contiguous(BufferPool& pool) const {
  check_live();
  if (is_contiguous()) return *this;
  // The copy's byte size is checked before it is allocated (an expanded view may be larger than
  // its buffer).
  Tensor out = empty(dtype_, shape_, pool);
  copy_to(std::span<std::byte>(out.origin(), static_cast<std::size_t>(checked_byte_size(shape_, dtype_))));
  return out;
}

}  // namespace onemodel
