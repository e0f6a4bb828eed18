// The resampling shared by Resize and Upsample (spec/ops/products-conv.md section 10, from
// ops-conv.md "Resize"). Axes are resampled one at a time, shrinking axes first then growing ones,
// each group in axis order, through per-output tap tables; coordinates are float32. Nearest copies
// elements; linear and cubic sum weight * sample from +0 in tap order, leaving out taps of weight
// exactly zero; NaN stored canonical. Under tf_crop_and_resize an output whose coordinate lies
// outside [0, in - 1] on any axis is the extrapolation value. antialias (section 10.6): on an axis
// with scale < 1, linear and cubic taps are the filter stretched by 1 / scale, normalised.
#pragma once

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "core/graph/node_info.hpp"
#include "core/graph/op_kernel.hpp"
#include "onemodel/shape.hpp"

namespace onemodel::resize {

enum class Mode { Nearest, Linear, Cubic };

struct Options {
  Mode mode = Mode::Nearest;
  std::string coordinate = "half_pixel";
  std::string nearest = "round_prefer_floor";
  float cubic_a = -0.75f;
  bool exclude_outside = false;
  float extrapolation = 0.0f;
  bool antialias = false;
};

struct AxisPlan {
  std::int64_t in = 1, out = 1;
  float scale = 1.0f;
  float roi_start = 0.0f, roi_end = 1.0f;
};

inline bool crop(const Options& o) { return o.coordinate == "tf_crop_and_resize"; }

// Section 10.2: the input coordinate of output position j, in float32.
inline float coordinate(const Options& o, const AxisPlan& a, std::int64_t j) {
  const float fj = static_cast<float>(j);
  const float s = a.scale;
  const float in = static_cast<float>(a.in), out = static_cast<float>(a.out);
  const std::string& m = o.coordinate;
  if (m == "asymmetric") return fj / s;
  if (m == "align_corners") return a.out == 1 ? 0.0f : fj * static_cast<float>(a.in - 1) / static_cast<float>(a.out - 1);
  if (m == "pytorch_half_pixel") return a.out > 1 ? (fj + 0.5f) / s - 0.5f : 0.0f;
  if (m == "half_pixel_symmetric") {
    const float adjustment = out / (s * in);
    const float center = in / 2.0f;
    const float offset = center * (1.0f - adjustment);
    return offset + (fj + 0.5f) / s - 0.5f;
  }
  if (m == "tf_crop_and_resize") {
    const float span = static_cast<float>(a.in - 1);
    if (a.out > 1) return a.roi_start * span + fj * (a.roi_end - a.roi_start) * span / static_cast<float>(a.out - 1);
    return 0.5f * (a.roi_start + a.roi_end) * span;
  }
  return (fj + 0.5f) / s - 0.5f;  // half_pixel
}

struct Tap {
  std::int64_t index;
  float weight;
};

struct OutputTaps {
  std::vector<Tap> taps;
  bool outside = false;  // tf_crop_and_resize: coordinate outside [0, in - 1]
};

inline std::int64_t clamp_index(std::int64_t i, std::int64_t in) { return i < 0 ? 0 : (i >= in ? in - 1 : i); }

// Keys (1981) cubic convolution weights for the four taps floor(x) - 1 .. floor(x) + 2, t = x - floor(x).
inline void cubic_weights(float a, float t, float w[4]) {
  const float t1 = t + 1.0f, t2 = 1.0f - t, t3 = 2.0f - t;
  w[0] = ((a * t1 - 5.0f * a) * t1 + 8.0f * a) * t1 - 4.0f * a;
  w[1] = ((a + 2.0f) * t - (a + 3.0f)) * t * t + 1.0f;
  w[2] = ((a + 2.0f) * t2 - (a + 3.0f)) * t2 * t2 + 1.0f;
  w[3] = ((a * t3 - 5.0f * a) * t3 + 8.0f * a) * t3 - 4.0f * a;
}

// Section 10.5: the antialiasing filter's value at distance `d` (already multiplied by the scale):
// linear, the triangle clip(1 - |d|, 0, 1); cubic, Keys' kernel with parameter a:
// |d| <= 1: ((a + 2) * |d|^3 - (a + 3) * |d|^2) + 1; |d| < 2: ((a * |d|^3 - 5a * |d|^2) + 8a * |d|) - 4a;
// else 0 (each power formed as |d| * |d| and |d| * (|d| * |d|), every operation rounded in float32).
inline float antialias_filter(Mode mode, float a, float d) {
  const float x = std::fabs(d);
  if (mode == Mode::Linear) {
    const float v = 1.0f - x;
    return v < 0.0f ? 0.0f : (v > 1.0f ? 1.0f : v);
  }
  const float x2 = x * x;
  const float x3 = x * x2;
  if (x <= 1.0f) return ((a + 2.0f) * x3 - (a + 3.0f) * x2) + 1.0f;
  if (x < 2.0f) return ((a * x3 - 5.0f * a * x2) + 8.0f * a * x) - 4.0f * a;
  return 0.0f;
}

// Section 10.5: the taps of output coordinate x on an axis with scale s < 1. The support is
// `start = floor(-R / s) + 1` (R = 1 linear, 2 cubic; computed in binary64) to `-start + 1`, n =
// 2 - 2 * start taps; r = x - floor(x), or 1 when x is an integer (the left neighbour is preferred),
// and i0 = floor(x) (x - 1 when x is an integer). Tap k (k = 0 .. n-1) reads index
// clamp(i0 + start + k) with raw weight filter((float(start + k) - r) * s); the weights are divided
// by their sum (added from +0 in k order). exclude_outside: taps outside [0, in) get 0 and the rest
// are divided again by their new sum.
inline void antialias_taps(const NodeInfo* node, const Options& o, const AxisPlan& a, float x, OutputTaps& t) {
  const double reach = o.mode == Mode::Linear ? 1.0 : 2.0;
  const double start_d = std::floor(-reach / static_cast<double>(a.scale)) + 1.0;
  const double n_d = 2.0 - 2.0 * start_d;
  // The support grows as 1 / scale; an output needs in * scale >= 1/2, so n stays below 8 in + 2, but a
  // bound keeps a hostile scale from asking for an unbounded tap table.
  if (!(n_d <= static_cast<double>(kMaxElements)) || n_d > 8.0 * static_cast<double>(a.in) + 16.0) {
    if (node != nullptr) node->fail_unsupported("antialias filter wider than the input allows");
    return;
  }
  const std::int64_t start = static_cast<std::int64_t>(start_d);
  const std::int64_t n = static_cast<std::int64_t>(n_d);
  const float f = std::floor(x);
  const bool integral = x == f;
  const float r = integral ? 1.0f : x - f;
  const std::int64_t i0 = static_cast<std::int64_t>(f) - (integral ? 1 : 0);
  std::vector<float> w(static_cast<std::size_t>(n));
  float sum = 0.0f;
  for (std::int64_t k = 0; k < n; ++k) {
    const float d = (static_cast<float>(start + k) - r) * a.scale;
    w[static_cast<std::size_t>(k)] = antialias_filter(o.mode, o.cubic_a, d);
    sum = sum + w[static_cast<std::size_t>(k)];
  }
  for (float& v : w) v = v / sum;
  if (o.exclude_outside) {
    float kept = 0.0f;
    for (std::int64_t k = 0; k < n; ++k) {
      const std::int64_t i = i0 + start + k;
      if (i < 0 || i >= a.in) w[static_cast<std::size_t>(k)] = 0.0f;
      kept = kept + w[static_cast<std::size_t>(k)];
    }
    for (float& v : w) v = v / kept;
  }
  for (std::int64_t k = 0; k < n; ++k) t.taps.push_back({clamp_index(i0 + start + k, a.in), w[static_cast<std::size_t>(k)]});
}

inline std::vector<OutputTaps> axis_taps(const Options& o, const AxisPlan& a, const NodeInfo* node = nullptr) {
  std::vector<OutputTaps> table(static_cast<std::size_t>(a.out));
  for (std::int64_t j = 0; j < a.out; ++j) {
    OutputTaps& t = table[static_cast<std::size_t>(j)];
    float x = coordinate(o, a, j);
    if (crop(o) && (x < 0.0f || x > static_cast<float>(a.in - 1))) t.outside = true;
    if (o.antialias && o.mode != Mode::Nearest && a.scale < 1.0f) {
      antialias_taps(node, o, a, x, t);
    } else if (o.mode == Mode::Nearest) {
      const float f = std::floor(x);
      std::int64_t i = static_cast<std::int64_t>(f);
      if (o.nearest == "ceil") i = static_cast<std::int64_t>(std::ceil(x));
      else if (o.nearest == "round_prefer_floor") i = x - f > 0.5f ? i + 1 : i;
      else if (o.nearest == "round_prefer_ceil") i = x - f >= 0.5f ? i + 1 : i;
      t.taps.push_back({clamp_index(i, a.in), 1.0f});
    } else if (o.mode == Mode::Linear) {
      const float hi = static_cast<float>(a.in - 1);
      if (x < 0.0f) x = 0.0f;
      if (x > hi) x = hi;
      const float f = std::floor(x);
      const std::int64_t i0 = static_cast<std::int64_t>(f);
      const float frac = x - f;
      t.taps.push_back({i0, 1.0f - frac});
      t.taps.push_back({clamp_index(i0 + 1, a.in), frac});
    } else {
      const float f = std::floor(x);
      const std::int64_t i0 = static_cast<std::int64_t>(f);
      float w[4];
      cubic_weights(o.cubic_a, x - f, w);
      if (o.exclude_outside) {
        float sum = 0.0f;
        for (int k = 0; k < 4; ++k) {
          const std::int64_t i = i0 - 1 + k;
          if (i < 0 || i >= a.in) w[k] = 0.0f;
          sum = sum + w[k];
        }
        for (int k = 0; k < 4; ++k) {
          const std::int64_t i = i0 - 1 + k;
          if (i >= 0 && i < a.in) t.taps.push_back({i, w[k] / sum});
        }
      } else {
        for (int k = 0; k < 4; ++k) t.taps.push_back({clamp_index(i0 - 1 + k, a.in), w[k]});
      }
    }
  }
  return table;
}

// Resamples x (shape `in`, float32, row-major) to `out` with per-axis plans. Returns the result.
inline std::vector<float> resample(const Options& o, std::vector<float> x, const Shape& in_shape,
                                   const std::vector<AxisPlan>& plans, const NodeInfo* node = nullptr) {
  const int rank = in_shape.rank();
  // An empty output has nothing to compute; its other axes may still be up to 2^31-1 long, and
  // their tap tables (one entry per output index) would cost time and memory for nothing.
  for (const AxisPlan& p : plans) {
    if (p.out == 0) return {};
  }
  std::vector<std::int64_t> cur(in_shape.extents().begin(), in_shape.extents().end());
  std::vector<int> order;
  auto skipped = [&](int a) {
    const AxisPlan& p = plans[static_cast<std::size_t>(a)];
    return !crop(o) && p.scale == 1.0f && p.in == p.out;
  };
  for (int a = 0; a < rank; ++a) if (!skipped(a) && plans[static_cast<std::size_t>(a)].scale < 1.0f) order.push_back(a);
  for (int a = 0; a < rank; ++a) if (!skipped(a) && !(plans[static_cast<std::size_t>(a)].scale < 1.0f)) order.push_back(a);
  std::vector<std::vector<OutputTaps>> tables(static_cast<std::size_t>(rank));
  for (int a : order) {
    const AxisPlan& p = plans[static_cast<std::size_t>(a)];
    tables[static_cast<std::size_t>(a)] = axis_taps(o, p, node);
    const auto& table = tables[static_cast<std::size_t>(a)];
    std::int64_t outer = 1, inner = 1;
    for (int i = 0; i < a; ++i) outer *= cur[static_cast<std::size_t>(i)];
    for (int i = a + 1; i < rank; ++i) inner *= cur[static_cast<std::size_t>(i)];
    std::vector<float> y(static_cast<std::size_t>(outer * p.out * inner));
    for (std::int64_t b = 0; b < outer; ++b) {
      for (std::int64_t j = 0; j < p.out; ++j) {
        const OutputTaps& t = table[static_cast<std::size_t>(j)];
        for (std::int64_t i = 0; i < inner; ++i) {
          float v;
          if (o.mode == Mode::Nearest) {
            v = x[static_cast<std::size_t>((b * p.in + t.taps[0].index) * inner + i)];  // a copy
          } else {
            v = 0.0f;
            for (const Tap& tap : t.taps) {
              if (tap.weight == 0.0f) continue;  // an exactly hit sample stays finite next to inf/NaN
              const float prod = tap.weight * x[static_cast<std::size_t>((b * p.in + tap.index) * inner + i)];
              v = v + prod;
            }
            v = canonical_nan_f32(v);
          }
          y[static_cast<std::size_t>((b * p.out + j) * inner + i)] = v;
        }
      }
    }
    x = std::move(y);
    cur[static_cast<std::size_t>(a)] = p.out;
  }
  if (crop(o)) {
    // Extrapolation: any axis whose coordinate falls outside the input.
    std::vector<std::int64_t> idx(static_cast<std::size_t>(rank), 0);
    for (std::size_t e = 0; e < x.size(); ++e) {
      bool outside = false;
      for (int a = 0; a < rank; ++a) {
        const auto& table = tables[static_cast<std::size_t>(a)];
        if (!table.empty() && table[static_cast<std::size_t>(idx[static_cast<std::size_t>(a)])].outside) outside = true;
      }
      if (outside) x[e] = o.extrapolation;
      for (int a = rank; a-- > 0;) {
        if (++idx[static_cast<std::size_t>(a)] < cur[static_cast<std::size_t>(a)]) break;
        idx[static_cast<std::size_t>(a)] = 0;
      }
    }
  }
  return x;
}

// floor(in * scale) (section 10.1), checked against the library's limits.
inline std::int64_t scaled_size(const NodeInfo& node, std::int64_t in, float scale) {
  if (!(scale > 0.0f) || !std::isfinite(scale)) node.fail_invalid("scales must be positive and finite");
  const double size = std::floor(static_cast<double>(in) * static_cast<double>(scale));
  if (size > static_cast<double>(kMaxElements)) node.fail_unsupported("output extent beyond the library's limits");
  return static_cast<std::int64_t>(size);
}

}  // namespace onemodel::resize
