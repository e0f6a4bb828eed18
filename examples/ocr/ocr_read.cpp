// Reads a line of text with the PP-OCRv4 recogniser (issue 16): an RGB image strip in, a string
// out. The model's output is per-step class probabilities; their logarithms go to the CTC decoder
// (include/onemodel/ctc.hpp, spec/ctc.md) and the labels are mapped to characters with the table
// the model carries in its metadata ("character": one character per line; label 0 is the blank,
// then the table, then a space, as the recogniser was trained).
//
//   ocr_read MODEL STRIP.ppm [--mode fast|exact] [--beam WIDTH]
//
// STRIP.ppm is a binary PPM (P6, 8-bit RGB): a format read in a few lines without an image
// library (tools/oracles/make_ocr_strip.py renders one). The strip is scaled to 48 pixels high
// (bilinear, aspect kept) and normalised to [-1, 1] as the recogniser expects.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <iostream>
#include <limits>
#include <span>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "onemodel/ctc.hpp"
#include "onemodel/onnx_import.hpp"
#include "onemodel/session.hpp"

namespace {

struct Image {
  std::size_t width = 0, height = 0;
  std::vector<std::uint8_t> rgb;  // height * width * 3
};

// A binary PPM, every header field checked before the pixels are allocated.
Image read_ppm(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot open " + path);
  std::string magic;
  in >> magic;
  const auto field = [&](const char* what) {
    // Skip whitespace and '#' comments between header fields.
    for (;;) {
      in >> std::ws;
      if (in.peek() != '#') break;
      std::string comment;
      std::getline(in, comment);
    }
    long long v = -1;
    in >> v;
    if (!in || v <= 0) throw std::runtime_error(path + ": bad PPM " + what);
    return static_cast<std::size_t>(v);
  };
  if (magic != "P6") throw std::runtime_error(path + ": not a binary PPM (P6)");
  Image image;
  image.width = field("width");
  image.height = field("height");
  const std::size_t max_value = field("maximum value");
  if (max_value != 255) throw std::runtime_error(path + ": only 8-bit PPM (maximum 255) is read");
  if (image.width > 16384 || image.height > 16384) throw std::runtime_error(path + ": image larger than 16384");
  in.get();  // the single whitespace byte before the pixels
  image.rgb.resize(image.width * image.height * 3);
  in.read(reinterpret_cast<char*>(image.rgb.data()), static_cast<std::streamsize>(image.rgb.size()));
  if (in.gcount() != static_cast<std::streamsize>(image.rgb.size())) throw std::runtime_error(path + ": PPM truncated");
  return image;
}

// [1, 3, 48, W] in [-1, 1]: bilinear scaling to 48 rows (half-pixel centres), (v / 255 - 0.5) / 0.5.
onemodel::Tensor to_input(const Image& image) {
  constexpr std::size_t kHeight = 48;
  const std::size_t width = std::max<std::size_t>(
      1, static_cast<std::size_t>(std::lround(static_cast<double>(image.width) * kHeight / image.height)));
  std::vector<float> x(3 * kHeight * width);
  const double sy = static_cast<double>(image.height) / kHeight;
  const double sx = static_cast<double>(image.width) / width;
  for (std::size_t y = 0; y < kHeight; ++y) {
    const double fy = std::clamp((y + 0.5) * sy - 0.5, 0.0, static_cast<double>(image.height - 1));
    const auto y0 = static_cast<std::size_t>(fy);
    const std::size_t y1 = std::min(y0 + 1, image.height - 1);
    const double wy = fy - static_cast<double>(y0);
    for (std::size_t c = 0; c < width; ++c) {
      const double fx = std::clamp((c + 0.5) * sx - 0.5, 0.0, static_cast<double>(image.width - 1));
      const auto x0 = static_cast<std::size_t>(fx);
      const std::size_t x1 = std::min(x0 + 1, image.width - 1);
      const double wx = fx - static_cast<double>(x0);
      for (std::size_t ch = 0; ch < 3; ++ch) {
        const auto at = [&](std::size_t yy, std::size_t xx) { return image.rgb[(yy * image.width + xx) * 3 + ch]; };
        const double v = (1 - wy) * ((1 - wx) * at(y0, x0) + wx * at(y0, x1)) + wy * ((1 - wx) * at(y1, x0) + wx * at(y1, x1));
        x[(ch * kHeight + y) * width + c] = static_cast<float>((v / 255.0 - 0.5) / 0.5);
      }
    }
  }
  return onemodel::Tensor::from_values<float>(
      onemodel::DType::F32,
      onemodel::Shape({1, 3, static_cast<std::int64_t>(kHeight), static_cast<std::int64_t>(width)}),
      std::span<const float>(x));
}

// Label -> text: "" for the blank, the metadata's characters, then " ".
std::vector<std::string> character_table(const std::string& model_path) {
  const onemodel::IrModel model = onemodel::import_onnx_file(model_path);
  for (const auto& [key, value] : model.metadata_props) {
    if (key != "character") continue;
    std::vector<std::string> table{""};
    std::istringstream lines(value);
    for (std::string line; std::getline(lines, line);) table.push_back(line);
    table.push_back(" ");
    return table;
  }
  throw std::runtime_error(model_path + ": no \"character\" table in the model's metadata");
}

}  // namespace

int main(int argc, char** argv) {
  try {
    if (argc < 3) {
      std::cerr << "usage: ocr_read MODEL STRIP.ppm [--mode fast|exact] [--beam WIDTH]\n";
      return 2;
    }
    onemodel::SessionOptions options;
    std::size_t beam = 0;
    for (int i = 3; i < argc; ++i) {
      const std::string arg = argv[i];
      if (arg == "--mode" && i + 1 < argc) {
        const std::string v = argv[++i];
        if (v != "fast" && v != "exact") throw std::runtime_error("--mode is fast or exact");
        options.mode = v == "exact" ? onemodel::ExecutionMode::Exact : onemodel::ExecutionMode::Fast;
      } else if (arg == "--beam" && i + 1 < argc) {
        beam = static_cast<std::size_t>(std::stoul(argv[++i]));
      } else {
        throw std::runtime_error("unknown argument " + arg);
      }
    }
    const std::vector<std::string> table = character_table(argv[1]);
    onemodel::Session session = onemodel::Session::load(argv[1], options);
    const onemodel::Tensor input = to_input(read_ppm(argv[2]));
    const std::vector<onemodel::Tensor> outputs = session.run({{session.inputs().at(0).name, input}});
    const onemodel::Tensor& probs = outputs.at(0);  // [1, steps, classes]
    if (probs.shape().rank() != 3 || probs.shape()[0] != 1) throw std::runtime_error("unexpected output shape");
    const auto steps = static_cast<std::size_t>(probs.shape()[1]);
    const auto classes = static_cast<std::size_t>(probs.shape()[2]);
    if (classes != table.size()) {
      throw std::runtime_error("the model has " + std::to_string(classes) + " classes, its table " +
                               std::to_string(table.size()));
    }
    // Probabilities -> natural-log probabilities (0 becomes -inf: probability 0).
    const std::span<const float> p = probs.data<float>();
    std::vector<float> log_p(p.size());
    for (std::size_t i = 0; i < p.size(); ++i) log_p[i] = std::log(p[i]);

    std::vector<std::int32_t> labels;
    double confidence = 0;
    if (beam == 0) {
      const onemodel::ctc::GreedyResult r =
          onemodel::ctc::greedy_decode(log_p, steps, classes, onemodel::ctc::ScoreKind::LogProbabilities);
      labels = r.labels();
      confidence = r.confidence;
    } else {
      const auto best = onemodel::ctc::beam_search(
          log_p, steps, classes, {onemodel::ctc::ScoreKind::LogProbabilities, 0, beam, 1});
      labels = best.at(0).labels;
      confidence = best.at(0).confidence;
    }
    std::string text;
    for (const std::int32_t l : labels) text += table.at(static_cast<std::size_t>(l));
    std::cout << "text: " << text << "\n"
              << "confidence: " << confidence << " (" << steps << " steps, " << labels.size() << " labels, "
              << (beam == 0 ? std::string("greedy") : "beam " + std::to_string(beam)) << ")\n";
    return 0;
  } catch (const std::exception& e) {
    std::cerr << "ocr_read: " << e.what() << "\n";
    return 1;
  }
}
