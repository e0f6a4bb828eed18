// Element sizes of ONNX TensorProto.DataType codes (spec/format.md section 2.5) and the byte
// length of a tensor from its dims, in checked 64-bit arithmetic.
#pragma once

#include <cstdint>
#include <optional>
#include <span>

namespace onemodel {

// Bits per element for every fixed-size code; empty for 0 (undefined), 8 (string) and unknown codes.
std::optional<int> dtype_bits(std::int32_t code) noexcept;

inline constexpr std::uint64_t kMaxElementCount = std::uint64_t{1} << 60;  // exclusive bound
inline constexpr std::uint64_t kMaxTensorBytes = (std::uint64_t{1} << 31) - 1;

// The element count, or empty if a dimension is negative or the product reaches 2^60
// (a zero dimension makes the count 0 whatever the others are).
enum class CountProblem { None, NegativeDim, TooMany };
struct ElementCount {
  std::uint64_t count = 0;
  CountProblem problem = CountProblem::None;
  std::size_t dim_index = 0;  // the offending dimension when problem != None
};
ElementCount element_count(std::span<const std::int64_t> dims) noexcept;

// ceil(count * bits / 8); count < 2^60 and bits <= 128 keep this inside 64 bits.
std::uint64_t packed_byte_length(std::uint64_t count, int bits) noexcept;

}  // namespace onemodel
