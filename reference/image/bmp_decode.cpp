// BMP (spec/ops/image.md section 2.1): the file header, a BITMAPINFOHEADER or one of its longer
// versions (40, 52, 56, 108 or 124 bytes), uncompressed 1, 4 or 8-bit palette rows or 24 or 32-bit
// B, G, R(, X) rows, each padded to 4 bytes, bottom-up unless the height is negative.
#include <cstdint>
#include <string>

#include "reference/image/byte_reader.hpp"
#include "reference/image/image_decode.hpp"

namespace onemodel::image {

DecodedImage decode_bmp(std::span<const std::uint8_t> bytes) {
  ByteReader in(bytes);
  in.take(2, "BMP signature");
  in.le32("BMP file size");  // not trusted: the offsets below are checked against the real size
  in.le32("BMP reserved bytes");
  const std::uint32_t pixel_offset = in.le32("BMP pixel data offset");
  const std::uint32_t header_size = in.le32("BMP info header size");
  if (header_size == 12) unsupported("OS/2 BMP core headers are not decoded");
  if (header_size != 40 && header_size != 52 && header_size != 56 && header_size != 108 && header_size != 124) {
    corrupt("BMP info header size " + std::to_string(header_size) + " is not one the format defines");
  }
  const std::int64_t width = static_cast<std::int32_t>(in.le32("BMP width"));
  const std::int64_t raw_height = static_cast<std::int32_t>(in.le32("BMP height"));
  const std::uint32_t planes = in.le16("BMP planes");
  const std::uint32_t depth = in.le16("BMP bits per pixel");
  const std::uint32_t compression = in.le32("BMP compression");
  in.le32("BMP image size");
  in.le32("BMP horizontal resolution");
  in.le32("BMP vertical resolution");
  const std::uint32_t colors_used = in.le32("BMP colours used");
  if (planes != 1) corrupt("BMP planes is " + std::to_string(planes) + ", not 1");
  if (width <= 0 || raw_height == 0 || raw_height == INT32_MIN) {
    corrupt("BMP extents " + std::to_string(width) + " x " + std::to_string(raw_height) + " are not an image");
  }
  if (compression != 0) unsupported("BMP compression " + std::to_string(compression) + " (only uncompressed rows are decoded)");
  if (depth != 1 && depth != 4 && depth != 8 && depth != 24 && depth != 32) {
    unsupported("BMP with " + std::to_string(depth) + " bits per pixel");
  }
  const bool bottom_up = raw_height > 0;
  const std::uint64_t height = static_cast<std::uint64_t>(bottom_up ? raw_height : -raw_height);
  check_extents(static_cast<std::uint64_t>(width), height);

  // The palette follows the info header: B, G, R, reserved per entry.
  std::uint32_t palette_size = 0;
  if (depth <= 8) {
    const std::uint32_t most = std::uint32_t{1} << depth;
    palette_size = colors_used == 0 ? most : colors_used;
    if (palette_size > most) corrupt("BMP declares " + std::to_string(colors_used) + " colours for " + std::to_string(depth) + " bits");
  }
  in.seek(14 + static_cast<std::uint64_t>(header_size), "BMP palette");
  const auto palette = in.take(static_cast<std::uint64_t>(palette_size) * 4, "BMP palette");

  // Each row is padded to a multiple of 4 bytes (width < 2^31 and depth <= 32: no overflow).
  const std::uint64_t row_bytes = (static_cast<std::uint64_t>(width) * depth + 31) / 32 * 4;
  in.seek(pixel_offset, "BMP pixel data");
  if (height > in.remaining() / row_bytes) corrupt("BMP declares more rows than the stream holds");  // before multiplying
  const auto rows = in.take(row_bytes * height, "BMP pixel rows");
  // Allocated once the stream is known to hold every row: no allocation from declared extents alone.
  DecodedImage image = make_image(static_cast<std::uint64_t>(width), height, 3);
  const std::uint64_t w = static_cast<std::uint64_t>(width);
  for (std::uint64_t r = 0; r < height; ++r) {
    const std::uint64_t stored = bottom_up ? height - 1 - r : r;
    const std::uint8_t* row = rows.data() + stored * row_bytes;
    std::uint8_t* out = image.pixels.data() + r * w * 3;
    for (std::uint64_t x = 0; x < w; ++x) {
      std::uint8_t b = 0, g = 0, red = 0;
      if (depth >= 24) {
        const std::uint8_t* p = row + x * (depth / 8);
        b = p[0];
        g = p[1];
        red = p[2];  // a 32-bit pixel's fourth byte is not alpha without bit fields: ignored
      } else {
        const std::uint64_t bit = x * depth;
        const std::uint32_t index = (row[bit / 8] >> (8 - depth - bit % 8)) & ((1u << depth) - 1);
        if (index >= palette_size) corrupt("BMP pixel uses colour " + std::to_string(index) + " of a palette of " + std::to_string(palette_size));
        b = palette[index * 4];
        g = palette[index * 4 + 1];
        red = palette[index * 4 + 2];
      }
      out[x * 3] = red;
      out[x * 3 + 1] = g;
      out[x * 3 + 2] = b;
    }
  }
  return image;
}

}  // namespace onemodel::image
