// Checked-build memory marking (spec/tensors.md section 6, CHECKED builds): new and returned
// memory reads as 0xFF (NaN for floats, -1 for integers), and 64 canary bytes 0xA5 follow each
// buffer's length. In other builds these functions do nothing and canaries always pass.
#pragma once

#include <cstddef>
#include <cstring>

#include "onemodel/buffer.hpp"

namespace onemodel::detail {

#if defined(ONEMODEL_CHECKED) && ONEMODEL_CHECKED
inline constexpr bool kChecked = true;
#else
inline constexpr bool kChecked = false;
#endif

// Fills [0, length) with 0xFF and writes the canary at [length, length + 64).
inline void mark_new(std::byte* p, std::size_t length) noexcept {
  if constexpr (kChecked) {
    std::memset(p, 0xFF, length);
    std::memset(p + length, 0xA5, kCanaryBytes);
  }
}

inline bool canary_ok(const std::byte* p, std::size_t length) noexcept {
  if constexpr (kChecked) {
    for (std::size_t i = 0; i < kCanaryBytes; ++i) {
      if (p[length + i] != kCanaryByte) return false;
    }
  }
  return true;
}

// Fills `bytes` bytes with 0xFF (memory being returned).
inline void mark_returned(std::byte* p, std::size_t bytes) noexcept {
  if constexpr (kChecked) std::memset(p, 0xFF, bytes);
}

}  // namespace onemodel::detail
