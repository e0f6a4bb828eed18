#include "core/graph/tensor_bytes.hpp"

#include <cstring>

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

std::vector<std::byte> canonical_bytes(const Tensor& tensor) {
  const Tensor c = tensor.contiguous();
  if (c.dtype() != DType::String) {
    const std::span<const std::byte> bytes = tensor_bytes(c);
    return {bytes.begin(), bytes.end()};
  }
  std::vector<std::byte> out;
  for (const std::string& s : c.to_vector<std::string>()) {
    const auto length = static_cast<std::uint64_t>(s.size());
    for (int i = 0; i < 8; ++i) out.push_back(static_cast<std::byte>((length >> (8 * i)) & 0xFF));
    const auto* first = reinterpret_cast<const std::byte*>(s.data());
    out.insert(out.end(), first, first + s.size());
  }
  return out;
}

std::vector<std::string> strings_from_canonical(std::span<const std::byte> bytes, std::int64_t count) {
  std::vector<std::string> out;
  std::size_t at = 0;
  for (std::int64_t e = 0; e < count; ++e) {
    if (bytes.size() - at < 8) throw TensorError(TensorErrorKind::Shape, "string bytes end inside an element's length");
    std::uint64_t length = 0;
    for (int i = 0; i < 8; ++i) length |= static_cast<std::uint64_t>(bytes[at + static_cast<std::size_t>(i)]) << (8 * i);
    at += 8;
    // Checked before use: the length is untrusted (a saved counterexample, a file).
    if (length > bytes.size() - at) throw TensorError(TensorErrorKind::Shape, "a string element runs past the bytes");
    out.emplace_back(reinterpret_cast<const char*>(bytes.data() + at), static_cast<std::size_t>(length));
    at += static_cast<std::size_t>(length);
  }
  if (at != bytes.size()) throw TensorError(TensorErrorKind::Shape, "string bytes hold more than the element count");
  return out;
}

}  // namespace onemodel
