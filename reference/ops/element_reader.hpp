// Reads a tensor's elements one at a time in the row-major order of a shape it broadcasts to
// (spec/ops/elementwise.md section 2), straight from its buffer: the element-wise kernels used to
// copy each input (expanded) into a std::vector first, an allocation as large as the output on
// every run, also when the optimized engine runs these kernels for a node without an override
// (graph-runtime.md section 4: a warm run allocates nothing). The values read and their order are
// the copy's, so results do not change.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>

#include "onemodel/tensor.hpp"
#include "onemodel/tensor_error.hpp"

namespace onemodel::ew {

template <class S>
class ElementReader {
 public:
  // `tensor` broadcast to `shape` (Tensor::expand checks that it does); S is its storage type.
  ElementReader(const Tensor& tensor, const Shape& shape) {
    if (!storage_matches<S>(tensor.dtype())) {
      throw TensorError(TensorErrorKind::Type, std::string("element reader of ") + storage_type_name<S>() +
                                                   " over " + std::string(dtype_name(tensor.dtype())));
    }
    const Tensor view = tensor.shape() == shape ? tensor : tensor.expand(shape);
    view.check_live();
    base_ = view.buffer()->data() + view.byte_offset();
    at_ = view.offset();
    rank_ = view.rank();
    contiguous_ = view.is_contiguous();
    for (int d = 0; d < rank_; ++d) {
      extent_[static_cast<std::size_t>(d)] = view.shape()[d];
      stride_[static_cast<std::size_t>(d)] = view.strides()[static_cast<std::size_t>(d)];
    }
  }

  // The next element; call it at most element_count() times.
  S next() noexcept {
    S value;
    std::memcpy(&value, base_ + static_cast<std::ptrdiff_t>(at_) * static_cast<std::ptrdiff_t>(sizeof(S)), sizeof(S));
    if (contiguous_) {
      ++at_;
      return value;
    }
    for (int d = rank_ - 1; d >= 0; --d) {
      const std::size_t k = static_cast<std::size_t>(d);
      at_ += stride_[k];
      if (++index_[k] < extent_[k]) break;
      at_ -= stride_[k] * extent_[k];
      index_[k] = 0;
    }
    return value;
  }

 private:
  const std::byte* base_ = nullptr;
  std::int64_t at_ = 0;  // element offset of the next element from base_
  int rank_ = 0;
  bool contiguous_ = true;
  std::array<std::int64_t, kMaxRank> extent_{};
  std::array<std::int64_t, kMaxRank> stride_{};
  std::array<std::int64_t, kMaxRank> index_{};
};

}  // namespace onemodel::ew
