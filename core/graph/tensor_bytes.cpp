#include "core/graph/tensor_bytes.hpp"

#include "onemodel/tensor_error.hpp"

namespace onemodel {
namespace {

std::byte* first_element(const Tensor& tensor) {
  tensor.check_live();
  if (!tensor.is_contiguous()) throw TensorError(TensorErrorKind::View, "raw bytes of a non-contiguous tensor");
  return tensor.buffer()->data() + tensor.byte_offset() +
         static_cast<std::size_t>(tensor.offset()) * dtype_size(tensor.dtype());
}

std::size_t byte_count(const Tensor& tensor) {
  return static_cast<std::size_t>(tensor.element_count()) * dtype_size(tensor.dtype());
}

}  // namespace

std::span<const std::byte> tensor_bytes(const Tensor& tensor) {
  if (tensor.element_count() == 0) return {};
  return {first_element(tensor), byte_count(tensor)};
}

std::span<std::byte> mutable_tensor_bytes(const Tensor& tensor) {
  if (tensor.element_count() == 0) return {};
  std::byte* first = first_element(tensor);
  tensor.buffer()->bump_version();
  return {first, byte_count(tensor)};
}

}  // namespace onemodel
