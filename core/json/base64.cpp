#include "core/json/base64.hpp"

#include <array>
#include <cstdint>

namespace onemodel {
namespace {

constexpr char kAlphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

int decode_char(char c) noexcept {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '+') return 62;
  if (c == '/') return 63;
  return -1;
}

}  // namespace

std::string encode_base64(std::string_view bytes) {
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  std::size_t i = 0;
  for (; i + 3 <= bytes.size(); i += 3) {
    const std::uint32_t v = (std::uint32_t{static_cast<std::uint8_t>(bytes[i])} << 16) |
                            (std::uint32_t{static_cast<std::uint8_t>(bytes[i + 1])} << 8) |
                            std::uint32_t{static_cast<std::uint8_t>(bytes[i + 2])};
    out += kAlphabet[(v >> 18) & 63];
    out += kAlphabet[(v >> 12) & 63];
    out += kAlphabet[(v >> 6) & 63];
    out += kAlphabet[v & 63];
  }
  const std::size_t rest = bytes.size() - i;
  if (rest == 1) {
    const std::uint32_t v = std::uint32_t{static_cast<std::uint8_t>(bytes[i])} << 16;
    out += kAlphabet[(v >> 18) & 63];
    out += kAlphabet[(v >> 12) & 63];
    out += "==";
  } else if (rest == 2) {
    const std::uint32_t v = (std::uint32_t{static_cast<std::uint8_t>(bytes[i])} << 16) |
                            (std::uint32_t{static_cast<std::uint8_t>(bytes[i + 1])} << 8);
    out += kAlphabet[(v >> 18) & 63];
    out += kAlphabet[(v >> 12) & 63];
    out += kAlphabet[(v >> 6) & 63];
    out += '=';
  }
  return out;
}

std::optional<std::string> decode_base64(std::string_view text) {
  if (text.size() % 4 != 0) return std::nullopt;
  std::string out;
  out.reserve(text.size() / 4 * 3);
  for (std::size_t i = 0; i < text.size(); i += 4) {
    const bool last = i + 4 == text.size();
    std::array<int, 4> v{};
    int padding = 0;
    for (int k = 0; k < 4; ++k) {
      const char c = text[i + static_cast<std::size_t>(k)];
      if (c == '=') {
        // '=' only in the last group, only in positions 2 and 3, and nothing but '=' after it.
        if (!last || k < 2) return std::nullopt;
        ++padding;
        v[static_cast<std::size_t>(k)] = 0;
      } else {
        if (padding > 0) return std::nullopt;
        v[static_cast<std::size_t>(k)] = decode_char(c);
        if (v[static_cast<std::size_t>(k)] < 0) return std::nullopt;
      }
    }
    const std::uint32_t bits = (static_cast<std::uint32_t>(v[0]) << 18) |
                               (static_cast<std::uint32_t>(v[1]) << 12) |
                               (static_cast<std::uint32_t>(v[2]) << 6) | static_cast<std::uint32_t>(v[3]);
    // Strict: the bits a padded group does not use must be zero (RFC 4648 section 3.5).
    if (padding == 1 && (bits & 0xFF) != 0) return std::nullopt;
    if (padding == 2 && (bits & 0xFFFF) != 0) return std::nullopt;
    out += static_cast<char>((bits >> 16) & 0xFF);
    if (padding < 2) out += static_cast<char>((bits >> 8) & 0xFF);
    if (padding < 1) out += static_cast<char>(bits & 0xFF);
  }
  return out;
}

}  // namespace onemodel
