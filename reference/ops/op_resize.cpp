// Resize, float32 (spec/ops/products-conv.md section 10, from ops-conv.md "Resize").
// Resize_10 (opset 10): inputs X and scales, mode nearest or linear, asymmetric coordinates and
// nearest mode floor. Resize_11 (opsets 11 and later): X, roi, scales, sizes; every coordinate
// mode (half_pixel_symmetric from 19), every nearest mode, cubic with cubic_coeff_a and
// exclude_outside, extrapolation_value, and from 18 axes and keep_aspect_ratio_policy.
// antialias = 1 (opset 18+): linear and cubic downscaling axes use the stretched filter of
// section 10.6 (resize_core.hpp); nearest and upscaling axes are unaffected.
#include <cmath>

#include "core/graph/op_kernel.hpp"
#include "onemodel/session_error.hpp"
#include "reference/ops/resize_core.hpp"

namespace onemodel {
namespace {

using resize::AxisPlan;
using resize::Mode;
using resize::Options;

Mode parse_mode(const NodeInfo& node, const std::string& mode, bool cubic_allowed) {
  if (mode == "nearest") return Mode::Nearest;
  if (mode == "linear" || mode == "bilinear") return Mode::Linear;
  if (mode == "cubic" && cubic_allowed) return Mode::Cubic;
  node.fail_invalid("mode '" + mode + "' is not handled");
}

std::vector<float> read_floats(const Tensor& t) {
  std::vector<float> out;
  if (t.dtype() == DType::F32) return t.to_vector<float>();
  if (t.dtype() == DType::F64) {
    for (double v : t.to_vector<double>()) out.push_back(static_cast<float>(v));
    return out;
  }
  throw SessionError(SessionErrorKind::Unsupported, "roi and scales must be float32 or float64");
}

std::vector<std::int64_t> read_sizes(const NodeInfo& node, const Tensor& t) {
  if (t.dtype() != DType::I64) node.fail_invalid("sizes must be int64");
  return t.to_vector<std::int64_t>();
}

class Resize final : public OpKernel {
 public:
  Resize(const NodeInfo& node, bool opset10) : opset10_(opset10) {
    options_.mode = parse_mode(node, node.get_string("mode", "nearest"), !opset10);
    if (opset10) {
      options_.coordinate = "asymmetric";
      options_.nearest = "floor";
      return;
    }
    options_.coordinate = node.get_string("coordinate_transformation_mode", "half_pixel");
    static const char* const modes[] = {"half_pixel", "pytorch_half_pixel", "align_corners", "asymmetric",
                                        "tf_crop_and_resize", "half_pixel_symmetric", "tf_half_pixel_for_nn"};
    bool known = false;
    for (const char* m : modes) known = known || options_.coordinate == m;
    if (!known) node.fail_invalid("coordinate_transformation_mode '" + options_.coordinate + "' is not known");
    if (options_.coordinate == "tf_half_pixel_for_nn") node.fail_unsupported("tf_half_pixel_for_nn");
    options_.nearest = node.get_string("nearest_mode", "round_prefer_floor");
    if (options_.nearest != "round_prefer_floor" && options_.nearest != "round_prefer_ceil" && options_.nearest != "floor" &&
        options_.nearest != "ceil") {
      node.fail_invalid("nearest_mode '" + options_.nearest + "' is not known");
    }
    options_.cubic_a = node.get_float("cubic_coeff_a", -0.75f);
    options_.exclude_outside = node.get_int("exclude_outside", 0) != 0;
    options_.extrapolation = node.get_float("extrapolation_value", 0.0f);
    const std::int64_t antialias = node.get_int("antialias", 0);
    if (antialias != 0 && antialias != 1) node.fail_invalid("antialias must be 0 or 1");
    options_.antialias = antialias == 1;
    axes_ = node.get_ints("axes");
    policy_ = node.get_string("keep_aspect_ratio_policy", "stretch");
    if (policy_ != "stretch" && policy_ != "not_larger" && policy_ != "not_smaller") {
      node.fail_invalid("keep_aspect_ratio_policy '" + policy_ + "' is not known");
    }
  }
  void infer(InferContext& context) const override {
    context.require_type(0, {DType::F32});
    std::vector<const Tensor*> values(4, nullptr);
    for (std::size_t i = 1; i < context.input_count() && i < 4; ++i) {
      if (!context.has_input(i)) continue;
      // From opset 11 input 1 is roi, read only by tf_crop_and_resize; Resize-10's input 1 is scales.
      if (i == 1 && !opset10_ && options_.coordinate != "tf_crop_and_resize") continue;
      values[i] = context.input_value(i);
      if (values[i] == nullptr) {
        context.require_runtime_values();
        return;
      }
    }
    const auto plans = plan(context.node(), context.input_shape(0), values);
    std::vector<std::int64_t> out;
    for (const AxisPlan& p : plans) out.push_back(p.out);
    context.set_output(0, DType::F32, Shape(std::span<const std::int64_t>(out)));
  }
  void run(RunContext& context) const override {
    const Tensor& x_t = context.input(0);
    std::vector<const Tensor*> values(4, nullptr);
    for (std::size_t i = 1; i < context.input_count() && i < 4; ++i) {
      if (context.has_input(i)) values[i] = &context.input(i);
    }
    const auto plans = plan(context.node(), x_t.shape(), values);
    const auto y = resize::resample(options_, x_t.to_vector<float>(), x_t.shape(), plans, &context.node());
    auto out = context.output(0).mutable_data<float>();
    for (std::size_t i = 0; i < y.size(); ++i) out[i] = y[i];
  }

 private:
  // values[1..3]: roi, scales, sizes (opset 10: values[1] is scales).
  std::vector<AxisPlan> plan(const NodeInfo& node, const Shape& x, const std::vector<const Tensor*>& values) const {
    const int rank = x.rank();
    std::vector<AxisPlan> plans(static_cast<std::size_t>(rank));
    for (int a = 0; a < rank; ++a) {
      plans[static_cast<std::size_t>(a)].in = x[a];
      plans[static_cast<std::size_t>(a)].out = x[a];
    }
    if (opset10_) {
      if (values[1] == nullptr) node.fail_invalid("scales is required");
      const auto scales = read_floats(*values[1]);
      if (static_cast<int>(scales.size()) != rank) node.fail_invalid("scales must have one entry per axis");
      for (int a = 0; a < rank; ++a) {
        AxisPlan& p = plans[static_cast<std::size_t>(a)];
        p.scale = scales[static_cast<std::size_t>(a)];
        p.out = resize::scaled_size(node, p.in, p.scale);
      }
      return plans;
    }
    // The listed axes (all, in order, when the attribute is absent).
    std::vector<int> axes;
    if (axes_.empty()) {
      for (int a = 0; a < rank; ++a) axes.push_back(a);
    } else {
      std::vector<bool> seen(static_cast<std::size_t>(rank), false);
      for (std::int64_t a : axes_) {
        if (a < -rank || a >= rank) node.fail_invalid("axis " + std::to_string(a) + " out of range");
        const int na = static_cast<int>(a < 0 ? a + rank : a);
        if (seen[static_cast<std::size_t>(na)]) node.fail_invalid("axis " + std::to_string(a) + " repeated");
        seen[static_cast<std::size_t>(na)] = true;
        axes.push_back(na);
      }
    }
    const std::size_t k = axes.size();
    const bool has_scales = values[2] != nullptr && values[2]->element_count() > 0;
    const bool has_sizes = values[3] != nullptr && values[3]->element_count() > 0;
    if (has_scales == has_sizes) node.fail_invalid("exactly one of scales and sizes must be given");
    if (options_.coordinate == "tf_crop_and_resize") {
      if (values[1] == nullptr) node.fail_invalid("tf_crop_and_resize needs roi");
      const auto roi = read_floats(*values[1]);
      if (roi.size() != 2 * k) node.fail_invalid("roi must have 2 entries per axis");
      for (std::size_t i = 0; i < k; ++i) {
        plans[static_cast<std::size_t>(axes[i])].roi_start = roi[i];
        plans[static_cast<std::size_t>(axes[i])].roi_end = roi[i + k];
      }
    }
    if (has_scales) {
      const auto scales = read_floats(*values[2]);
      if (scales.size() != k) node.fail_invalid("scales must have one entry per listed axis");
      for (std::size_t i = 0; i < k; ++i) {
        AxisPlan& p = plans[static_cast<std::size_t>(axes[i])];
        p.scale = scales[i];
        p.out = resize::scaled_size(node, p.in, p.scale);
      }
      return plans;
    }
    const auto sizes = read_sizes(node, *values[3]);
    if (sizes.size() != k) node.fail_invalid("sizes must have one entry per listed axis");
    for (std::int64_t s : sizes) {
      if (s < 0 || s > kMaxElements) node.fail_invalid("sizes entries must be non-negative");
    }
    // Section 10.1: an empty input axis has no sample to interpolate from, so it can only give an
    // empty output axis; sizes asking for more (the scale out / 0 is infinite, and every tap
    // index was -1: a crash in both engines) is refused, as is an empty axis under a
    // keep_aspect_ratio_policy (its ratio size / 0 means nothing). The input's extents and sizes are
    // run-time values: InvalidInput (spec/operator-contract.md section 5).
    for (std::size_t i = 0; i < k; ++i) {
      const std::int64_t in = plans[static_cast<std::size_t>(axes[i])].in;
      if (in == 0 && (sizes[i] > 0 || policy_ != "stretch")) {
        throw SessionError(SessionErrorKind::InvalidInput,
                           "Resize: axis " + std::to_string(axes[i]) + " of X is empty and cannot be resized to " +
                               std::to_string(sizes[i]) +
                               (policy_ != "stretch" ? " under keep_aspect_ratio_policy " + policy_ : std::string()),
                           node.name());
      }
    }
    if (policy_ == "stretch") {
      for (std::size_t i = 0; i < k; ++i) {
        AxisPlan& p = plans[static_cast<std::size_t>(axes[i])];
        p.out = sizes[i];
        p.scale = static_cast<float>(p.out) / static_cast<float>(p.in);
      }
      return plans;
    }
    // keep_aspect_ratio_policy: one scale, the smallest (not_larger) or largest (not_smaller)
    // of size / in over the listed axes; sizes in * scale rounded half away from zero.
    float scale = 0.0f;
    for (std::size_t i = 0; i < k; ++i) {
      const AxisPlan& p = plans[static_cast<std::size_t>(axes[i])];
      const float s = static_cast<float>(sizes[i]) / static_cast<float>(p.in);
      if (i == 0 || (policy_ == "not_larger" ? s < scale : s > scale)) scale = s;
    }
    for (std::size_t i = 0; i < k; ++i) {
      AxisPlan& p = plans[static_cast<std::size_t>(axes[i])];
      p.scale = scale;
      const float size = std::round(static_cast<float>(p.in) * scale);
      if (!(size >= 0.0f) || size > static_cast<float>(kMaxElements)) node.fail_unsupported("output extent beyond the library's limits");
      p.out = static_cast<std::int64_t>(size);
    }
    return plans;
  }

  bool opset10_;
  Options options_;
  std::vector<std::int64_t> axes_;
  std::string policy_ = "stretch";
};

}  // namespace

std::unique_ptr<OpKernel> make_resize_10(const NodeInfo& node) { return std::make_unique<Resize>(node, true); }
std::unique_ptr<OpKernel> make_resize_11(const NodeInfo& node) { return std::make_unique<Resize>(node, false); }

}  // namespace onemodel
