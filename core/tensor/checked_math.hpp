// Overflow-checked integer arithmetic for sizes, offsets and strides: the one helper every size
// computation goes through (spec/operator-contract.md section 6). Untrusted integers (attributes,
// input values, extents) are added, subtracted and multiplied here, never with a plain `+`, `-` or
// `*` that could wrap (docs/contributing.md, Code). Each function returns nullopt on overflow; the
// throwing forms that name a node are in core/graph/node_math.hpp.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <span>

namespace onemodel::detail {

// One form for each type: the builtins report the overflow of the exact result in T.
template <typename T>
std::optional<T> mul_or_none(T a, T b) noexcept {
  T out{};
  if (__builtin_mul_overflow(a, b, &out)) return std::nullopt;
  return out;
}
template <typename T>
std::optional<T> add_or_none(T a, T b) noexcept {
  T out{};
  if (__builtin_add_overflow(a, b, &out)) return std::nullopt;
  return out;
}

inline std::optional<std::int64_t> checked_mul(std::int64_t a, std::int64_t b) noexcept { return mul_or_none(a, b); }
inline std::optional<std::int64_t> checked_add(std::int64_t a, std::int64_t b) noexcept { return add_or_none(a, b); }
inline std::optional<std::int64_t> checked_sub(std::int64_t a, std::int64_t b) noexcept {
  std::int64_t out = 0;
  if (__builtin_sub_overflow(a, b, &out)) return std::nullopt;
  return out;
}

// The product of every value (1 for none), or nullopt when an intermediate product overflows. A
// zero anywhere does not hide an overflow of the others: the product is refused either way, so a
// shape like [INT64_MAX, INT64_MAX, 0] is refused whatever the order of its extents.
inline std::optional<std::int64_t> checked_product(std::span<const std::int64_t> values) noexcept {
  std::int64_t product = 1;
  bool overflow = false;
  for (std::int64_t v : values) {
    if (v == 0) continue;
    const auto next = checked_mul(product, v);
    if (!next) {
      overflow = true;
      break;
    }
    product = *next;
  }
  if (overflow) return std::nullopt;
  for (std::int64_t v : values) {
    if (v == 0) return 0;
  }
  return product;
}

inline std::optional<std::size_t> checked_mul_size(std::size_t a, std::size_t b) noexcept { return mul_or_none(a, b); }
inline std::optional<std::size_t> checked_add_size(std::size_t a, std::size_t b) noexcept { return add_or_none(a, b); }

// A non-negative int64 as a size_t; nullopt for a negative value (never a wrapped huge size).
inline std::optional<std::size_t> to_size(std::int64_t v) noexcept {
  if (v < 0) return std::nullopt;
  if constexpr (sizeof(std::size_t) < sizeof(std::int64_t)) {
    if (static_cast<std::uint64_t>(v) > std::numeric_limits<std::size_t>::max()) return std::nullopt;
  }
  return static_cast<std::size_t>(v);
}

// A size_t as an int64; nullopt above INT64_MAX.
inline std::optional<std::int64_t> to_int64(std::size_t v) noexcept {
  if (static_cast<std::uint64_t>(v) > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
    return std::nullopt;
  }
  return static_cast<std::int64_t>(v);
}

}  // namespace onemodel::detail
