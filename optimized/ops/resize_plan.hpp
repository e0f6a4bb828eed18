// What the Resize override (op_resize.cpp) serves and the tables it runs with
// (spec/ops/products-conv.md section 10). Served: Resize 11 and later (the reference's Resize_10
// row is not overridden: its infer() never reads the scales input, so such nodes fail to load
// before any kernel runs), float32 rank-4 input, mode nearest or linear,
// any coordinate mode but tf_crop_and_resize, no axes attribute, scales (float32 or float64) or
// sizes under keep_aspect_ratio_policy "stretch", and N and C left alone (the reference skips an
// axis whose scale is exactly 1 with out == in). The per-axis plans are formed as the reference's
// plan() forms them (reference/ops/op_resize.cpp) and the tap tables are the reference's own
// (resize::axis_taps), so coordinates and weights are its float32 bits. Built once per plan in
// prepare() when scales/sizes are constants, so a run does not allocate; otherwise per run.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "core/graph/node_info.hpp"
#include "optimized/kernels/resize/resize.hpp"
#include "reference/ops/resize_core.hpp"

namespace onemodel::opt::resize_override {

// The attributes as the reference constructor reads them; `served` is false for cases the
// override leaves to the reference whatever the shapes (cubic, tf_crop_and_resize, axes).
struct Attributes {
  onemodel::resize::Options options;
  bool served = false;
  bool stretch = true;  // keep_aspect_ratio_policy
};

Attributes read_attributes(const NodeInfo& node);

struct Plan {
  bool served = false;
  std::array<std::int64_t, 4> in{};  // the input extents the plan was built for
  resize::Resize2dShape shape;
  std::vector<resize::AxisTap> h_taps, w_taps;
  bool matches(const Shape& x) const;
};

// values[1..3]: the values of inputs 1..3 (roi, scales, sizes), nullptr for an absent input;
// `unknown` marks a present input whose value is not known (prepare() of a non-constant input).
// A plan with served = false means "run the reference".
Plan build_plan(const NodeInfo& node, const Attributes& attributes, const Shape& x,
                const std::array<const Tensor*, 4>& values, const std::array<bool, 4>& unknown);

}  // namespace onemodel::opt::resize_override
