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
// Rows (input and output) up to this long take the tabled W pass (linear_plane); its tables,
// 14 KB, live on the chunk's stack.
constexpr std::int64_t kRowBuffer = 512;

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

// The W taps as separate arrays (for rows up to kRowBuffer outputs), built once per chunk.
struct WTable {
  std::int32_t index0[kRowBuffer], index1[kRowBuffer];
  float weight0[kRowBuffer], weight1[kRowBuffer];
  float sample0[kRowBuffer], sample1[kRowBuffer];  // the current row's gathered samples
};

// tap_sum per output of one row, from samples at the table's indexes into `row`: the gathers
// first, then a loop without branches that the compiler runs in vector lanes. Same operations
// per output as tap_sum, so the same bits: a zero weight's tap (either sign of zero; a NaN
// weight is not zero) is left out by masking its sum back to the running value (+0 for the
// first tap), and a NaN result becomes 0x7FC00000. The selections are on the bits, in integer
// lanes: float comparisons in the loop would keep GCC from vectorizing it.
inline std::uint32_t bits_of(float v) noexcept { return __builtin_bit_cast(std::uint32_t, v); }
inline float float_of(std::uint32_t b) noexcept { return __builtin_bit_cast(float, b); }

void w_pass_row(WTable& t, const float* row, float* out, std::size_t n) {
  for (std::size_t j = 0; j < n; ++j) {
    t.sample0[j] = row[t.index0[j]];
    t.sample1[j] = row[t.index1[j]];
  }
  for (std::size_t j = 0; j < n; ++j) {
    const float p0 = t.weight0[j] * t.sample0[j];
    const float v0 = 0.0f + p0;
    const std::uint32_t keep0 = (bits_of(t.weight0[j]) & 0x7FFFFFFFu) != 0 ? 0xFFFFFFFFu : 0u;
    const float a = float_of(bits_of(v0) & keep0);
    const float p1 = t.weight1[j] * t.sample1[j];
    const float v1 = a + p1;
    const std::uint32_t keep1 = (bits_of(t.weight1[j]) & 0x7FFFFFFFu) != 0 ? 0xFFFFFFFFu : 0u;
    const std::uint32_t v = (bits_of(v1) & keep1) | (bits_of(a) & ~keep1);
    out[j] = float_of((v & 0x7FFFFFFFu) > 0x7F800000u ? kCanonicalNanBits : v);
  }
}

void linear_plane(const Resize2dShape& s, const AxisTap* ht, const AxisTap* wt, const float* x, float* y,
                  WTable* w_table) {
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
    } else if (!s.w_first && w_table != nullptr) {
      // H's pass first: its value at (oh, iw) is tap_sum over rows index0/index1 at column iw,
      // the same float wherever the W pass reads it, so it is computed once per input column
      // (upsampling reads each one out_w/in_w times twice); the W pass then gathers the row's
      // two samples per output and sums them in lanes (w_pass_row).
      const AxisTap& th = ht[oh];
      const float* r0 = x + th.index0 * s.in_w;
      const float* r1 = x + th.index1 * s.in_w;
      float h_pass[kRowBuffer];
      for (std::int64_t iw = 0; iw < s.in_w; ++iw) h_pass[iw] = tap_sum(th, r0[iw], r1[iw]);
      w_pass_row(*w_table, h_pass, yrow, static_cast<std::size_t>(s.out_w));
    } else if (!s.w_first) {
      // As above for rows too long for the stack buffer: the H pass recomputed where read.
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
  // Linear upsampling with the H pass first and rows that fit: the W table per chunk.
  const bool tabled = shape.linear && shape.resample_h && shape.resample_w && !shape.w_first &&
                      shape.in_w <= kRowBuffer && shape.out_w <= kRowBuffer;
  context.parallel_for(static_cast<std::size_t>(chunks), estimate, [&](std::size_t c) {
    WTable storage;
    WTable* table = tabled ? &storage : nullptr;
    if (tabled) {
      for (std::int64_t ow = 0; ow < shape.out_w; ++ow) {
        table->index0[ow] = static_cast<std::int32_t>(w_taps[ow].index0);
        table->index1[ow] = static_cast<std::int32_t>(w_taps[ow].index1);
        table->weight0[ow] = w_taps[ow].weight0;
        table->weight1[ow] = w_taps[ow].weight1;
      }
    }
    const std::int64_t begin = static_cast<std::int64_t>(c) * per_chunk;
    const std::int64_t end = begin + per_chunk < shape.planes ? begin + per_chunk : shape.planes;
    for (std::int64_t p = begin; p < end; ++p) {
      const float* xp = x + p * in_plane;
      float* yp = y + p * out_plane;
      if (shape.linear) {
        linear_plane(shape, h_taps, w_taps, xp, yp, table);
      } else {
        nearest_plane(shape, h_taps, w_taps, xp, yp);
      }
    }
  });
}

}  // namespace onemodel::opt::resize
