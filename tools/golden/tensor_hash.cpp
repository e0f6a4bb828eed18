#include "tools/golden/tensor_hash.hpp"

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/graph/tensor_bytes.hpp"
#include "core/util/sha256.hpp"

namespace onemodel::golden {
namespace {

void update_int64_le(Sha256& sha, std::int64_t value) {
  // Written byte by byte so the header is little-endian whatever the host order.
  const auto bits = static_cast<std::uint64_t>(value);
  std::array<std::byte, 8> bytes{};
  for (std::size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<std::byte>((bits >> (8 * i)) & 0xFF);
  sha.update(bytes);
}

}  // namespace

void hash_tensor_into(Sha256& sha, const Tensor& tensor) {
  update_int64_le(sha, static_cast<std::int32_t>(tensor.dtype()));
  update_int64_le(sha, tensor.rank());
  for (std::int32_t extent : tensor.shape().extents()) update_int64_le(sha, extent);
  // The elements row-major in host order (strings length-prefixed); every platform this tool is
  // built for (x86-64, aarch64, wasm32) is little-endian, which is the order the hash is defined in.
  sha.update(std::span<const std::byte>(canonical_bytes(tensor)));
}

std::string tensor_hash(const Tensor& tensor) {
  Sha256 sha;
  hash_tensor_into(sha, tensor);
  return to_hex(sha.finish());
}

std::string not_exact_marker() { return sha256_hex(std::string_view("onemodel-golden:not-exact")); }

}  // namespace onemodel::golden
