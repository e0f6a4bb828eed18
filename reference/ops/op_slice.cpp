// Slice (spec/ops/shape-indexing.md section 3): starts, ends, axes from attributes (Slice_1,
// opsets 1-9) or inputs with optional axes and steps (Slice_10, opset 10+). Per listed axis of
// extent n: negative start/end add n; for a positive step both clamp to [0, n]; for a negative step
// the start clamps to [0, n-1] and the end to [-1, n-1]; with a negative step an end of exactly
// INT32_MAX or INT64_MAX means "to the beginning" like INT_MIN (ONNX Runtime's reading). The step
// is clamped to the int32 range; step 0 is InvalidModel. Count = ceil(|end - start| / |step|), at
// least 0. Axes may be negative and must not repeat; unlisted axes are taken whole. The copy goes
// through a flipped / strided view (the rules: reference/ops/slice_view.hpp).
#include "core/graph/op_kernel.hpp"
#include "reference/ops/axis_helpers.hpp"
#include "reference/ops/slice_view.hpp"
#include "reference/ops/strided_copy.hpp"

namespace onemodel {
namespace {

using namespace shape_ops;

class Slice final : public OpKernel {
 public:
  // attribute form when `attribute_spec` is set (opsets 1-9)
  explicit Slice(std::optional<SliceSpec> attribute_spec) : attribute_spec_(std::move(attribute_spec)) {
    string_elements = true;  // moves elements of any type (spec/tensors.md section 8)
  }

  void infer(InferContext& context) const override {
    const NodeInfo& node = context.node();
    SliceInputs inputs;
    SliceArgs spec;
    if (attribute_spec_) {
      spec = args_of(*attribute_spec_);
    } else {
      for (std::size_t i = 1; i < 5; ++i) {
        if (context.has_input(i) && value_or_defer(context, i) == nullptr) return;
      }
      read_slice_inputs(node, inputs, [&](std::size_t i) { return context.has_input(i) ? context.input_value(i) : nullptr; });
      spec = inputs.args();
    }
    // The view's shape is the output shape; an empty stand-in tensor of the input's shape suffices
    // to compute it (the reference engine always has the value; otherwise build one).
    // Only a stand-in for the shape: the data never decides a refusal (spec/errors.md 3.2).
    const Tensor* data = context.known_value(0);
    Tensor stand_in;
    if (data == nullptr) {
      stand_in = Tensor::empty(context.input_type(0), context.input_shape(0));
      data = &stand_in;
    }
    context.set_output(0, context.input_type(0), slice_view(node, *data, spec).shape());
  }

  void run(RunContext& context) const override {
    const NodeInfo& node = context.node();
    SliceInputs inputs;
    SliceArgs spec;
    if (attribute_spec_) {
      spec = args_of(*attribute_spec_);
    } else {
      read_slice_inputs(node, inputs, [&](std::size_t i) { return context.has_input(i) ? &context.input(i) : nullptr; });
      spec = inputs.args();
    }
    copy_view_into(slice_view(node, context.input(0), spec), context.output(0));
  }

 private:
  std::optional<SliceSpec> attribute_spec_;
};

}  // namespace

std::unique_ptr<OpKernel> make_slice_1(const NodeInfo& node) {
  SliceSpec spec;
  spec.starts = node.get_ints("starts");
  spec.ends = node.get_ints("ends");
  if (!node.has("starts") || !node.has("ends")) node.fail_invalid("attributes 'starts' and 'ends' are required");
  spec.axes = node.get_ints("axes");
  return std::make_unique<Slice>(std::move(spec));
}

std::unique_ptr<OpKernel> make_slice_10(const NodeInfo&) { return std::make_unique<Slice>(std::nullopt); }

}  // namespace onemodel
