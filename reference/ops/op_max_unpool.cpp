// MaxUnpool (opsets 9, 11, 22; 11 added output_shape's rule, 22 only types): the partial inverse
// of MaxPool (ONNX MaxUnpool text; spec/ops/products-conv.md section 12). X [N, C, D1...] (1 to 3
// spatial axes) and int64 indices I of X's shape; attributes kernel_shape (required), strides
// (default 1), pads (default 0, begins then ends). The unpooled extent of spatial axis d is
// (X_d - 1) * stride - (pad_begin + pad_end) + kernel. A zero tensor U of shape
// [N, C, unpooled...] receives, in row-major order of X, U.flat[I[i]] = X[i] (the indices are
// linear over the whole of U, as MaxPool's Indices output; a later equal index overwrites). The
// output is U, or with output_shape (int64 [rank]; pads are then not used for the placement) U at
// the start of every axis of a zero tensor of that shape, which must be at least U's on every axis
// (the onnx reference evaluator's reading, which the backend case
// test_maxunpool_export_with_output_shape confirms). An index outside [0, size of U) is
// InvalidInput at run time, checked before any byte is written. Moves bytes: f32, f64, f16, bf16;
// exact.
#include <string>

#include "core/graph/op_kernel.hpp"
#include "reference/ops/axis_helpers.hpp"
#include "reference/ops/strided_copy.hpp"

namespace onemodel {
namespace {

using namespace shape_ops;

class MaxUnpool final : public OpKernel {
 public:
  explicit MaxUnpool(const NodeInfo& node)
      : kernel_(node.get_ints("kernel_shape")), strides_(node.get_ints("strides")), pads_(node.get_ints("pads")) {
    if (kernel_.empty()) node.fail_invalid("attribute 'kernel_shape' is required");
    const std::size_t r = kernel_.size();
    if (!strides_.empty() && strides_.size() != r) node.fail_invalid("strides must have " + std::to_string(r) + " entries");
    if (!pads_.empty() && pads_.size() != 2 * r) node.fail_invalid("pads must have " + std::to_string(2 * r) + " entries");
    for (std::int64_t k : kernel_) {
      if (k < 1 || k > kMaxElements) node.fail_invalid("kernel_shape entry " + std::to_string(k) + " is not positive");
    }
    for (std::int64_t s : strides_) {
      if (s < 1 || s > kMaxElements) node.fail_invalid("stride " + std::to_string(s) + " is not positive");
    }
    for (std::int64_t p : pads_) {
      if (p < 0 || p > kMaxElements) node.fail_invalid("pad " + std::to_string(p) + " is negative or too large");
    }
  }
  void infer(InferContext& context) const override {
    const NodeInfo& node = context.node();
    context.require_type(0, {DType::F32, DType::F64, DType::F16, DType::BF16});
    if (context.input_type(1) != DType::I64) node.fail_invalid("I must be int64");
    const Shape& x = context.input_shape(0);
    if (!(context.input_shape(1) == x)) node.fail_invalid("I must have X's shape");
    const std::vector<std::int64_t> unpooled = unpooled_extents(node, x);
    std::vector<std::int64_t> out = unpooled;
    if (context.has_input(2)) {
      const Tensor* shape_value = value_or_defer(context, 2);
      if (shape_value == nullptr) return;
      out = output_extents(node, unpooled, *shape_value);
    }
    context.set_output(0, context.input_type(0), make_shape(node, out));
  }
  void run(RunContext& context) const override {
    const NodeInfo& node = context.node();
    const Tensor x = context.input(0).contiguous();
    const std::vector<std::int64_t> indices = context.input(1).contiguous().to_vector<std::int64_t>();
    const Tensor& out = context.output(0);
    const std::vector<std::int64_t> unpooled = unpooled_extents(node, x.shape());
    std::int64_t size = 1;
    for (std::int64_t e : unpooled) size *= e;  // make_shape in infer() bounded the output, which holds U
    for (std::size_t i = 0; i < indices.size(); ++i) {
      if (indices[i] < 0 || indices[i] >= size) {
        fail_index(node, "index " + std::to_string(indices[i]) + " at element " + std::to_string(i) + " outside [0, " +
                             std::to_string(size) + ")");
      }
    }
    const std::size_t esize = dtype_size(x.dtype());
    std::span<const std::byte> src = tensor_bytes(x);
    std::span<std::byte> dst = mutable_tensor_bytes(out);
    for (auto& b : dst) b = std::byte{0};
    // U's flat index -> the output's flat index (U sits at the start of every axis).
    const Shape& out_shape = out.shape();
    const int rank = out_shape.rank();
    for (std::size_t i = 0; i < indices.size(); ++i) {
      std::int64_t u = indices[i];
      std::int64_t to = 0, scale = 1;
      for (int d = rank - 1; d >= 0; --d) {
        const std::int64_t e = unpooled[static_cast<std::size_t>(d)];
        to += (u % e) * scale;
        u /= e;
        scale *= out_shape[d];
      }
      move_element(dst, to, src, static_cast<std::int64_t>(i), esize);
    }
  }

 private:
  std::vector<std::int64_t> unpooled_extents(const NodeInfo& node, const Shape& x) const {
    const std::size_t r = kernel_.size();
    if (x.rank() < 3 || static_cast<std::size_t>(x.rank()) != r + 2) {
      node.fail_invalid("X must have rank " + std::to_string(r + 2) + " (N, C and one axis per kernel_shape entry), not " +
                        std::to_string(x.rank()));
    }
    std::vector<std::int64_t> out{x[0], x[1]};
    for (std::size_t d = 0; d < r; ++d) {
      const std::int64_t stride = strides_.empty() ? 1 : strides_[d];
      const std::int64_t pads = pads_.empty() ? 0 : pads_[d] + pads_[d + r];
      // Every term below 2^31: the extent fits 64 bits; make_shape refuses it past the limits.
      const std::int64_t e = (x[static_cast<int>(d) + 2] - 1) * stride - pads + kernel_[d];
      if (e < 0) node.fail_invalid("unpooled extent " + std::to_string(e) + " on spatial axis " + std::to_string(d) + " is negative");
      out.push_back(e);
    }
    return out;
  }
  static std::vector<std::int64_t> output_extents(const NodeInfo& node, const std::vector<std::int64_t>& unpooled,
                                                  const Tensor& shape_value) {
    if (shape_value.dtype() != DType::I64 || shape_value.rank() != 1) node.fail_invalid("output_shape must be an int64 vector");
    const std::vector<std::int64_t> out = shape_value.contiguous().to_vector<std::int64_t>();
    if (out.size() != unpooled.size()) {
      node.fail_invalid("output_shape has " + std::to_string(out.size()) + " entries, X's rank is " + std::to_string(unpooled.size()));
    }
    for (std::size_t d = 0; d < out.size(); ++d) {
      if (out[d] < unpooled[d]) {
        node.fail_invalid("output_shape[" + std::to_string(d) + "] = " + std::to_string(out[d]) + " is below the unpooled extent " +
                          std::to_string(unpooled[d]));
      }
    }
    return out;
  }

  std::vector<std::int64_t> kernel_, strides_, pads_;
};

}  // namespace

std::unique_ptr<OpKernel> make_max_unpool(const NodeInfo& node) { return std::make_unique<MaxUnpool>(node); }

}  // namespace onemodel
