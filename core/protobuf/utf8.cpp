#include "core/protobuf/utf8.hpp"

#include <cstdint>

namespace onemodel::pb {

std::size_t first_invalid_utf8(std::span<const std::byte> bytes) noexcept {
  const std::size_t n = bytes.size();
  std::size_t i = 0;
  auto at = [&](std::size_t k) { return static_cast<std::uint8_t>(bytes[k]); };
  while (i < n) {
    const std::uint8_t b0 = at(i);
    if (b0 < 0x80) {
      ++i;
      continue;
    }
    // Lead byte: length and the allowed range of the second byte (RFC 3629 table), which
    // excludes overlongs (E0 80..9F, F0 80..8F), surrogates (ED A0..BF) and > U+10FFFF (F4 90..).
    std::size_t len = 0;
    std::uint8_t lo = 0x80, hi = 0xBF;
    if (b0 >= 0xC2 && b0 <= 0xDF) {
      len = 2;
    } else if (b0 >= 0xE0 && b0 <= 0xEF) {
      len = 3;
      if (b0 == 0xE0) lo = 0xA0;
      if (b0 == 0xED) hi = 0x9F;
    } else if (b0 >= 0xF0 && b0 <= 0xF4) {
      len = 4;
      if (b0 == 0xF0) lo = 0x90;
      if (b0 == 0xF4) hi = 0x8F;
    } else {
      return i;  // continuation byte as lead, C0/C1 overlong leads, F5..FF
    }
    if (n - i < len) return i;
    const std::uint8_t b1 = at(i + 1);
    if (b1 < lo || b1 > hi) return i;
    for (std::size_t k = 2; k < len; ++k) {
      const std::uint8_t b = at(i + k);
      if (b < 0x80 || b > 0xBF) return i;
    }
    i += len;
  }
  return n;
}

}  // namespace onemodel::pb
