// PNG (spec/ops/image.md section 2.3; the PNG specification, ISO/IEC 15948): the signature, chunks
// each with a CRC-32 that must match, IHDR first, PLTE for palette images, the IDAT chunks'
// concatenated zlib stream, IEND. Non-interlaced images of every colour type; bit depths 1, 2, 4
// and 8 (16 keeps each sample's high byte). Alpha is dropped; palette indices become R, G, B.
#include <array>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "reference/image/byte_reader.hpp"
#include "reference/image/image_decode.hpp"
#include "reference/image/zlib_inflate.hpp"

namespace onemodel::image {
namespace {

// CRC-32 with the polynomial 0xEDB88320 (reflected), over the chunk type and data.
std::uint32_t crc32(std::span<const std::uint8_t> type, std::span<const std::uint8_t> data) {
  static const std::array<std::uint32_t, 256> table = [] {
    std::array<std::uint32_t, 256> t{};
    for (std::uint32_t n = 0; n < 256; ++n) {
      std::uint32_t c = n;
      for (int k = 0; k < 8; ++k) c = (c & 1) != 0 ? 0xEDB88320u ^ (c >> 1) : c >> 1;
      t[n] = c;
    }
    return t;
  }();
  std::uint32_t c = 0xFFFFFFFFu;
  for (const auto part : {type, data}) {
    for (const std::uint8_t byte : part) c = table[(c ^ byte) & 0xFF] ^ (c >> 8);
  }
  return c ^ 0xFFFFFFFFu;
}

int paeth(int a, int b, int c) {
  const int p = a + b - c;
  const int pa = std::abs(p - a), pb = std::abs(p - b), pc = std::abs(p - c);
  if (pa <= pb && pa <= pc) return a;
  return pb <= pc ? b : c;
}

struct Header {
  std::uint32_t width = 0, height = 0;
  std::uint32_t depth = 0, colour_type = 0;
};

// Samples per pixel of each colour type (0 grey, 2 RGB, 3 palette, 4 grey + alpha, 6 RGBA).
std::uint32_t samples_of(std::uint32_t colour_type) {
  switch (colour_type) {
    case 0: return 1;
    case 2: return 3;
    case 3: return 1;
    case 4: return 2;
    case 6: return 4;
    default: corrupt("PNG colour type " + std::to_string(colour_type) + " is not defined");
  }
}

void check_depth(const Header& h) {
  const std::uint32_t d = h.depth;
  const bool ok = h.colour_type == 0   ? (d == 1 || d == 2 || d == 4 || d == 8 || d == 16)
                  : h.colour_type == 3 ? (d == 1 || d == 2 || d == 4 || d == 8)
                                       : (d == 8 || d == 16);
  if (!ok) corrupt("PNG bit depth " + std::to_string(d) + " is not allowed for colour type " + std::to_string(h.colour_type));
}

}  // namespace

DecodedImage decode_png(std::span<const std::uint8_t> bytes) {
  ByteReader in(bytes, 8);
  Header h;
  bool have_header = false, ended = false;
  std::vector<std::uint8_t> palette;  // R, G, B per entry
  std::vector<std::uint8_t> compressed;
  while (!ended) {
    const std::uint32_t length = in.be32("PNG chunk length");
    if (length > 0x7FFFFFFFu) corrupt("PNG chunk length " + std::to_string(length) + " is over 2^31 - 1");
    const auto type = in.take(4, "PNG chunk type");
    const auto data = in.take(length, "PNG chunk data");
    const std::uint32_t crc = in.be32("PNG chunk CRC");
    const std::string name(type.begin(), type.end());
    if (crc32(type, data) != crc) corrupt("PNG chunk " + name + " fails its CRC");
    if (!have_header && name != "IHDR") corrupt("the first PNG chunk is " + name + ", not IHDR");
    if (name == "IHDR") {
      if (have_header) corrupt("PNG has a second IHDR");
      if (length != 13) corrupt("PNG IHDR is " + std::to_string(length) + " bytes, not 13");
      ByteReader f(data);
      h.width = f.be32("PNG width");
      h.height = f.be32("PNG height");
      h.depth = f.u8("PNG bit depth");
      h.colour_type = f.u8("PNG colour type");
      const std::uint32_t compression = f.u8("PNG compression"), filter = f.u8("PNG filter"), interlace = f.u8("PNG interlace");
      samples_of(h.colour_type);
      check_depth(h);
      if (compression != 0 || filter != 0 || interlace > 1) corrupt("PNG compression, filter or interlace method is not defined");
      if (h.width > 0x7FFFFFFFu || h.height > 0x7FFFFFFFu) corrupt("PNG extents are over 2^31 - 1");
      if (interlace == 1) unsupported("interlaced (Adam7) PNG is not decoded");
      have_header = true;
    } else if (name == "PLTE") {
      if (length % 3 != 0 || length == 0 || length > 768) corrupt("PNG palette of " + std::to_string(length) + " bytes");
      palette.assign(data.begin(), data.end());
    } else if (name == "IDAT") {
      compressed.insert(compressed.end(), data.begin(), data.end());
    } else if (name == "IEND") {
      ended = true;
    } else if ((type[0] & 0x20) == 0) {
      // Bit 5 of the first letter clear: a critical chunk a decoder must understand.
      unsupported("PNG critical chunk " + name + " is not known");
    }
  }
  if (h.colour_type == 3 && palette.empty()) corrupt("PNG palette image without PLTE");
  const std::uint32_t samples = samples_of(h.colour_type);
  const int channels = h.colour_type == 0 || h.colour_type == 4 ? 1 : 3;
  check_extents(h.width, h.height);
  // Bytes per row after the filter byte; per complete pixel (at least 1) for the filters.
  const std::uint64_t bits_per_pixel = static_cast<std::uint64_t>(samples) * h.depth;
  const std::uint64_t row_bytes = (static_cast<std::uint64_t>(h.width) * bits_per_pixel + 7) / 8;
  const std::uint64_t pixel_bytes = (bits_per_pixel + 7) / 8;
  const std::uint64_t total = (row_bytes + 1) * h.height;  // at most 2^28 pixels of 64 bits, plus rows
  // The inflated data grows only as the stream really holds it (a deflate stream expands at most
  // about 1032 to 1); the image is allocated after it is complete.
  std::vector<std::uint8_t> raw = zlib_inflate(compressed, static_cast<std::size_t>(total));
  if (raw.size() != total) corrupt("PNG image data holds " + std::to_string(raw.size()) + " bytes, not " + std::to_string(total));
  DecodedImage image = make_image(h.width, h.height, channels);

  std::vector<std::uint8_t> previous(static_cast<std::size_t>(row_bytes), 0), row(static_cast<std::size_t>(row_bytes));
  const std::uint32_t maximum = (1u << (h.depth > 8 ? 8 : h.depth)) - 1;
  for (std::uint64_t y = 0; y < h.height; ++y) {
    const std::uint8_t* line = raw.data() + y * (row_bytes + 1);
    const std::uint8_t filter = line[0];
    for (std::uint64_t i = 0; i < row_bytes; ++i) {
      const int x = line[1 + i];
      const int a = i >= pixel_bytes ? row[i - pixel_bytes] : 0;
      const int b = previous[i];
      const int c = i >= pixel_bytes ? previous[i - pixel_bytes] : 0;
      int value = 0;
      switch (filter) {
        case 0: value = x; break;
        case 1: value = x + a; break;
        case 2: value = x + b; break;
        case 3: value = x + (a + b) / 2; break;
        case 4: value = x + paeth(a, b, c); break;
        default: corrupt("PNG row " + std::to_string(y) + " has filter type " + std::to_string(filter));
      }
      row[i] = static_cast<std::uint8_t>(value & 0xFF);
    }
    std::uint8_t* out = image.pixels.data() + y * h.width * static_cast<std::uint64_t>(image.channels);
    for (std::uint64_t x = 0; x < h.width; ++x) {
      // Sample s of pixel x, reduced to 8 bits: sub-byte grey scaled to 0..255, 16-bit high byte.
      const auto sample = [&](std::uint32_t s) -> std::uint32_t {
        const std::uint64_t index = x * samples + s;
        if (h.depth == 16) return row[index * 2];
        if (h.depth == 8) return row[index];
        const std::uint64_t bit = index * h.depth;
        return (row[bit / 8] >> (8 - h.depth - bit % 8)) & maximum;
      };
      if (h.colour_type == 3) {
        const std::uint32_t entry = sample(0);
        if (entry * 3 >= palette.size()) corrupt("PNG pixel uses palette entry " + std::to_string(entry) + " of " + std::to_string(palette.size() / 3));
        for (int k = 0; k < 3; ++k) out[x * 3 + k] = palette[entry * 3 + k];
      } else if (image.channels == 1) {
        out[x] = static_cast<std::uint8_t>(h.depth < 8 ? sample(0) * 255 / maximum : sample(0));
      } else {
        for (std::uint32_t k = 0; k < 3; ++k) out[x * 3 + k] = static_cast<std::uint8_t>(sample(k));
      }
    }
    previous.swap(row);
  }
  return image;
}

}  // namespace onemodel::image
