// Plans of the Resize override (resize_plan.hpp; spec/ops/products-conv.md section 10).
#include "optimized/ops/resize_plan.hpp"

#include <cmath>

namespace onemodel::opt::resize_override {
namespace {

using onemodel::resize::AxisPlan;
using onemodel::resize::Mode;

// Entry i of a float32 or float64 vector as the reference's read_floats gives it (float64
// narrowed to float32). False for other types, views and short vectors.
bool read_float(const Tensor& t, std::size_t i, float& out) {
  if (!t.is_contiguous() || static_cast<std::size_t>(t.element_count()) <= i) return false;
  if (t.dtype() == DType::F32) {
    out = t.data<float>()[i];
    return true;
  }
  if (t.dtype() == DType::F64) {
    out = static_cast<float>(t.data<double>()[i]);
    return true;
  }
  return false;
}

// The reference's per-output taps converted to the kernel's table.
std::vector<resize::AxisTap> taps_of(const onemodel::resize::Options& o, const AxisPlan& p, bool& ok) {
  const auto table = onemodel::resize::axis_taps(o, p);
  std::vector<resize::AxisTap> out(table.size());
  const std::size_t want = o.mode == Mode::Nearest ? 1 : 2;
  for (std::size_t j = 0; j < table.size(); ++j) {
    const auto& taps = table[j].taps;
    if (taps.size() != want) {
      ok = false;
      return {};
    }
    out[j].index0 = taps[0].index;
    out[j].weight0 = taps[0].weight;
    if (want == 2) {
      out[j].index1 = taps[1].index;
      out[j].weight1 = taps[1].weight;
    } else {
      out[j].index1 = taps[0].index;
      out[j].weight1 = 0.0f;
    }
  }
  return out;
}

}  // namespace

Attributes read_attributes(const NodeInfo& node) {
  // The reference constructor has already checked every string (OptimizedKernel builds it first).
  Attributes a;
  const std::string mode = node.get_string("mode", "nearest");
  const bool linear = mode == "linear" || mode == "bilinear";
  a.options.mode = linear ? Mode::Linear : Mode::Nearest;
  a.options.coordinate = node.get_string("coordinate_transformation_mode", "half_pixel");
  a.options.nearest = node.get_string("nearest_mode", "round_prefer_floor");
  a.stretch = node.get_string("keep_aspect_ratio_policy", "stretch") == "stretch";
  a.served = node.opset() >= 11 && (mode == "nearest" || linear) && a.options.coordinate != "tf_crop_and_resize" &&
             node.get_ints("axes").empty() && node.get_int("antialias", 0) == 0;
  return a;
}

bool Plan::matches(const Shape& x) const {
  if (x.rank() != 4) return false;
  for (int a = 0; a < 4; ++a) {
    if (x[a] != in[static_cast<std::size_t>(a)]) return false;
  }
  return true;
}

Plan build_plan(const NodeInfo& node, const Attributes& attributes, const Shape& x,
                const std::array<const Tensor*, 4>& values, const std::array<bool, 4>& unknown) {
  Plan plan;
  if (!attributes.served || x.rank() != 4) return plan;
  std::array<AxisPlan, 4> axes;
  for (int a = 0; a < 4; ++a) {
    const std::size_t i = static_cast<std::size_t>(a);
    plan.in[i] = x[a];
    axes[i].in = x[a];
    axes[i].out = x[a];
    if (x[a] <= 0) return plan;  // empty input: the reference
  }
  // Which of scales / sizes, as the reference's plan() decides it (section 10.1: an input with no
  // elements counts as absent).
  if (unknown[2] || unknown[3]) return plan;
  const Tensor* scales = values[2];
  const Tensor* sizes = values[3];
  const bool has_scales = scales != nullptr && scales->element_count() > 0;
  const bool has_sizes = sizes != nullptr && sizes->element_count() > 0;
  if (has_scales == has_sizes) return plan;
  if (has_scales) {
    if (scales->element_count() != 4) return plan;
    for (std::size_t i = 0; i < 4; ++i) {
      float s = 0.0f;
      if (!read_float(*scales, i, s) || !(s > 0.0f) || !std::isfinite(s)) return plan;
      axes[i].scale = s;
      axes[i].out = onemodel::resize::scaled_size(node, axes[i].in, s);
    }
  } else {
    if (!attributes.stretch || sizes->dtype() != DType::I64 || sizes->element_count() != 4 || !sizes->is_contiguous()) {
      return plan;
    }
    const auto s = sizes->data<std::int64_t>();
    for (std::size_t i = 0; i < 4; ++i) {
      if (s[i] < 0 || s[i] > kMaxElements) return plan;
      axes[i].out = s[i];
      axes[i].scale = static_cast<float>(axes[i].out) / static_cast<float>(axes[i].in);
    }
  }
  // Section 10.4: the reference skips an axis with scale exactly 1 and out == in; N and C must be
  // skipped (the kernel resamples the last two axes only).
  auto skipped = [&](std::size_t i) { return axes[i].scale == 1.0f && axes[i].in == axes[i].out; };
  if (!skipped(0) || !skipped(1)) return plan;
  resize::Resize2dShape& s = plan.shape;
  s.planes = x[0] * x[1];
  s.in_h = axes[2].in;
  s.in_w = axes[3].in;
  s.out_h = axes[2].out;
  s.out_w = axes[3].out;
  s.linear = attributes.options.mode == Mode::Linear;
  s.resample_h = !skipped(2);
  s.resample_w = !skipped(3);
  // Section 10.4, resample()'s pass order: shrinking axes first, then the others, each group in
  // axis order (only linear's passes round, so only linear cares).
  s.w_first = s.linear && s.resample_h && s.resample_w && axes[3].scale < 1.0f && !(axes[2].scale < 1.0f);
  // An empty output: the kernel returns before reading a tap (op_resize.cpp), so no tables are
  // built; one for an axis up to 2^31-1 long would cost time and memory for nothing.
  if (s.planes == 0 || s.out_h == 0 || s.out_w == 0) {
    plan.served = true;
    return plan;
  }
  bool ok = true;
  if (s.resample_h) plan.h_taps = taps_of(attributes.options, axes[2], ok);
  if (s.resample_w) plan.w_taps = taps_of(attributes.options, axes[3], ok);
  plan.served = ok;
  return plan;
}

}  // namespace onemodel::opt::resize_override
