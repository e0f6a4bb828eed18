// Slice (spec/ops/shape-indexing.md section 3): starts, ends, axes from attributes (Slice_1,
// opsets 1-9) or inputs with optional axes and steps (Slice_10, opset 10+). Per listed axis of
// extent n: negative start/end add n; for a positive step both clamp to [0, n]; for a negative step
// the start clamps to [0, n-1] and the end to [-1, n-1]; with a negative step an end of exactly
// INT32_MAX or INT64_MAX means "to the beginning" like INT_MIN (ONNX Runtime's reading). The step
// is clamped to the int32 range; step 0 is InvalidModel. Count = ceil(|end - start| / |step|), at
// least 0. Axes may be negative and must not repeat; unlisted axes are taken whole. The copy goes
// through a flipped / strided view.
#include <algorithm>
#include <array>
#include <limits>
#include <span>

#include "core/graph/op_kernel.hpp"
#include "reference/ops/axis_helpers.hpp"
#include "reference/ops/strided_copy.hpp"

namespace onemodel {
namespace {

using namespace shape_ops;

// One sliced axis after the rules: first element, count, step (non-zero, within int32).
struct AxisRange {
  std::int64_t start = 0;
  std::int64_t count = 0;
  std::int64_t step = 1;
};

AxisRange resolve_range(std::int64_t start, std::int64_t end, std::int64_t step, std::int64_t n) {
  constexpr std::int64_t kI32Max = std::numeric_limits<std::int32_t>::max();
  constexpr std::int64_t kI32Min = std::numeric_limits<std::int32_t>::min();
  constexpr std::int64_t kI64Max = std::numeric_limits<std::int64_t>::max();
  AxisRange r;
  r.step = std::clamp(step, kI32Min, kI32Max);
  if (n == 0) return r;  // an axis of extent 0 gives an empty result
  if (r.step > 0) {
    if (start < 0) start += n;
    if (end < 0) end += n;
    start = std::clamp<std::int64_t>(start, 0, n);
    end = std::clamp<std::int64_t>(end, 0, n);
    r.start = start;
    r.count = end > start ? (end - start + r.step - 1) / r.step : 0;
  } else {
    const bool to_beginning = end == kI32Max || end == kI64Max;  // section 3, the end sentinels
    if (start < 0) start += n;
    if (end < 0) end += n;
    start = std::clamp<std::int64_t>(start, 0, n - 1);
    end = to_beginning ? -1 : std::clamp<std::int64_t>(end, -1, n - 1);
    const std::int64_t stride = -r.step;
    r.start = start;
    r.count = start > end ? (start - end + stride - 1) / stride : 0;
  }
  return r;
}

struct SliceSpec {
  std::vector<std::int64_t> starts, ends, axes, steps;
};

// The operands as read (attribute vectors or input values); axes and steps may be empty.
struct SliceArgs {
  std::span<const std::int64_t> starts, ends, axes, steps;
};

// The view of `data` the slice selects (flip for negative steps, then a strided slice).
Tensor slice_view(const NodeInfo& node, const Tensor& data, const SliceArgs& spec) {
  const int rank = data.rank();
  const std::size_t k = spec.starts.size();
  if (spec.ends.size() != k) node.fail_invalid("starts and ends differ in length");
  if (!spec.axes.empty() && spec.axes.size() != k) node.fail_invalid("axes differ in length from starts");
  if (!spec.steps.empty() && spec.steps.size() != k) node.fail_invalid("steps differ in length from starts");
  std::array<bool, kMaxRank> seen{};  // rank <= kMaxRank for every tensor
  Tensor view = data;
  for (std::size_t i = 0; i < k; ++i) {
    const int axis = spec.axes.empty() ? static_cast<int>(i) : normalize_axis(node, spec.axes[i], rank);
    if (axis >= rank) node.fail_invalid("more starts than axes");
    if (seen[static_cast<std::size_t>(axis)]) node.fail_invalid("axis " + std::to_string(axis) + " listed twice");
    seen[static_cast<std::size_t>(axis)] = true;
    const std::int64_t step = spec.steps.empty() ? 1 : spec.steps[i];
    if (step == 0) node.fail_invalid("step 0");
    const std::int64_t n = data.shape()[axis];
    const AxisRange r = resolve_range(spec.starts[i], spec.ends[i], step, n);
    if (r.count == 0) {
      view = view.slice(axis, 0, 0, 1);
    } else if (r.step > 0) {
      view = view.slice(axis, r.start, r.start + (r.count - 1) * r.step + 1, r.step);
    } else {
      const std::int64_t first = n - 1 - r.start;  // position of `start` once the axis is flipped
      view = view.flip(axis).slice(axis, first, first + (r.count - 1) * -r.step + 1, -r.step);
    }
  }
  return view;
}

// The input operands' values, read without a heap allocation for ranks up to 8.
struct SliceInputs {
  IntValues starts, ends, axes, steps;
  SliceArgs args() const { return SliceArgs{starts.span(), ends.span(), axes.span(), steps.span()}; }
};

SliceArgs args_of(const SliceSpec& spec) { return SliceArgs{spec.starts, spec.ends, spec.axes, spec.steps}; }

class Slice final : public OpKernel {
 public:
  // attribute form when `attribute_spec` is set (opsets 1-9)
  explicit Slice(std::optional<SliceSpec> attribute_spec) : attribute_spec_(std::move(attribute_spec)) {}

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
      read_inputs(node, inputs, [&](std::size_t i) { return context.has_input(i) ? context.input_value(i) : nullptr; });
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
      read_inputs(node, inputs, [&](std::size_t i) { return context.has_input(i) ? &context.input(i) : nullptr; });
      spec = inputs.args();
    }
    copy_view_into(slice_view(node, context.input(0), spec), context.output(0));
  }

 private:
  template <class Get>
  static void read_inputs(const NodeInfo& node, SliceInputs& out, Get&& get) {
    out.starts.read(node, *get(1), "starts");
    out.ends.read(node, *get(2), "ends");
    if (const Tensor* t = get(3)) out.axes.read(node, *t, "axes");
    if (const Tensor* t = get(4)) out.steps.read(node, *t, "steps");
  }
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
