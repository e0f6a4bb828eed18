// Baseline TIFF (spec/ops/image.md section 2.4; TIFF 6.0 part 1): the first image file directory
// of either byte order, uncompressed (Compression 1), chunky (PlanarConfiguration 1) strips of
// 8-bit samples, grey (PhotometricInterpretation 1, BlackIsZero) or RGB (2), with extra samples
// (alpha) dropped.
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "reference/image/byte_reader.hpp"
#include "reference/image/image_decode.hpp"

namespace onemodel::image {
namespace {

class Reader {
 public:
  Reader(std::span<const std::uint8_t> bytes, bool little) : in_(bytes), little_(little) {}
  ByteReader& in() { return in_; }
  std::uint32_t u16(const char* what) { return little_ ? in_.le16(what) : in_.be16(what); }
  std::uint32_t u32(const char* what) { return little_ ? in_.le32(what) : in_.be32(what); }

 private:
  ByteReader in_;
  bool little_;
};

struct Field {
  std::uint32_t type = 0, count = 0;
  std::size_t value_position = 0;  // where the values are: inside the entry or at its offset
};

constexpr std::uint32_t kShort = 3, kLong = 4;

// Value i of a SHORT or LONG field.
std::uint32_t value_of(Reader& r, const Field& f, std::uint32_t i, const char* what) {
  if (f.type != kShort && f.type != kLong) corrupt(std::string("TIFF ") + what + " is neither SHORT nor LONG");
  if (i >= f.count) corrupt(std::string("TIFF ") + what + " has " + std::to_string(f.count) + " values");
  r.in().seek(f.value_position + static_cast<std::uint64_t>(i) * (f.type == kShort ? 2 : 4), what);
  return f.type == kShort ? r.u16(what) : r.u32(what);
}

}  // namespace

DecodedImage decode_tiff(std::span<const std::uint8_t> bytes) {
  if (bytes.size() < 8) corrupt("the TIFF header is shorter than 8 bytes");
  Reader r(bytes, bytes[0] == 'I');
  r.in().seek(4, "TIFF header");
  r.in().seek(r.u32("TIFF first directory offset"), "TIFF first directory");
  const std::uint32_t entries = r.u16("TIFF directory entry count");
  Field width, height, bits, compression, photometric, offsets, samples, rows_per_strip, counts, planar;
  for (std::uint32_t e = 0; e < entries; ++e) {
    const std::uint32_t tag = r.u16("TIFF tag");
    Field f;
    f.type = r.u16("TIFF field type");
    f.count = r.u32("TIFF value count");
    const std::uint64_t size = f.type == kShort ? 2 : f.type == kLong ? 4 : 0;
    // Values that fit in 4 bytes sit in the entry; longer ones at the offset it holds.
    const std::size_t here = r.in().position();
    const std::uint32_t offset = r.u32("TIFF value offset");
    f.value_position = size * f.count <= 4 ? here : offset;
    switch (tag) {
      case 256: width = f; break;
      case 257: height = f; break;
      case 258: bits = f; break;
      case 259: compression = f; break;
      case 262: photometric = f; break;
      case 273: offsets = f; break;
      case 277: samples = f; break;
      case 278: rows_per_strip = f; break;
      case 279: counts = f; break;
      case 284: planar = f; break;
      default: break;
    }
  }
  if (width.count == 0 || height.count == 0 || offsets.count == 0 || counts.count == 0 || photometric.count == 0) {
    corrupt("TIFF directory lacks ImageWidth, ImageLength, StripOffsets, StripByteCounts or PhotometricInterpretation");
  }
  const std::uint32_t w = value_of(r, width, 0, "ImageWidth"), h = value_of(r, height, 0, "ImageLength");
  const std::uint32_t spp = samples.count == 0 ? 1 : value_of(r, samples, 0, "SamplesPerPixel");
  const std::uint32_t method = compression.count == 0 ? 1 : value_of(r, compression, 0, "Compression");
  const std::uint32_t photo = value_of(r, photometric, 0, "PhotometricInterpretation");
  const std::uint32_t layout = planar.count == 0 ? 1 : value_of(r, planar, 0, "PlanarConfiguration");
  if (method != 1) unsupported("TIFF compression " + std::to_string(method) + " (only uncompressed strips are decoded)");
  if (layout != 1) unsupported("TIFF planar configuration " + std::to_string(layout));
  if (photo != 1 && photo != 2) unsupported("TIFF photometric interpretation " + std::to_string(photo));
  const std::uint32_t colour_samples = photo == 2 ? 3 : 1;
  if (spp < colour_samples || spp > 8) corrupt("TIFF has " + std::to_string(spp) + " samples per pixel");
  for (std::uint32_t s = 0; s < spp; ++s) {
    const std::uint32_t b = bits.count == 0 ? 1 : value_of(r, bits, bits.count == 1 ? 0 : s, "BitsPerSample");
    if (b != 8) unsupported("TIFF with " + std::to_string(b) + " bits per sample (only 8 is decoded)");
  }
  check_extents(w, h);
  const std::uint64_t rows_each =
      rows_per_strip.count == 0 ? h : std::min<std::uint64_t>(value_of(r, rows_per_strip, 0, "RowsPerStrip"), h);
  if (rows_each == 0) corrupt("TIFF RowsPerStrip is 0");
  const std::uint64_t strips = (h + rows_each - 1) / rows_each;
  if (offsets.count != strips || counts.count != strips) {
    corrupt("TIFF has " + std::to_string(offsets.count) + " strip offsets for " + std::to_string(strips) + " strips");
  }
  const std::uint64_t row_bytes = static_cast<std::uint64_t>(w) * spp;
  // Every strip must lie inside the stream before the image is allocated.
  for (std::uint64_t s = 0; s < strips; ++s) {
    const std::uint64_t rows = std::min<std::uint64_t>(rows_each, h - s * rows_each);
    const std::uint64_t at = value_of(r, offsets, static_cast<std::uint32_t>(s), "StripOffsets");
    if (at > bytes.size() || rows * row_bytes > bytes.size() - at) corrupt("TIFF strip " + std::to_string(s) + " lies past the end");
  }
  DecodedImage image = make_image(w, h, static_cast<int>(colour_samples));
  for (std::uint64_t s = 0; s < strips; ++s) {
    const std::uint64_t first_row = s * rows_each;
    const std::uint64_t rows = std::min<std::uint64_t>(rows_each, h - first_row);
    const std::uint32_t at = value_of(r, offsets, static_cast<std::uint32_t>(s), "StripOffsets");
    const std::uint32_t size = value_of(r, counts, static_cast<std::uint32_t>(s), "StripByteCounts");
    if (size < rows * row_bytes) corrupt("TIFF strip " + std::to_string(s) + " holds fewer bytes than its rows");
    r.in().seek(at, "TIFF strip");
    const auto data = r.in().take(rows * row_bytes, "TIFF strip");
    for (std::uint64_t p = 0; p < rows * w; ++p) {
      for (std::uint32_t k = 0; k < colour_samples; ++k) {
        image.pixels[(first_row * w + p) * colour_samples + k] = data[p * spp + k];
      }
    }
  }
  return image;
}

}  // namespace onemodel::image
