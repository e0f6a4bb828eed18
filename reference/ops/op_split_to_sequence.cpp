// SplitToSequence (opset 11+): the input split along `axis` into a sequence
// (spec/ops/control-flow.md section 2). Without `split`: pieces of length 1, the axis removed when
// keepdims is 0. A scalar `split`: pieces of that length, the last one shorter when the extent is
// not a multiple. A 1-D `split`: those lengths, which must add up to the extent (keepdims is then
// ignored, as ONNX says).
#include "reference/ops/sequence_helpers.hpp"

namespace onemodel {
namespace {

using namespace shape_ops;

class SplitToSequence final : public sequence_ops::DataDependentKernel {
 public:
  SplitToSequence(std::int64_t axis, bool keepdims) : axis_(axis), keepdims_(keepdims) {}
  void run(RunContext& context) const override {
    const NodeInfo& node = context.node();
    const Tensor& input = context.input(0);
    const int rank = input.rank();
    if (rank == 0) node.fail_invalid("the input is a scalar");
    const int axis = normalize_axis(node, axis_, rank);
    const std::int64_t extent = input.shape()[axis];
    std::vector<std::int64_t> lengths;
    bool squeeze = false;
    if (!context.has_input(1)) {
      lengths.assign(static_cast<std::size_t>(extent), 1);
      squeeze = !keepdims_;
    } else {
      const Tensor& split = context.input(1);
      const std::vector<std::int64_t> values = read_ints(node, split, "split");
      if (split.rank() == 0) {
        const std::int64_t piece = values[0];
        if (piece <= 0) fail_index(node, "split " + std::to_string(piece) + " is not positive");
        // Each step adds at most what is left of the extent, so `start` never passes it (a piece
        // near the int64 maximum would overflow `start + piece`).
        for (std::int64_t start = 0; start < extent; start += lengths.back()) {
          lengths.push_back(std::min(piece, extent - start));
        }
      } else {
        if (split.rank() != 1) node.fail_invalid("split must be a scalar or a 1-D tensor");
        std::int64_t total = 0;
        for (std::int64_t v : values) {
          if (v < 0) fail_index(node, "negative split length " + std::to_string(v));
          // Checked before adding: a length near the int64 maximum would overflow the sum
          // (found by the operator fuzz property with UBSan).
          if (v > extent - total) {
            fail_index(node, "split lengths add up to more than the axis's " + std::to_string(extent));
          }
          total += v;
        }
        if (total != extent) {
          fail_index(node, "split lengths add up to " + std::to_string(total) + ", the axis has " + std::to_string(extent));
        }
        lengths = values;
      }
    }
    std::vector<Tensor> pieces;
    pieces.reserve(lengths.size());
    std::int64_t start = 0;
    for (std::int64_t length : lengths) {
      Tensor piece = input.slice(axis, start, start + length).contiguous();
      if (squeeze) piece = piece.squeeze(axis).contiguous();
      pieces.push_back(std::move(piece));
      start += length;
    }
    set_output_value(context, 0, Value::sequence(input.dtype(), std::move(pieces)));
  }

 private:
  std::int64_t axis_;
  bool keepdims_;
};

}  // namespace

std::unique_ptr<OpKernel> make_split_to_sequence(const NodeInfo& node) {
  return std::make_unique<SplitToSequence>(node.get_int("axis", 0), node.get_int("keepdims", 1) != 0);
}

}  // namespace onemodel
