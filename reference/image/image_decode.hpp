// The still-image decoders behind ImageDecoder (spec/ops/image.md): BMP, the binary PNM forms, PNG
// and baseline uncompressed TIFF, each reading untrusted bytes. Every length, offset and product is
// checked before use; no allocation is made from an unchecked number; the decoded image is at most
// kMaxPixels pixels. A stream that breaks its format's rules throws DecodeError{Corrupt}; a valid
// stream using a feature these decoders do not implement throws DecodeError{Unsupported}.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace onemodel::image {

// Rows top to bottom, pixels left to right, channels interleaved: 1 (luma) or 3 (R, G, B).
struct DecodedImage {
  std::int64_t height = 0;
  std::int64_t width = 0;
  int channels = 0;
  std::vector<std::uint8_t> pixels;
};

enum class DecodeFailure { Corrupt, Unsupported };

struct DecodeError {
  DecodeFailure failure;
  std::string message;
};

// 2^28 pixels (768 MiB of RGB): a bound on what a stream may make the library allocate.
inline constexpr std::uint64_t kMaxPixels = std::uint64_t{1} << 28;

[[noreturn]] void corrupt(const std::string& message);
[[noreturn]] void unsupported(const std::string& message);

// Both extents positive (Corrupt otherwise: no format allows an empty image) and the pixel count
// at most kMaxPixels (Unsupported otherwise). Decoders call it as soon as the header is read.
void check_extents(std::uint64_t width, std::uint64_t height);

// An image of `width` x `height` x `channels` zero bytes, after check_extents. Decoders call it
// only once the stream is known to hold the pixels, so no allocation follows from a header alone.
DecodedImage make_image(std::uint64_t width, std::uint64_t height, int channels);

// By the stream's signature: "BM", "P5"/"P6", the PNG signature, "II*\0"/"MM\0*". Unsupported for
// any other stream (JPEG, JPEG 2000, WebP among them), naming what the signature looks like.
DecodedImage decode(std::span<const std::uint8_t> bytes);

DecodedImage decode_bmp(std::span<const std::uint8_t> bytes);
DecodedImage decode_pnm(std::span<const std::uint8_t> bytes);
DecodedImage decode_png(std::span<const std::uint8_t> bytes);
DecodedImage decode_tiff(std::span<const std::uint8_t> bytes);

// Luma of an 8-bit R, G, B triple: ITU-R 601-2 weights in 16-bit fixed point, rounded half up
// (spec/ops/image.md section 3).
std::uint8_t luma(std::uint8_t r, std::uint8_t g, std::uint8_t b) noexcept;

}  // namespace onemodel::image
