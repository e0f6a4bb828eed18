// Slice's rules (spec/ops/shape-indexing.md section 3), shared by the reference kernel
// (reference/ops/op_slice.cpp) and the optimized override (optimized/ops/op_slice.cpp), so the
// clamping, the end sentinels and every refusal are written once: the override copies the view
// slice_view() returns, the reference copies it element by element.
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <vector>

#include "core/graph/op_kernel.hpp"
#include "reference/ops/axis_helpers.hpp"

namespace onemodel::shape_ops {

// One sliced axis after the rules: first element, count, step (non-zero, within int32).
struct AxisRange {
  std::int64_t start = 0;
  std::int64_t count = 0;
  std::int64_t step = 1;
};

inline AxisRange resolve_range(std::int64_t start, std::int64_t end, std::int64_t step, std::int64_t n) {
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

// The attribute form's operands (Slice_1), read once when the kernel is made.
struct SliceSpec {
  std::vector<std::int64_t> starts, ends, axes, steps;
};

// The operands as the rules read them (attribute vectors or input values); axes and steps may be
// empty. Views only: a warm run reads its input operands without a heap allocation.
struct SliceArgs {
  std::span<const std::int64_t> starts, ends, axes, steps;
};

inline SliceArgs args_of(const SliceSpec& spec) { return SliceArgs{spec.starts, spec.ends, spec.axes, spec.steps}; }

// The input operands' values (Slice_10), held in place for ranks up to 8 (IntValues).
struct SliceInputs {
  IntValues starts, ends, axes, steps;
  SliceArgs args() const { return SliceArgs{starts.span(), ends.span(), axes.span(), steps.span()}; }
};

// The view of `data` the slice selects (flip for negative steps, then a strided slice).
inline Tensor slice_view(const NodeInfo& node, const Tensor& data, const SliceArgs& spec) {
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

// starts, ends and the optional axes and steps from inputs 1-4 (Slice_10) into `inputs`; get(i)
// gives input i or nullptr when it is omitted.
template <class Get>
void read_slice_inputs(const NodeInfo& node, SliceInputs& inputs, Get&& get) {
  inputs.starts.read(node, *get(1), "starts");
  inputs.ends.read(node, *get(2), "ends");
  if (const Tensor* t = get(3)) inputs.axes.read(node, *t, "axes");
  if (const Tensor* t = get(4)) inputs.steps.read(node, *t, "steps");
}

}  // namespace onemodel::shape_ops
