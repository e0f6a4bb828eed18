// libFuzzer target: the image decoders behind ImageDecoder (reference/image/, spec/ops/image.md)
// on arbitrary bytes. DecodeError is the only acceptable refusal; a decoded image must have
// positive extents, at most kMaxPixels pixels, 1 or 3 channels and exactly height x width x
// channels bytes; its luma must be computable for every pixel. Seeds: fuzz/corpus/image_decoder
// (files Pillow wrote, from tests/data/images).
#include <cstddef>
#include <cstdint>
#include <span>

#include "fuzz/fuzz_support.hpp"
#include "reference/image/image_decode.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace onemodel::image;
  try {
    const DecodedImage image = decode(std::span<const std::uint8_t>(data, size));
    onemodel::fuzz::check(image.height > 0 && image.width > 0, "an image with a zero extent");
    const auto pixels = static_cast<std::uint64_t>(image.height) * static_cast<std::uint64_t>(image.width);
    onemodel::fuzz::check(pixels <= kMaxPixels, "an image over the pixel limit");
    onemodel::fuzz::check(image.channels == 1 || image.channels == 3, "a channel count other than 1 or 3");
    onemodel::fuzz::check(image.pixels.size() == pixels * static_cast<std::uint64_t>(image.channels),
                          "pixel bytes that do not match the extents");
    unsigned sum = 0;
    if (image.channels == 3) {
      for (std::size_t i = 0; i + 2 < image.pixels.size(); i += 3) sum += luma(image.pixels[i], image.pixels[i + 1], image.pixels[i + 2]);
    }
    (void)sum;
  } catch (const DecodeError&) {
  }
  return 0;
}
