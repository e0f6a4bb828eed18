// Overflow-checked 64-bit arithmetic for sizes, offsets and strides. Untrusted sizes are
// multiplied here, never with a plain `*` that could wrap (docs/contributing.md, Code).
#pragma once

#include <cstdint>
#include <optional>

namespace onemodel::detail {

inline std::optional<std::int64_t> checked_mul(std::int64_t a, std::int64_t b) noexcept {
  std::int64_t out = 0;
  if (__builtin_mul_overflow(a, b, &out)) return std::nullopt;
  return out;
}

inline std::optional<std::int64_t> checked_add(std::int64_t a, std::int64_t b) noexcept {
  std::int64_t out = 0;
  if (__builtin_add_overflow(a, b, &out)) return std::nullopt;
  return out;
}

}  // namespace onemodel::detail
