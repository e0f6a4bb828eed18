#include "core/format/dtype_bits.hpp"

#include "core/onnx/element_types.hpp"

namespace onemodel {

// spec/format.md section 2.5: the bits per element are those of ONNX's raw layout, the same table
// the importer uses (spec/onnx-import.md section 3); 0 (undefined) and 8 (string) have none.
std::optional<int> dtype_bits(std::int32_t code) noexcept {
  const int bits = onnx::element_bits(code);
  if (bits <= 0) return std::nullopt;
  return bits;
}

ElementCount element_count(std::span<const std::int64_t> dims) noexcept {
  ElementCount result;
  bool has_zero = false;
  for (std::size_t i = 0; i < dims.size(); ++i) {
    if (dims[i] < 0) return {0, CountProblem::NegativeDim, i};
    if (dims[i] == 0) has_zero = true;
  }
  if (has_zero) return result;
  std::uint64_t count = 1;
  for (std::size_t i = 0; i < dims.size(); ++i) {
    const auto d = static_cast<std::uint64_t>(dims[i]);
    // count * d >= 2^60  <=>  count > (2^60 - 1) / d, with count, d >= 1.
    if (count > (kMaxElementCount - 1) / d) return {0, CountProblem::TooMany, i};
    count *= d;
  }
  result.count = count;
  return result;
}

std::uint64_t packed_byte_length(std::uint64_t count, int bits) noexcept {
  // count * bits can reach 2^67, so count is split into whole bytes groups of 8 and the rest.
  const auto b = static_cast<std::uint64_t>(bits);
  const std::uint64_t whole = (count / 8) * b;      // (count / 8) < 2^57, so this is < 2^64
  const std::uint64_t rest_bits = (count % 8) * b;       // < 1024
  return whole + (rest_bits + 7) / 8;
}

}  // namespace onemodel
