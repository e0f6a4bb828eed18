// ImageDecoder (opset 20): spec/ops/image.md. Input: a 1-D uint8 tensor holding one encoded image;
// output: uint8 [height, width, channels] in the pixel_format (RGB, BGR: 3 channels; Grayscale: 1).
// The output's shape comes from the stream, so it is allocated at run time. As the ONNX text says,
// a stream that cannot be decoded (corrupt, or no image format) gives an empty [0, 0, channels]
// tensor; a valid stream of a format or feature the decoders do not implement (JPEG, JPEG 2000,
// WebP, interlaced PNG, compressed TIFF, ...) is refused with Unsupported rather than answered
// with an empty image that would pass for a decoding failure.
#include <string>

#include "core/graph/node_info.hpp"
#include "core/graph/op_kernel.hpp"
#include "reference/image/image_decode.hpp"

namespace onemodel {
namespace {

enum class PixelFormat { Rgb, Bgr, Grayscale };

PixelFormat read_format(const NodeInfo& node) {
  const std::string format = node.get_string("pixel_format", "RGB");
  if (format == "RGB") return PixelFormat::Rgb;
  if (format == "BGR") return PixelFormat::Bgr;
  if (format == "Grayscale") return PixelFormat::Grayscale;
  node.fail_invalid("pixel_format '" + format + "' is not RGB, BGR or Grayscale");
}

class ImageDecoder final : public OpKernel {
 public:
  explicit ImageDecoder(const NodeInfo& node) : format_(read_format(node)) { outputs_data_dependent = true; }

  void infer(InferContext&) const override {}

  void run(RunContext& context) const override {
    const NodeInfo& node = context.node();
    const Tensor& input = context.input(0);
    if (input.dtype() != DType::U8 || input.rank() != 1) {
      node.fail_invalid("the encoded stream must be a 1-D uint8 tensor, not " + std::string(dtype_name(input.dtype())) +
                        " " + input.shape().to_string());
    }
    const Tensor stream = input.contiguous();
    const std::int64_t channels = format_ == PixelFormat::Grayscale ? 1 : 3;
    image::DecodedImage decoded;
    try {
      decoded = image::decode(stream.data<std::uint8_t>());
    } catch (const image::DecodeError& e) {
      if (e.failure == image::DecodeFailure::Unsupported) node.fail_unsupported(e.message);
      // ONNX: "If it can't decode for any reason (e.g. corrupted encoded stream, invalid format),
      // it will return an empty matrix."
      context.allocate_output(0, DType::U8, Shape{0, 0, channels});
      return;
    }
    const Tensor& out = context.allocate_output(0, DType::U8, Shape{decoded.height, decoded.width, channels});
    std::uint8_t* y = out.mutable_data<std::uint8_t>().data();
    const std::size_t pixels = static_cast<std::size_t>(decoded.height * decoded.width);
    const std::uint8_t* p = decoded.pixels.data();
    for (std::size_t i = 0; i < pixels; ++i) {
      // A grey image gives R = G = B; a colour image's luma is image::luma (section 3).
      const std::uint8_t r = decoded.channels == 1 ? p[i] : p[i * 3];
      const std::uint8_t g = decoded.channels == 1 ? p[i] : p[i * 3 + 1];
      const std::uint8_t b = decoded.channels == 1 ? p[i] : p[i * 3 + 2];
      switch (format_) {
        case PixelFormat::Rgb: y[i * 3] = r, y[i * 3 + 1] = g, y[i * 3 + 2] = b; break;
        case PixelFormat::Bgr: y[i * 3] = b, y[i * 3 + 1] = g, y[i * 3 + 2] = r; break;
        case PixelFormat::Grayscale: y[i] = decoded.channels == 1 ? p[i] : image::luma(r, g, b); break;
      }
    }
  }

 private:
  PixelFormat format_;
};

}  // namespace

std::unique_ptr<OpKernel> make_image_decoder(const NodeInfo& node) { return std::make_unique<ImageDecoder>(node); }

}  // namespace onemodel
