// Bounds-checked reading of a byte stream for the image decoders: every read past the end is
// DecodeError{Corrupt} naming what was being read.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

#include "reference/image/image_decode.hpp"

namespace onemodel::image {

class ByteReader {
 public:
  explicit ByteReader(std::span<const std::uint8_t> bytes, std::size_t position = 0) : bytes_(bytes), position_(position) {}

  std::size_t position() const noexcept { return position_; }
  std::size_t remaining() const noexcept { return position_ < bytes_.size() ? bytes_.size() - position_ : 0; }
  void seek(std::uint64_t position, const char* what) {
    if (position > bytes_.size()) corrupt(std::string(what) + " at byte " + std::to_string(position) + " is past the end");
    position_ = static_cast<std::size_t>(position);
  }
  std::span<const std::uint8_t> take(std::uint64_t count, const char* what) {
    if (count > remaining()) {
      corrupt(std::string(what) + ": " + std::to_string(count) + " bytes needed at byte " + std::to_string(position_) +
              ", " + std::to_string(remaining()) + " left");
    }
    const auto out = bytes_.subspan(position_, static_cast<std::size_t>(count));
    position_ += static_cast<std::size_t>(count);
    return out;
  }
  std::uint8_t u8(const char* what) { return take(1, what)[0]; }
  std::uint32_t le16(const char* what) {
    const auto b = take(2, what);
    return static_cast<std::uint32_t>(b[0]) | static_cast<std::uint32_t>(b[1]) << 8;
  }
  std::uint32_t le32(const char* what) {
    const auto b = take(4, what);
    return static_cast<std::uint32_t>(b[0]) | static_cast<std::uint32_t>(b[1]) << 8 |
           static_cast<std::uint32_t>(b[2]) << 16 | static_cast<std::uint32_t>(b[3]) << 24;
  }
  std::uint32_t be16(const char* what) {
    const auto b = take(2, what);
    return static_cast<std::uint32_t>(b[0]) << 8 | static_cast<std::uint32_t>(b[1]);
  }
  std::uint32_t be32(const char* what) {
    const auto b = take(4, what);
    return static_cast<std::uint32_t>(b[0]) << 24 | static_cast<std::uint32_t>(b[1]) << 16 |
           static_cast<std::uint32_t>(b[2]) << 8 | static_cast<std::uint32_t>(b[3]);
  }

 private:
  std::span<const std::uint8_t> bytes_;
  std::size_t position_;
};

}  // namespace onemodel::image
