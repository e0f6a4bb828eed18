// Unsqueeze: inserts extent-1 axes (spec/ops/shape-indexing.md section 2, Unsqueeze). The axes index
// the output (negative counted from the output's end); duplicates are InvalidModel; the output rank
// is at most 8. Attribute before opset 13 (Unsqueeze_1), required input from 13 (Unsqueeze_13).
// A view of the input.
#include "core/graph/op_kernel.hpp"
#include "reference/ops/axis_helpers.hpp"
#include "reference/ops/strided_copy.hpp"

namespace onemodel {
namespace {

using namespace shape_ops;

class Unsqueeze final : public OpKernel {
 public:
  Unsqueeze(std::vector<std::int64_t> axes, bool from_input) : axes_(std::move(axes)), from_input_(from_input) {
    view_of_input = true;
    string_elements = true;  // copies elements of any type (spec/tensors.md section 8)
  }
  void infer(InferContext& context) const override {
    const NodeInfo& node = context.node();
    std::vector<std::int64_t> axes = axes_;
    if (from_input_) {
      const Tensor* value = value_or_defer(context, 1);
      if (value == nullptr) return;
      axes = read_ints(node, *value, "axes");
    }
    const Shape& in = context.input_shape(0);
    const std::int64_t out_rank = in.rank() + static_cast<std::int64_t>(axes.size());
    if (out_rank > kMaxRank) node.fail_unsupported("output rank " + std::to_string(out_rank) + " exceeds 8");
    std::vector<bool> inserted(static_cast<std::size_t>(out_rank), false);
    for (std::int64_t a : axes) {
      const int axis = normalize_axis(node, a, static_cast<int>(out_rank));
      if (inserted[static_cast<std::size_t>(axis)]) node.fail_invalid("axis " + std::to_string(a) + " listed twice");
      inserted[static_cast<std::size_t>(axis)] = true;
    }
    std::vector<std::int64_t> out;
    int next = 0;
    for (std::int64_t d = 0; d < out_rank; ++d) {
      out.push_back(inserted[static_cast<std::size_t>(d)] ? 1 : in[next++]);
    }
    context.set_output(0, context.input_type(0), make_shape(node, out));
  }
  void run(RunContext& context) const override { context.input(0).copy_elements_to(context.output(0)); }

 private:
  std::vector<std::int64_t> axes_;
  bool from_input_;
};

}  // namespace

std::unique_ptr<OpKernel> make_unsqueeze_1(const NodeInfo& node) {
  if (!node.has("axes")) node.fail_invalid("attribute 'axes' is required");
  return std::make_unique<Unsqueeze>(node.get_ints("axes"), false);
}

std::unique_ptr<OpKernel> make_unsqueeze_13(const NodeInfo&) { return std::make_unique<Unsqueeze>(std::vector<std::int64_t>{}, true); }

}  // namespace onemodel
