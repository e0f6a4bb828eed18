// Legacy (opset 6 and earlier) broadcasting: spec/ops/elementwise.md section 11.
#include "reference/ops/legacy_broadcast.hpp"

#include <optional>
#include <string>
#include <vector>

#include "core/graph/node_info.hpp"

namespace onemodel {

Shape legacy_aligned_shape(const NodeInfo& node, const Shape& left, const Shape& right) {
  const std::int64_t broadcast = node.get_int("broadcast", 0);
  if (broadcast != 0 && broadcast != 1) {
    node.fail_invalid("broadcast must be 0 or 1, got " + std::to_string(broadcast));
  }
  const std::string shapes = "left " + left.to_string() + ", right " + right.to_string();
  if (broadcast == 0) {
    if (!(left == right)) node.fail_invalid("without broadcast = 1 the operands need one shape (" + shapes + ")");
    return right;
  }
  if (right.rank() > left.rank()) node.fail_invalid("the right operand has a higher rank than the left (" + shapes + ")");
  // One element: it meets every element of the left operand.
  if (right.element_count() == 1) return Shape(std::vector<std::int64_t>(static_cast<std::size_t>(left.rank()), 1));
  std::int64_t axis = left.rank() - right.rank();  // suffix matching when `axis` is absent
  if (node.has("axis")) {
    axis = node.get_int("axis", 0);
    if (axis < 0) axis += left.rank();  // ONNX allows a negative axis counted from the end
    if (axis < 0 || axis + right.rank() > left.rank()) {
      node.fail_invalid("axis " + std::to_string(node.get_int("axis", 0)) + " does not place the right operand inside the left (" +
                        shapes + ")");
    }
  }
  std::vector<std::int64_t> aligned(static_cast<std::size_t>(left.rank()), 1);
  for (int i = 0; i < right.rank(); ++i) {
    const std::int32_t want = left[static_cast<int>(axis) + i];
    const std::int32_t have = right[i];
    if (have != want && have != 1) {
      node.fail_invalid("the right operand's extent " + std::to_string(have) + " at its axis " + std::to_string(i) +
                        " meets the left's " + std::to_string(want) + " (" + shapes + ", axis " + std::to_string(axis) + ")");
    }
    aligned[static_cast<std::size_t>(axis + i)] = have;
  }
  return Shape(std::span<const std::int64_t>(aligned.data(), aligned.size()));
}

Shape legacy_slope_shape(const NodeInfo& node, const Shape& x, const Shape& slope) {
  if (slope.element_count() == 1 && slope.rank() <= x.rank()) {
    return Shape(std::vector<std::int64_t>(static_cast<std::size_t>(x.rank()), 1));
  }
  if (slope == x) return slope;
  if (slope.rank() == 1 && x.rank() >= 2 && slope[0] == x[1]) {
    std::vector<std::int64_t> aligned(static_cast<std::size_t>(x.rank()), 1);
    aligned[1] = slope[0];
    return Shape(std::span<const std::int64_t>(aligned.data(), aligned.size()));
  }
  node.fail_invalid("the slope " + slope.to_string() + " is neither one value, the input's shape " + x.to_string() +
                    " nor one value per channel (axis 1)");
}

namespace {

class LegacyBroadcastKernel final : public OpKernel {
 public:
  LegacyBroadcastKernel(std::unique_ptr<OpKernel> current, std::size_t left, std::size_t right, LegacyAlignment align)
      : current_(std::move(current)), left_(left), right_(right), align_(align) {
    supports_exact = current_->supports_exact;
    float64_exact = current_->float64_exact;
  }

  void infer(InferContext& context) const override {
    std::vector<InferInput> shown(context.inputs().begin(), context.inputs().end());
    std::optional<Tensor> view;  // the right operand's constant value, reshaped; lives through infer
    if (context.has_input(left_) && context.has_input(right_)) {
      InferInput& right = shown[right_];
      right.shape = align_(context.node(), context.input_shape(left_), context.input_shape(right_));
      if (right.value != nullptr) {
        view = right.value->try_reshape(right.shape);
        right.value = view ? &*view : nullptr;
      }
    }
    context.infer_as(shown, [&](InferContext& inner) { current_->infer(inner); });
  }

  void run(RunContext& context) const override {
    std::vector<Tensor> inputs;
    inputs.reserve(context.input_count());
    for (std::size_t i = 0; i < context.input_count(); ++i) {
      inputs.push_back(context.has_input(i) ? context.input(i) : Tensor());
    }
    if (context.has_input(left_) && context.has_input(right_)) {
      const Shape aligned = align_(context.node(), inputs[left_].shape(), inputs[right_].shape());
      inputs[right_] = inputs[right_].reshape(std::span<const std::int64_t>(extents(aligned)));
    }
    RunContext inner = context.with_inputs(inputs);
    current_->run(inner);
  }

 private:
  static std::vector<std::int64_t> extents(const Shape& shape) {
    return std::vector<std::int64_t>(shape.extents().begin(), shape.extents().end());
  }

  std::unique_ptr<OpKernel> current_;
  std::size_t left_;
  std::size_t right_;
  LegacyAlignment align_;
};

}  // namespace

std::unique_ptr<OpKernel> make_legacy_broadcast(std::unique_ptr<OpKernel> current, std::size_t left_input,
                                                std::size_t right_input, LegacyAlignment align) {
  return std::make_unique<LegacyBroadcastKernel>(std::move(current), left_input, right_input, align);
}

}  // namespace onemodel
