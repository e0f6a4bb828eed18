// Squeeze: removes extent-1 axes (spec/ops/shape-indexing.md section 2, Squeeze). The axes are an
// attribute before opset 13 (Squeeze_1) and an optional input from 13 (Squeeze_13); none given
// means every extent-1 axis. An axis whose extent is not 1, or one listed twice, is InvalidModel.
// A view of the input.
#include <optional>

#include "core/graph/op_kernel.hpp"
#include "reference/ops/axis_helpers.hpp"
#include "reference/ops/strided_copy.hpp"

namespace onemodel {
namespace {

using namespace shape_ops;

Shape squeezed(const NodeInfo& node, const Shape& in, const std::optional<std::vector<std::int64_t>>& axes) {
  std::vector<bool> drop(static_cast<std::size_t>(in.rank()), false);
  if (axes) {
    for (std::int64_t a : *axes) {
      const int axis = normalize_axis(node, a, in.rank());
      if (drop[static_cast<std::size_t>(axis)]) node.fail_invalid("axis " + std::to_string(a) + " listed twice");
      if (in[axis] != 1) {
        node.fail_invalid("axis " + std::to_string(a) + " has extent " + std::to_string(in[axis]) + ", not 1");
      }
      drop[static_cast<std::size_t>(axis)] = true;
    }
  } else {
    for (int d = 0; d < in.rank(); ++d) drop[static_cast<std::size_t>(d)] = in[d] == 1;
  }
  std::vector<std::int64_t> out;
  for (int d = 0; d < in.rank(); ++d) {
    if (!drop[static_cast<std::size_t>(d)]) out.push_back(in[d]);
  }
  return make_shape(node, out);
}

class Squeeze final : public OpKernel {
 public:
  // `axes` set: the attribute form (opset 1-12).
  explicit Squeeze(std::optional<std::vector<std::int64_t>> attribute_axes, bool axes_from_input)
      : attribute_axes_(std::move(attribute_axes)), axes_from_input_(axes_from_input) {
    view_of_input = true;
    string_elements = true;  // copies elements of any type (spec/tensors.md section 8)
  }
  void infer(InferContext& context) const override {
    std::optional<std::vector<std::int64_t>> axes = attribute_axes_;
    if (axes_from_input_ && context.has_input(1)) {
      const Tensor* value = value_or_defer(context, 1);
      if (value == nullptr) return;
      // spec/ops/shape-indexing.md section 2: a scalar axes input is one axis (ops-coverage.md).
      axes = read_ints(context.node(), *value, "axes");
    }
    context.set_output(0, context.input_type(0), squeezed(context.node(), context.input_shape(0), axes));
  }
  void run(RunContext& context) const override { context.input(0).copy_elements_to(context.output(0)); }

 private:
  std::optional<std::vector<std::int64_t>> attribute_axes_;
  bool axes_from_input_;
};

}  // namespace

std::unique_ptr<OpKernel> make_squeeze_1(const NodeInfo& node) {
  std::optional<std::vector<std::int64_t>> axes;
  if (node.has("axes")) axes = node.get_ints("axes");
  return std::make_unique<Squeeze>(std::move(axes), false);
}

std::unique_ptr<OpKernel> make_squeeze_13(const NodeInfo&) { return std::make_unique<Squeeze>(std::nullopt, true); }

}  // namespace onemodel
