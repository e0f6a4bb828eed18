// Driver of the float32 Resize kernel (optimized/kernels/resize/resize.hpp; spec/ops/products-conv.md
// section 10). Nearest output rows are gathers through the W table, and an output row whose H
// index equals the previous row's is a copy of that row (2x upsampling writes each gathered row
// twice). Linear evaluates the reference's two passes per output, in its pass order.
#include "optimized/kernels/resize/resize.hpp"

#include <cstring>

#include "optimized/frame/canonical_nan.hpp"

namespace onemodel::opt::resize {
namespace {

constexpr std::int64_t kChunkWork = 32768;   // output elements per chunk, at least one plane
constexpr double kNanosecondsPerOutput = 0.5;

// One linear pass's value (section 10.3): from +0, weight * sample in tap order, taps of weight
// exactly zero left out (an exactly hit sample stays finite next to inf/NaN), NaN canonical.
// `a` and `b` are the samples at index0 and index1.
inline float tap_sum(const AxisTap& t, float a, float b) noexcept {
  float v = 0.0f;
  if (t.weight0 != 0.0f) {
    const float prod = t.weight0 * a;
    v = v + prod;
  }
  if (t.weight1 != 0.0f) {
    const float prod = t.weight1 * b;
    v = v + prod;
  }
  return canonical_nan(v);
}

// Nearest (and the no-pass copy): element copies, bits kept.
void nearest_plane(const Resize2dShape& s, const AxisTap* ht, const AxisTap* wt, const float* x, float* y) {
  const std::size_t row_bytes = static_cast<std::size_t>(s.out_w) * sizeof(float);
  std::int64_t previous = -1;
  for (std::int64_t oh = 0; oh < s.out_h; ++oh) {
    const std::int64_t ih = s.resample_h ? ht[oh].index0 : oh;
    float* yrow = y + oh * s.out_w;
    if (ih == previous) {
      std::memcpy(yrow, yrow - s.out_w, row_bytes);
      continue;
    }
    const float* xrow = x + ih * s.in_w;
    if (!s.resample_w) {
      std::memcpy(yrow, xrow, row_bytes);
    } else {
      for (std::int64_t ow = 0; ow < s.out_w; ++ow) std::memcpy(yrow + ow, xrow + wt[ow].index0, sizeof(float));
    }
    previous = ih;
  }
}

void linear_plane(const Resize2dShape& s, const AxisTap* ht, const AxisTap* wt, const float* x, float* y) {
  if (!s.resample_h && !s.resample_w) {
    std::memcpy(y, x, static_cast<std::size_t>(s.out_h * s.out_w) * sizeof(float));
    return;
  }
  for (std::int64_t oh = 0; oh < s.out_h; ++oh) {
    float* yrow = y + oh * s.out_w;
    if (!s.resample_w) {
      // H only (in_w == out_w).
      const AxisTap& th = ht[oh];
      const float* r0 = x + th.index0 * s.in_w;
      const float* r1 = x + th.index1 * s.in_w;
      for (std::int64_t ow = 0; ow < s.out_w; ++ow) yrow[ow] = tap_sum(th, r0[ow], r1[ow]);
    } else if (!s.resample_h) {
      // W only (in_h == out_h).
      const float* r = x + oh * s.in_w;
      for (std::int64_t ow = 0; ow < s.out_w; ++ow) {
        const AxisTap& tw = wt[ow];
        yrow[ow] = tap_sum(tw, r[tw.index0], r[tw.index1]);
      }
    } else if (!s.w_first) {
      // H's pass first: its value at (oh, iw) is tap_sum over rows index0/index1 at column iw.
      const AxisTap& th = ht[oh];
      const float* r0 = x + th.index0 * s.in_w;
      const float* r1 = x + th.index1 * s.in_w;
      for (std::int64_t ow = 0; ow < s.out_w; ++ow) {
        const AxisTap& tw = wt[ow];
        const float a = tap_sum(th, r0[tw.index0], r1[tw.index0]);
        const float b = tap_sum(th, r0[tw.index1], r1[tw.index1]);
        yrow[ow] = tap_sum(tw, a, b);
      }
    } else {
      // W's pass first: its value at (ih, ow) is tap_sum along row ih.
      const AxisTap& th = ht[oh];
      const float* r0 = x + th.index0 * s.in_w;
      const float* r1 = x + th.index1 * s.in_w;
      for (std::int64_t ow = 0; ow < s.out_w; ++ow) {
        const AxisTap& tw = wt[ow];
        const float a = tap_sum(tw, r0[tw.index0], r0[tw.index1]);
        const float b = tap_sum(tw, r1[tw.index0], r1[tw.index1]);
        yrow[ow] = tap_sum(th, a, b);
      }
    }
  }
}

}  // namespace

void resize_2d_f32(const KernelContext& context, const Resize2dShape& shape, const AxisTap* h_taps,
                   const AxisTap* w_taps, const float* x, float* y) {
  const std::int64_t in_plane = shape.in_h * shape.in_w;
  const std::int64_t out_plane = shape.out_h * shape.out_w;
  if (shape.planes <= 0 || out_plane <= 0) return;
  const std::int64_t per_chunk = out_plane >= kChunkWork ? 1 : kChunkWork / out_plane;
  const std::int64_t chunks = (shape.planes + per_chunk - 1) / per_chunk;
  const double estimate = kNanosecondsPerOutput * static_cast<double>(shape.planes) * static_cast<double>(out_plane) *
                          (shape.linear ? 4.0 : 1.0);
  context.parallel_for(static_cast<std::size_t>(chunks), estimate, [&](std::size_t c) {
    const std::int64_t begin = static_cast<std::int64_t>(c) * per_chunk;
    const std::int64_t end = begin + per_chunk < shape.planes ? begin + per_chunk : shape.planes;
    for (std::int64_t p = begin; p < end; ++p) {
      const float* xp = x + p * in_plane;
      float* yp = y + p * out_plane;
      if (shape.linear) {
        linear_plane(shape, h_taps, w_taps, xp, yp);
      } else {
        nearest_plane(shape, h_taps, w_taps, xp, yp);
      }
    }
  });
}

}  // namespace onemodel::opt::resize
