// CenterCropPad (opset 18): each listed axis cropped or zero-padded to its target extent, the
// window centred (ONNX CenterCropPad text; spec/ops/shape-indexing.md section 2, CenterCropPad).
// `shape` (int32 or int64, rank 1) gives one target per entry of `axes` (default: every axis, so
// then one per axis of the input); unlisted axes are kept. Cropping an extent n to t < n starts at
// floor((n - t) / 2) (the window shifted left when n - t is odd); padding to t > n puts
// floor((t - n) / 2) zeros before and the rest after (the extra one on the right). The targets
// give the output shape: read in infer(), deferred when not known. A negative target, a shape of
// the wrong length, an axis outside [-r, r) or listed twice is InvalidModel (InvalidInput when
// the shape is the caller's). Zero padding is all-zero bytes (0, +0.0, false). Every stored type;
// exact.
#include <string>

#include "core/graph/op_kernel.hpp"
#include "reference/ops/axis_helpers.hpp"
#include "reference/ops/strided_copy.hpp"

namespace onemodel {
namespace {

using namespace shape_ops;

class CenterCropPad final : public OpKernel {
 public:
  explicit CenterCropPad(const NodeInfo& node) : has_axes_(node.has("axes")), axes_(node.get_ints("axes")) {}
  void infer(InferContext& context) const override {
    const Tensor* shape_value = value_or_defer(context, 1);
    if (shape_value == nullptr) return;
    const Shape& in = context.input_shape(0);
    context.set_output(0, context.input_type(0), make_shape(context.node(), targets(context.node(), in, *shape_value)));
  }
  void run(RunContext& context) const override {
    const Tensor in = context.input(0).contiguous();
    const Tensor& out = context.output(0);
    const Shape& in_shape = in.shape();
    const int rank = in_shape.rank();
    // Input coordinate = output coordinate + offset[d]: offset = floor((n - t) / 2) when cropping
    // (n >= t), -floor((t - n) / 2) when padding.
    std::vector<std::int64_t> offset(static_cast<std::size_t>(rank), 0);
    for (int d = 0; d < rank; ++d) {
      const std::int64_t n = in_shape[d], t = out.shape()[d];
      offset[static_cast<std::size_t>(d)] = n >= t ? (n - t) / 2 : -((t - n) / 2);
    }
    const std::size_t esize = dtype_size(in.dtype());
    const std::vector<std::int64_t> strides = row_major_strides(in_shape);
    std::span<const std::byte> src = tensor_bytes(in);
    std::span<std::byte> dst = mutable_tensor_bytes(out);
    for_each_index(out.shape(), [&](const auto& index, std::int64_t flat) {
      std::int64_t from = 0;
      for (int d = 0; d < rank; ++d) {
        const std::int64_t i = index[static_cast<std::size_t>(d)] + offset[static_cast<std::size_t>(d)];
        if (i < 0 || i >= in_shape[d]) {
          for (std::size_t b = 0; b < esize; ++b) dst[static_cast<std::size_t>(flat) * esize + b] = std::byte{0};
          return;
        }
        from += i * strides[static_cast<std::size_t>(d)];
      }
      move_element(dst, flat, src, from, esize);
    });
  }

 private:
  // The output extents: the input's, with each listed axis set to its target.
  std::vector<std::int64_t> targets(const NodeInfo& node, const Shape& in, const Tensor& shape_value) const {
    const std::vector<std::int64_t> shape = read_ints(node, shape_value, "shape");
    std::vector<std::int64_t> axes = axes_;
    if (!has_axes_) {
      axes.clear();
      for (int d = 0; d < in.rank(); ++d) axes.push_back(d);
    }
    if (shape.size() != axes.size()) {
      node.fail_invalid("shape has " + std::to_string(shape.size()) + " entries for " + std::to_string(axes.size()) + " axes");
    }
    std::vector<std::int64_t> out = extents_of(in);
    std::vector<bool> seen(static_cast<std::size_t>(in.rank()), false);
    for (std::size_t k = 0; k < axes.size(); ++k) {
      const int d = normalize_axis(node, axes[k], in.rank());
      if (seen[static_cast<std::size_t>(d)]) node.fail_invalid("axis " + std::to_string(axes[k]) + " is listed twice");
      seen[static_cast<std::size_t>(d)] = true;
      if (shape[k] < 0) node.fail_invalid("target extent " + std::to_string(shape[k]) + " is negative");
      out[static_cast<std::size_t>(d)] = shape[k];  // make_shape refuses extents past the library's limits
    }
    return out;
  }

  bool has_axes_;
  std::vector<std::int64_t> axes_;
};

}  // namespace

std::unique_ptr<OpKernel> make_center_crop_pad(const NodeInfo& node) { return std::make_unique<CenterCropPad>(node); }

}  // namespace onemodel
