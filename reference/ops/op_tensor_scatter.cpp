// TensorScatter (opset 24): present_cache = past_cache with, for every prefix index p of the axes
// before `axis` (batch b = p[0]), update[p, s, ...] written at cache position
// write_indices[b] + s along `axis` for s < sequence_length, modulo max_sequence_length in mode
// "circular" (ONNX TensorScatter text and pseudocode; spec/ops/shape-indexing.md section 2,
// TensorScatter). `axis` (default -2) in [-r, r) and not the batch axis 0; `mode` "linear"
// (default) or "circular"; update has past_cache's rank and extents except along the axis, where
// it is no longer; write_indices (optional, int64 [batch], zeros when absent) are checked at run
// time before any byte is written: negative, or in linear mode past max_sequence_length -
// sequence_length, is InvalidInput. Moves bytes: every stored type, exact.
#include <string>

#include "core/graph/op_kernel.hpp"
#include "reference/ops/axis_helpers.hpp"
#include "reference/ops/strided_copy.hpp"

namespace onemodel {
namespace {

using namespace shape_ops;

class TensorScatter final : public OpKernel {
 public:
  explicit TensorScatter(const NodeInfo& node) : axis_(node.get_int("axis", -2)), mode_(node.get_string("mode", "linear")) {
    if (mode_ != "linear" && mode_ != "circular") node.fail_invalid("mode '" + mode_ + "' is not linear or circular");
  }
  void infer(InferContext& context) const override {
    const NodeInfo& node = context.node();
    const Shape& past = context.input_shape(0);
    const Shape& update = context.input_shape(1);
    const int axis = normalize_axis(node, axis_, past.rank());
    if (axis == 0) node.fail_invalid("axis is the batch axis 0");
    if (context.input_type(1) != context.input_type(0)) node.fail_invalid("update's type differs from past_cache's");
    if (update.rank() != past.rank()) node.fail_invalid("update and past_cache differ in rank");
    for (int d = 0; d < past.rank(); ++d) {
      if (d == axis ? update[d] > past[d] : update[d] != past[d]) {
        node.fail_invalid("update extent " + std::to_string(update[d]) + " on axis " + std::to_string(d) +
                          (d == axis ? " exceeds" : " differs from") + " past_cache's " + std::to_string(past[d]));
      }
    }
    if (context.has_input(2)) {
      if (context.input_type(2) != DType::I64) node.fail_invalid("write_indices must be int64");
      const Shape& w = context.input_shape(2);
      if (w.rank() != 1 || w[0] != past[0]) node.fail_invalid("write_indices must have shape [" + std::to_string(past[0]) + "]");
    }
    context.set_output(0, context.input_type(0), past);
  }
  void run(RunContext& context) const override {
    const NodeInfo& node = context.node();
    const Tensor past = context.input(0).contiguous();
    const Tensor update = context.input(1).contiguous();
    const Shape& shape = past.shape();
    const int axis = normalize_axis(node, axis_, shape.rank());
    const std::int64_t max_len = shape[axis];
    const std::int64_t seq_len = update.shape()[axis];
    std::vector<std::int64_t> write(static_cast<std::size_t>(shape[0]), 0);
    if (context.has_input(2)) write = context.input(2).contiguous().to_vector<std::int64_t>();
    for (std::size_t b = 0; b < write.size(); ++b) {
      // max_len - seq_len >= 0 (checked in infer), so the linear bound cannot overflow.
      if (write[b] < 0 || (mode_ == "linear" && write[b] > max_len - seq_len)) {
        fail_index(node, "write_indices[" + std::to_string(b) + "] = " + std::to_string(write[b]) + " outside [0, " +
                             (mode_ == "linear" ? std::to_string(max_len - seq_len) + "] (linear mode)" : std::string("inf)")));
      }
    }
    const std::size_t esize = dtype_size(past.dtype());
    std::span<std::byte> dst = mutable_tensor_bytes(context.output(0));
    copy_view_into(past, context.output(0));
    std::span<const std::byte> src = tensor_bytes(update);
    // past as [prefix, max_len, inner], update as [prefix, seq_len, inner].
    std::int64_t batch_block = 1;  // prefix entries per batch entry
    for (int d = 1; d < axis; ++d) batch_block *= shape[d];
    std::int64_t inner = 1;
    for (int d = axis + 1; d < shape.rank(); ++d) inner *= shape[d];
    const std::int64_t prefixes = shape[0] * batch_block;
    for (std::int64_t p = 0; p < prefixes; ++p) {
      const std::int64_t start = write[static_cast<std::size_t>(p / batch_block)];
      for (std::int64_t s = 0; s < seq_len; ++s) {
        // start <= 2^63 - 1 and s < 2^31: in circular mode reduce start first so the sum fits.
        const std::int64_t at = mode_ == "circular" ? (start % max_len + s) % max_len : start + s;
        for (std::int64_t i = 0; i < inner; ++i) {
          move_element(dst, (p * max_len + at) * inner + i, src, (p * seq_len + s) * inner + i, esize);
        }
      }
    }
  }

 private:
  std::int64_t axis_;
  std::string mode_;
};

}  // namespace

std::unique_ptr<OpKernel> make_tensor_scatter(const NodeInfo& node) { return std::make_unique<TensorScatter>(node); }

}  // namespace onemodel
