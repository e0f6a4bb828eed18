// The decoders' shared pieces and the choice of decoder by signature (spec/ops/image.md section 2).
#include "reference/image/image_decode.hpp"

#include <cstring>

namespace onemodel::image {

void corrupt(const std::string& message) { throw DecodeError{DecodeFailure::Corrupt, message}; }

void unsupported(const std::string& message) { throw DecodeError{DecodeFailure::Unsupported, message}; }

void check_extents(std::uint64_t width, std::uint64_t height) {
  if (width == 0 || height == 0) corrupt("the image is " + std::to_string(width) + " x " + std::to_string(height));
  if (width > kMaxPixels || height > kMaxPixels / width) {
    unsupported("the image is " + std::to_string(width) + " x " + std::to_string(height) + ", over " +
                std::to_string(kMaxPixels) + " pixels");
  }
}

DecodedImage make_image(std::uint64_t width, std::uint64_t height, int channels) {
  check_extents(width, height);
  DecodedImage image;
  image.width = static_cast<std::int64_t>(width);
  image.height = static_cast<std::int64_t>(height);
  image.channels = channels;
  image.pixels.assign(static_cast<std::size_t>(width * height) * static_cast<std::size_t>(channels), 0);
  return image;
}

std::uint8_t luma(std::uint8_t r, std::uint8_t g, std::uint8_t b) noexcept {
  // 0.299, 0.587 and 0.114 times 65536, summing to 65536; + 0.5 before the shift rounds.
  return static_cast<std::uint8_t>((r * 19595u + g * 38470u + b * 7471u + 0x8000u) >> 16);
}

namespace {

bool starts_with(std::span<const std::uint8_t> bytes, const char* prefix, std::size_t length) {
  return bytes.size() >= length && std::memcmp(bytes.data(), prefix, length) == 0;
}

}  // namespace

DecodedImage decode(std::span<const std::uint8_t> bytes) {
  if (starts_with(bytes, "BM", 2)) return decode_bmp(bytes);
  if (starts_with(bytes, "P5", 2) || starts_with(bytes, "P6", 2)) return decode_pnm(bytes);
  if (starts_with(bytes, "\x89PNG\r\n\x1a\n", 8)) return decode_png(bytes);
  if (starts_with(bytes, "II*\0", 4) || starts_with(bytes, "MM\0*", 4)) return decode_tiff(bytes);
  if (starts_with(bytes, "\xFF\xD8\xFF", 3)) unsupported("JPEG streams are not decoded");
  if (starts_with(bytes, "\0\0\0\x0CjP  ", 8) || starts_with(bytes, "\xFF\x4F\xFF\x51", 4)) {
    unsupported("JPEG 2000 streams are not decoded");
  }
  if (bytes.size() >= 12 && starts_with(bytes, "RIFF", 4) && std::memcmp(bytes.data() + 8, "WEBP", 4) == 0) {
    unsupported("WebP streams are not decoded");
  }
  if (starts_with(bytes, "P1", 2) || starts_with(bytes, "P2", 2) || starts_with(bytes, "P3", 2) ||
      starts_with(bytes, "P4", 2)) {
    unsupported("PNM forms P1 to P4 (ASCII and bitmap) are not decoded; P5 and P6 are");
  }
  corrupt("the stream's first bytes are no image signature this library knows");
}

}  // namespace onemodel::image
