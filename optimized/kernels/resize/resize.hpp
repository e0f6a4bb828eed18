// Float32 Resize over the last two axes of [planes, H, W] (spec/ops/products-conv.md section 10,
// from ops-conv.md "Resize"), reading the input in place and writing the output directly. The
// per-axis tap tables come from the reference's own table builder (reference/ops/resize_core.hpp
// axis_taps, through optimized/ops/resize_plan.hpp), so coordinates and weights are its bits.
// Every output is the reference kernel's bits in both modes:
//  - nearest copies the element at (h index, w index) (section 10.3, a copy: payloads and signs
//    kept);
//  - linear resamples one axis at a time as the reference does (resample(): shrinking axes first,
//    then growing ones, each group in axis order, skipped axes untouched): each pass sums
//    weight * sample from +0 in tap order, leaving out taps of weight exactly zero, and stores NaN
//    canonical. The first pass's value is recomputed where the second pass reads it instead of
//    being stored, which gives the same float (a pure function of its inputs) without a buffer.
// No operation depends on the mode, so fast and exact mode give the same bits. Chunks are whole
// planes, their count a function of the shape only.
#pragma once

#include <cstdint>

#include "optimized/frame/kernel_context.hpp"

namespace onemodel::opt::resize {

// One output position's taps on one axis: nearest reads index0 only; linear sums
// weight0 * x[index0] then weight1 * x[index1] (the reference's two taps, in its order).
struct AxisTap {
  std::int64_t index0 = 0, index1 = 0;
  float weight0 = 1.0f, weight1 = 0.0f;
};

struct Resize2dShape {
  std::int64_t planes = 0;  // N * C
  std::int64_t in_h = 0, in_w = 0, out_h = 0, out_w = 0;
  bool linear = false;
  // false: the axis is skipped by the reference (scale exactly 1 and in == out): out index = in.
  bool resample_h = true, resample_w = true;
  // Linear with both axes resampled: W's pass runs first (W shrinks and H does not).
  bool w_first = false;
};

// h_taps: out_h entries (read only when resample_h), w_taps: out_w entries (when resample_w).
// x: planes * in_h * in_w floats; y: planes * out_h * out_w floats, not overlapping x.
void resize_2d_f32(const KernelContext& context, const Resize2dShape& shape, const AxisTap* h_taps,
                   const AxisTap* w_taps, const float* x, float* y);

}  // namespace onemodel::opt::resize
