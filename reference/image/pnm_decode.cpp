// The binary PNM forms (spec/ops/image.md section 2.2): P5 (grey) and P6 (R, G, B), a header of
// the magic number, width, height and maximum value separated by whitespace and '#' comments, one
// whitespace byte, then rows of one byte per sample. Only a maximum value of 255 is decoded: other
// maxima would need a rescaling rule the format does not state.
#include <cstdint>
#include <string>

#include "reference/image/byte_reader.hpp"
#include "reference/image/image_decode.hpp"

namespace onemodel::image {
namespace {

bool is_space(std::uint8_t c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'; }

// Skips whitespace and comments, then reads a decimal number of at most 9 digits.
std::uint64_t header_number(ByteReader& in, const char* what) {
  std::uint8_t c = in.u8(what);
  for (;;) {
    if (c == '#') {
      while (c != '\n' && c != '\r') c = in.u8(what);
    } else if (!is_space(c)) {
      break;
    }
    c = in.u8(what);
  }
  if (c < '0' || c > '9') corrupt(std::string("PNM ") + what + " is not a number");
  std::uint64_t value = 0;
  int digits = 0;
  while (c >= '0' && c <= '9') {
    if (++digits > 9) corrupt(std::string("PNM ") + what + " has more than 9 digits");
    value = value * 10 + (c - '0');
    c = in.u8(what);
  }
  // The byte after the number must be whitespace (after the maximum: exactly one, then the data).
  if (!is_space(c) && c != '#') corrupt(std::string("PNM ") + what + " is followed by a byte that is not whitespace");
  if (c == '#') corrupt(std::string("PNM ") + what + " runs into a comment");
  return value;
}

}  // namespace

DecodedImage decode_pnm(std::span<const std::uint8_t> bytes) {
  ByteReader in(bytes);
  const bool colour = in.take(2, "PNM magic number")[1] == '6';
  const std::uint64_t width = header_number(in, "width");
  const std::uint64_t height = header_number(in, "height");
  const std::uint64_t maximum = header_number(in, "maximum value");
  if (maximum == 0 || maximum > 65535) corrupt("PNM maximum value " + std::to_string(maximum) + " is outside 1 to 65535");
  if (maximum != 255) unsupported("PNM maximum value " + std::to_string(maximum) + " (only 255 is decoded)");
  check_extents(width, height);
  const std::uint64_t channels = colour ? 3 : 1;
  // Both extents have at most 9 digits: the product fits in 64 bits. Checked against the stream
  // before anything is allocated.
  if (width * height * channels > in.remaining()) corrupt("PNM declares more samples than the stream holds");
  DecodedImage image = make_image(width, height, static_cast<int>(channels));
  const auto data = in.take(image.pixels.size(), "PNM samples");
  image.pixels.assign(data.begin(), data.end());
  return image;
}

}  // namespace onemodel::image
