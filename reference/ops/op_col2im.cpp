// Col2Im (opset 18): column blocks summed back into an image, PyTorch's fold (ONNX Col2Im text;
// spec/ops/products-conv.md section 11). input [N, C * K, L], image_shape [r] (the spatial
// extents I), block_shape [r] (the block extents k), attributes pads [2r] (begins then ends),
// strides [r], dilations [r] (defaults 0, 1, 1). K = prod k; along axis d a block spans
// e = dilation * (k - 1) + 1 and there are B_d = (I + pad_begin + pad_end - e) / stride + 1 block
// positions; L must be prod B_d. Output [N, C, I...], from +0: for each n, then each column row
// (c, kernel offset o, offsets row-major), then each block position b (row-major), the element
// goes to b * stride - pad_begin + o * dilation on every axis when that is inside the image, and is
// added there. Only additions in that stated order: exact (f32, f64; NaN stored canonical).
// image_shape and block_shape give the output shape: read in infer(), deferred when not known;
// every count is checked against the library's limits before it is multiplied.
#include <string>

#include "core/graph/op_kernel.hpp"
#include "reference/ops/axis_helpers.hpp"
#include "reference/ops/norm_helpers.hpp"

namespace onemodel {
namespace {

using namespace shape_ops;

struct Geometry {
  std::vector<std::int64_t> image, block, stride, dilation, pad_begin, count;
  std::int64_t kernel = 1;  // K
};

class Col2Im final : public OpKernel {
 public:
  explicit Col2Im(const NodeInfo& node)
      : pads_(node.get_ints("pads")), strides_(node.get_ints("strides")), dilations_(node.get_ints("dilations")) {}
  void infer(InferContext& context) const override {
    context.require_type(0, {DType::F32, DType::F64});
    check_rank(context.node(), context.input_shape(0));  // before any value is read: the model's fault
    const Tensor* image = value_or_defer(context, 1);
    const Tensor* block = value_or_defer(context, 2);
    if (image == nullptr || block == nullptr) return;
    const Geometry g = geometry(context.node(), context.input_shape(0), *image, *block);
    const Shape& in = context.input_shape(0);
    std::vector<std::int64_t> out{in[0], in[1] / g.kernel};
    out.insert(out.end(), g.image.begin(), g.image.end());
    context.set_output(0, context.input_type(0), make_shape(context.node(), out));
  }
  void run(RunContext& context) const override {
    if (context.input(0).dtype() == DType::F64) return run_typed<double>(context);
    run_typed<float>(context);
  }

 private:
  template <class T>
  void run_typed(const RunContext& context) const {
    const Tensor& x_t = context.input(0);
    const Geometry g = geometry(context.node(), x_t.shape(), context.input(1), context.input(2));
    const auto x = x_t.to_vector<T>();
    auto y = context.output(0).mutable_data<T>();
    for (auto& v : y) v = T{0};
    const std::size_t r = g.image.size();
    const std::int64_t n_count = x_t.shape()[0];
    const std::int64_t rows = x_t.shape()[1];  // C * K
    const std::int64_t positions = x_t.shape()[2];
    const std::int64_t channels = rows / g.kernel;
    std::int64_t plane = 1;
    for (std::int64_t e : g.image) plane *= e;
    std::vector<std::int64_t> offset(r), position(r);
    std::size_t i = 0;
    for (std::int64_t n = 0; n < n_count; ++n) {
      for (std::int64_t row = 0; row < rows; ++row) {
        const std::int64_t c = row / g.kernel;
        // The kernel offset of this row, row-major over block_shape.
        std::int64_t rest = row % g.kernel;
        for (std::size_t d = r; d-- > 0;) {
          offset[d] = rest % g.block[d];
          rest /= g.block[d];
        }
        for (std::int64_t l = 0; l < positions; ++l, ++i) {
          std::int64_t left = l;
          for (std::size_t d = r; d-- > 0;) {
            position[d] = left % g.count[d];
            left /= g.count[d];
          }
          std::int64_t to = 0;
          bool inside = true;
          for (std::size_t d = 0; d < r && inside; ++d) {
            const std::int64_t p = position[d] * g.stride[d] - g.pad_begin[d] + offset[d] * g.dilation[d];
            inside = p >= 0 && p < g.image[d];
            to = to * g.image[d] + p;
          }
          if (!inside) continue;
          const std::size_t at = static_cast<std::size_t>((n * channels + c) * plane + to);
          y[at] = y[at] + x[i];
        }
      }
    }
    for (auto& v : y) v = norms::store(v);
  }

  static void check_rank(const NodeInfo& node, const Shape& in) {
    if (in.rank() != 3) node.fail_invalid("input must have rank 3 [N, C * prod(block_shape), L], not " + std::to_string(in.rank()));
  }
  // Reads and checks the shapes; InvalidModel (InvalidInput when a value is the caller's) for any
  // inconsistency, Unsupported past the library's limits.
  Geometry geometry(const NodeInfo& node, const Shape& in, const Tensor& image_value, const Tensor& block_value) const {
    check_rank(node, in);
    if (image_value.dtype() != DType::I64 || block_value.dtype() != DType::I64) {
      node.fail_invalid("image_shape and block_shape must be int64");
    }
    if (image_value.rank() != 1 || block_value.rank() != 1) node.fail_invalid("image_shape and block_shape must have rank 1");
    Geometry g;
    g.image = image_value.contiguous().to_vector<std::int64_t>();
    g.block = block_value.contiguous().to_vector<std::int64_t>();
    const std::size_t r = g.image.size();
    if (r == 0 || g.block.size() != r) node.fail_invalid("image_shape and block_shape must have the same positive length");
    if (!pads_.empty() && pads_.size() != 2 * r) node.fail_invalid("pads must have " + std::to_string(2 * r) + " entries");
    if (!strides_.empty() && strides_.size() != r) node.fail_invalid("strides must have " + std::to_string(r) + " entries");
    if (!dilations_.empty() && dilations_.size() != r) node.fail_invalid("dilations must have " + std::to_string(r) + " entries");
    std::int64_t blocks = 1;
    for (std::size_t d = 0; d < r; ++d) {
      const std::int64_t image = g.image[d], k = g.block[d];
      const std::int64_t stride = strides_.empty() ? 1 : strides_[d];
      const std::int64_t dilation = dilations_.empty() ? 1 : dilations_[d];
      const std::int64_t begin = pads_.empty() ? 0 : pads_[d], end = pads_.empty() ? 0 : pads_[d + r];
      if (image < 0 || image > kMaxElements) node.fail_invalid("image extent " + std::to_string(image) + " is negative or too large");
      if (k < 1 || k > kMaxElements) node.fail_invalid("block extent " + std::to_string(k) + " is not positive or too large");
      if (stride < 1 || stride > kMaxElements) node.fail_invalid("stride " + std::to_string(stride) + " is not positive");
      if (dilation < 1 || dilation > kMaxElements) node.fail_invalid("dilation " + std::to_string(dilation) + " is not positive");
      if (begin < 0 || end < 0 || begin > kMaxElements || end > kMaxElements) node.fail_invalid("pads must be in [0, 2^31)");
      // Every term below 2^31, so the span and the extent fit 64 bits.
      const std::int64_t span = image + begin + end;
      const std::int64_t extent = dilation * (k - 1) + 1;
      if (span < extent) {
        node.fail_invalid("a block of " + std::to_string(extent) + " does not fit the padded image extent " + std::to_string(span));
      }
      g.count.push_back((span - extent) / stride + 1);
      g.stride.push_back(stride);
      g.dilation.push_back(dilation);
      g.pad_begin.push_back(begin);
      // K and the block count are checked against the input's extents as they grow (both < 2^31).
      g.kernel *= k;
      if (g.kernel > in[1]) node.fail_invalid("prod(block_shape) exceeds the input's extent " + std::to_string(in[1]));
      blocks *= g.count.back();
      if (blocks > in[2]) break;
    }
    if (in[1] % g.kernel != 0) {
      node.fail_invalid("input extent " + std::to_string(in[1]) + " is not a multiple of prod(block_shape) " + std::to_string(g.kernel));
    }
    if (blocks != in[2]) node.fail_invalid("L = " + std::to_string(in[2]) + " is not the number of block positions");
    return g;
  }

  std::vector<std::int64_t> pads_, strides_, dilations_;
};

}  // namespace

std::unique_ptr<OpKernel> make_col2im(const NodeInfo& node) { return std::make_unique<Col2Im>(node); }

}  // namespace onemodel
