// ImageDecoder and its decoders (spec/ops/image.md), against Pillow's decoding of files Pillow
// wrote (tests/data/images, made by tools/oracles/make_image_cases.py; Pillow is what the ONNX
// reference implementation decodes with):
//  - every file of every decoded format (PNG of each colour type, bit depth 1, 8 and 16, stored
//    and compressed deflate with every filter; BMP 24-bit, 8-bit and 1-bit palettes; binary PPM and
//    PGM; uncompressed TIFF RGB, RGBA and grey) gives Pillow's RGB bytes, and Pillow's luma;
//  - through a session, in both engines and modes, RGB, BGR and Grayscale outputs and their shapes;
//  - JPEG, WebP and LZW-compressed TIFF are refused with Unsupported, never an empty image;
//  - hostile streams: every strict prefix of each file, a flipped byte in a PNG chunk, extents of
//    2^31 - 1 squared: Corrupt (an empty [0, 0, C] output, as ONNX says) or Unsupported, no crash and
//    no allocation from the declared extents.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "diff/graph_builder.hpp"
#include "tests/support/ir_builder.hpp"
#include "onemodel/session.hpp"
#include "onemodel/session_error.hpp"
#include "reference/image/image_decode.hpp"

namespace onemodel {
namespace {

namespace fs = std::filesystem;
using graph_builder::GraphBuilder;
using ir_builder::string_attr;

const fs::path kDir = fs::path(ONEMODEL_SOURCE_DIR) / "tests/data/images";

std::vector<std::uint8_t> read(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  EXPECT_TRUE(in.good()) << path;
  return std::vector<std::uint8_t>(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

struct Case {
  std::string name, file;
  bool unsupported = false;
  std::int64_t height = 0, width = 0;
};

std::vector<Case> cases() {
  std::ifstream in(kDir / "cases.txt");
  std::vector<Case> out;
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream words(line);
    Case c;
    std::string third;
    words >> c.name >> c.file >> third;
    if (third == "unsupported") {
      c.unsupported = true;
    } else {
      c.height = std::stoll(third);
      words >> c.width;
    }
    out.push_back(c);
  }
  EXPECT_GE(out.size(), 19u);
  return out;
}

// The decoded image as R, G, B bytes (a grey image repeated in each channel).
std::vector<std::uint8_t> as_rgb(const image::DecodedImage& d) {
  std::vector<std::uint8_t> out;
  for (std::size_t i = 0; i < static_cast<std::size_t>(d.height * d.width); ++i) {
    for (int k = 0; k < 3; ++k) out.push_back(d.channels == 1 ? d.pixels[i] : d.pixels[i * 3 + static_cast<std::size_t>(k)]);
  }
  return out;
}

TEST(ImageDecoder, EveryFileGivesPillowsPixelsAndLuma) {
  int decoded = 0;
  for (const Case& c : cases()) {
    if (c.unsupported) continue;
    SCOPED_TRACE(c.name);
    const image::DecodedImage d = image::decode(read(kDir / c.file));
    EXPECT_EQ(d.height, c.height);
    EXPECT_EQ(d.width, c.width);
    const std::vector<std::uint8_t> rgb = as_rgb(d);
    EXPECT_EQ(rgb, read(kDir / (c.name + ".rgb")));
    std::vector<std::uint8_t> l;
    for (std::size_t i = 0; i + 2 < rgb.size(); i += 3) l.push_back(image::luma(rgb[i], rgb[i + 1], rgb[i + 2]));
    EXPECT_EQ(l, read(kDir / (c.name + ".l")));
    ++decoded;
  }
  EXPECT_EQ(decoded, 16);
}

IrModel decoder_model(const std::string& format) {
  GraphBuilder b(20);
  b.input_any_shape("encoded", DType::U8)
      .node("ImageDecoder", {"encoded"}, {"image"}, {string_attr("pixel_format", format)})
      .output("image", DType::U8);
  return b.build();
}

Tensor run_decoder(const std::string& format, const std::vector<std::uint8_t>& bytes, EngineKind engine,
                   ExecutionMode mode) {
  SessionOptions options;
  options.engine = engine;
  options.mode = mode;
  const Tensor encoded = Tensor::from_values<std::uint8_t>(DType::U8, Shape{static_cast<std::int64_t>(bytes.size())}, bytes);
  return Session::create(decoder_model(format), options).run({{"encoded", encoded}}).at(0);
}

TEST(ImageDecoder, SessionsGiveRgbBgrAndGreyInBothEnginesAndModes) {
  for (const std::string name : {"png_palette", "bmp_rgb", "pgm_grey", "tiff_rgba"}) {
    const Case c = [&] {
      for (const Case& k : cases()) {
        if (k.name == name) return k;
      }
      return Case{};
    }();
    const auto bytes = read(kDir / c.file);
    const auto rgb = read(kDir / (name + ".rgb"));
    const auto l = read(kDir / (name + ".l"));
    std::vector<std::uint8_t> bgr(rgb.size());
    for (std::size_t i = 0; i + 2 < rgb.size(); i += 3) bgr[i] = rgb[i + 2], bgr[i + 1] = rgb[i + 1], bgr[i + 2] = rgb[i];
    for (EngineKind engine : {EngineKind::Reference, EngineKind::Optimized}) {
      for (ExecutionMode mode : {ExecutionMode::Fast, ExecutionMode::Exact}) {
        SCOPED_TRACE(name + (engine == EngineKind::Reference ? " reference" : " optimized") +
                     (mode == ExecutionMode::Exact ? " exact" : " fast"));
        const Tensor y_rgb = run_decoder("RGB", bytes, engine, mode);
        EXPECT_EQ(y_rgb.shape(), (Shape{c.height, c.width, 3}));
        EXPECT_EQ(y_rgb.to_vector<std::uint8_t>(), rgb);
        EXPECT_EQ(run_decoder("BGR", bytes, engine, mode).to_vector<std::uint8_t>(), bgr);
        const Tensor y_l = run_decoder("Grayscale", bytes, engine, mode);
        EXPECT_EQ(y_l.shape(), (Shape{c.height, c.width, 1}));
        EXPECT_EQ(y_l.to_vector<std::uint8_t>(), l);
      }
    }
  }
}

TEST(ImageDecoder, FormatsNotDecodedAreUnsupportedNotEmpty) {
  int refused = 0;
  for (const Case& c : cases()) {
    if (!c.unsupported) continue;
    SCOPED_TRACE(c.name);
    const auto bytes = read(kDir / c.file);
    try {
      image::decode(bytes);
      ADD_FAILURE() << "decoded";
    } catch (const image::DecodeError& e) {
      EXPECT_EQ(e.failure, image::DecodeFailure::Unsupported) << e.message;
    }
    try {
      run_decoder("RGB", bytes, EngineKind::Optimized, ExecutionMode::Fast);
      ADD_FAILURE() << "the session ran";
    } catch (const SessionError& e) {
      EXPECT_EQ(e.kind(), SessionErrorKind::Unsupported) << e.what();
    }
    ++refused;
  }
  EXPECT_EQ(refused, 3);
}

// Every strict prefix of a file breaks its format: Corrupt (or Unsupported for a prefix that
// still parses as a header of a feature not decoded), never a crash.
TEST(ImageDecoder, EveryTruncationIsCorruptAndGivesAnEmptyImage) {
  for (const Case& c : cases()) {
    if (c.unsupported) continue;
    SCOPED_TRACE(c.name);
    const auto bytes = read(kDir / c.file);
    int corrupt = 0;
    for (std::size_t n = 0; n < bytes.size(); ++n) {
      const std::vector<std::uint8_t> prefix(bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(n));
      try {
        image::decode(prefix);
        // A BMP or TIFF may keep unread trailing bytes (padding, tags after the strips): what it
        // decodes then must be the whole image.
        EXPECT_TRUE(c.file.ends_with(".bmp") || c.file.ends_with(".tiff") || c.file.ends_with(".pnm")) << n;
      } catch (const image::DecodeError& e) {
        if (e.failure == image::DecodeFailure::Corrupt) ++corrupt;
      }
    }
    EXPECT_GT(corrupt, static_cast<int>(bytes.size()) / 2);
    const std::vector<std::uint8_t> half(bytes.begin(), bytes.begin() + static_cast<std::ptrdiff_t>(bytes.size() / 2));
    const Tensor y = run_decoder("BGR", half, EngineKind::Reference, ExecutionMode::Exact);
    EXPECT_EQ(y.shape(), (Shape{0, 0, 3}));
  }
}

TEST(ImageDecoder, HostileStreams) {
  // A flipped byte inside a PNG chunk fails its CRC: Corrupt.
  auto png = read(kDir / "png_rgb.png");
  png[40] ^= 0x10;
  EXPECT_THROW(
      {
        try {
          image::decode(png);
        } catch (const image::DecodeError& e) {
          EXPECT_EQ(e.failure, image::DecodeFailure::Corrupt);
          throw;
        }
      },
      image::DecodeError);
  // A BMP declaring 2^31 - 1 by 2^31 - 1 pixels: refused before anything is allocated.
  auto bmp = read(kDir / "bmp_rgb.bmp");
  for (std::size_t at : {18u, 22u}) bmp[at] = 0xFF, bmp[at + 1] = 0xFF, bmp[at + 2] = 0xFF, bmp[at + 3] = 0x7F;
  try {
    image::decode(bmp);
    ADD_FAILURE() << "decoded";
  } catch (const image::DecodeError& e) {
    EXPECT_EQ(e.failure, image::DecodeFailure::Unsupported) << e.message;
  }
  // Random bytes after each signature: Corrupt or Unsupported, no crash.
  std::uint32_t state = 7;
  for (const char* signature : {"BM", "P6", "\x89PNG\r\n\x1a\n", "II*"}) {
    for (int trial = 0; trial < 200; ++trial) {
      std::vector<std::uint8_t> bytes(signature, signature + std::char_traits<char>::length(signature) + 1);
      for (int i = 0; i < 64 + trial; ++i) {
        state = state * 1664525u + 1013904223u;
        bytes.push_back(static_cast<std::uint8_t>(state >> 24));
      }
      try {
        image::decode(bytes);
      } catch (const image::DecodeError&) {
      }
    }
  }
}

TEST(ImageDecoder, BadAttributesAndInputsAreRefused) {
  try {
    Session::create(decoder_model("CMYK"), SessionOptions{});
    ADD_FAILURE() << "created";
  } catch (const SessionError& e) {
    EXPECT_EQ(e.kind(), SessionErrorKind::InvalidModel) << e.what();
  }
  GraphBuilder b(20);
  b.input_any_shape("encoded", DType::F32).node("ImageDecoder", {"encoded"}, {"image"}).output("image", DType::U8);
  SessionOptions options;
  options.engine = EngineKind::Reference;
  try {
    Session::create(b.build(), options).run({{"encoded", Tensor::from_values<float>(DType::F32, Shape{2}, {1.0f, 2.0f})}});
    ADD_FAILURE() << "ran";
  } catch (const SessionError& e) {
    EXPECT_EQ(e.kind(), SessionErrorKind::InvalidModel) << e.what();
  }
}

}  // namespace
}  // namespace onemodel
