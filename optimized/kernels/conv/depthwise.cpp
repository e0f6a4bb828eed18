// The depthwise driver (kernels-depthwise.md): chunks of output planes, the phase-plane layout of
// the zero-padded input, the per-path plane walk (from the registry list, depthwise_list.inc) and
// the fallback loop.
#include "optimized/kernels/conv/depthwise.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "optimized/frame/canonical_nan.hpp"
#include "optimized/frame/kernel_registry.hpp"
#include "optimized/kernels/conv/depthwise_band.hpp"
#include "optimized/kernels/conv/depthwise_blocked.hpp"
#include "optimized/kernels/conv/depthwise_flat.hpp"
#include "optimized/kernels/conv/depthwise_phase_split.hpp"
#include "optimized/kernels/conv/depthwise_plane.hpp"
#include "optimized/kernels/conv/depthwise_stride1.hpp"
#include "optimized/kernels/conv/depthwise_stride2.hpp"

namespace onemodel::opt {
namespace {

// The registry table, from the list (depthwise_list.inc).
constexpr DepthwiseVariant kVariants[] = {
#define ONEMODEL_DW_VARIANT(suffix, isa, fma, name) \
  DepthwiseVariant{name, Isa::isa, fma, depthwise_plane_##suffix, depthwise_phase_rows_##suffix},
#include "optimized/kernels/conv/depthwise_list.inc"
};

// The variant serving each path: the first listed one allowed there (kernel_registry.hpp).
const DepthwiseVariant& variant_for(Isa isa) noexcept {
  static const VariantChoice<DepthwiseVariant> choice{std::span<const DepthwiseVariant>(kVariants)};
  return choice[isa];
}

// kernels-depthwise.md "Phase planes": the padded plane split by column phase into stride_w
// planes (plane p holds padded columns p, p + stride_w, ...), each `height` rows of `width`
// columns. A stride-1 plane without padding is read in place.
struct PhaseLayout {
  bool in_place = false;
  std::size_t phases = 1;
  std::size_t height = 0;
  std::size_t width = 0;
  std::size_t plane = 0;  // height * width
};

PhaseLayout phase_layout(const Conv2dShape& s) noexcept {
  PhaseLayout l;
  const std::size_t ph = s.padded_h(), pw = s.padded_w();
  if (s.stride_w == 1 && s.pad_top == 0 && s.pad_left == 0 && ph <= s.in_h && pw <= s.in_w) {
    l.in_place = true;
    l.height = s.in_h;
    l.width = s.in_w;
  } else {
    l.phases = s.stride_w;
    l.height = ph;
    l.width = (pw + s.stride_w - 1) / s.stride_w;
  }
  l.plane = l.height * l.width;
  return l;
}

// The range [first, past) of phase-plane columns j (padded column j*stride + phase) that hold an
// input column (padded column c holds input column c - pad_left).
void phase_columns(const Conv2dShape& s, std::size_t width, std::size_t phase, std::size_t& first,
                   std::size_t& past) noexcept {
  const std::size_t stride = s.stride_w;
  // j*stride + phase >= pad_left and j*stride + phase < pad_left + in_w.
  first = s.pad_left > phase ? (s.pad_left - phase + stride - 1) / stride : 0;
  const std::size_t end = s.pad_left + s.in_w;
  past = end > phase ? std::min((end - phase + stride - 1) / stride, width) : 0;
  first = std::min(first, past);
}

// Writes the input positions of the phase planes of one input plane by the path's row copy; only
// data moves. Which positions hold padding depends on the shape alone, so the scratch is zeroed
// once per geometry (PhaseScratch::zeroed_for) and the zeros stay while planes of that geometry
// are built.
void build_phases(const Conv2dShape& s, const PhaseLayout& l, DepthwisePhaseRowsFn phase_rows, const float* in,
                  float* dst) noexcept {
  const std::size_t stride = s.stride_w, width = l.width;
  const std::size_t row_first = std::min(s.pad_top, l.height);
  const std::size_t row_past = std::min(s.pad_top + s.in_h, l.height);
  if (row_first >= row_past) return;
  for (std::size_t p = 0; p < l.phases; ++p) {
    std::size_t first = 0, past = 0;
    phase_columns(s, width, p, first, past);
    if (first >= past) continue;
    // Input column of phase column j: j*stride + p - pad_left.
    const float* src = in + (row_first - s.pad_top) * s.in_w + (first * stride + p - s.pad_left);
    float* out = dst + (p * l.height + row_first) * width + first;
    phase_rows(src, s.in_w, stride, past - first, row_past - row_first, out, width);
  }
}

#if defined(__x86_64__)
// Where the AVX2 split (depthwise_phase_split.hpp) writes a stride-2 input row into the two phase
// planes: phase p's first input column is 2 * first + p - pad_left, 0 or 1 when the phase holds
// any; the phase starting at 0 takes the even input columns, the other (if any) the odd ones.
struct SplitColumns {
  bool usable = false;
  std::size_t even_phase = 0, even_first = 0, even_count = 0, odd_first = 0, odd_count = 0;
};

SplitColumns split_columns(const Conv2dShape& s, const PhaseLayout& l) noexcept {
  std::size_t first[2], past[2], start[2];
  for (std::size_t p = 0; p < 2; ++p) {
    phase_columns(s, l.width, p, first[p], past[p]);
    start[p] = first[p] < past[p] ? first[p] * 2 + p - s.pad_left : 2;  // 2: the phase is empty
  }
  SplitColumns c;
  c.even_phase = start[0] == 0 ? 0 : 1;
  const std::size_t odd = 1 - c.even_phase;
  c.usable = start[c.even_phase] == 0 && (start[odd] == 1 || start[odd] == 2);
  c.even_first = first[c.even_phase];
  c.even_count = past[c.even_phase] - first[c.even_phase];
  c.odd_first = start[odd] == 1 ? first[odd] : 0;
  c.odd_count = start[odd] == 1 ? past[odd] - first[odd] : 0;
  return c;
}

// Whether the AVX2 walk computes the shape's planes with the band kernel (depthwise_band.hpp):
// square 3x3 and 5x5 windows, stride 1 or 2 both ways, no dilation, rows of at least 8 outputs.
bool band_kernel_fits(Isa isa, const Conv2dShape& s) noexcept {
  return isa == Isa::Avx2 && s.kernel_h == s.kernel_w && (s.kernel_w == 3 || s.kernel_w == 5) &&
         s.stride_h == s.stride_w && (s.stride_w == 1 || s.stride_w == 2) && s.dilation_h == 1 &&
         s.dilation_w == 1 && s.out_w >= 8;
}

// Whether the walk takes walk_split_bands (after the fallback and the in-place kernels): AVX2,
// column stride 2, one filter per input channel, and the split's columns (`columns`) usable.
bool splits_bands(Isa isa, const Conv2dShape& s, const PhaseLayout& l, SplitColumns& columns) noexcept {
  if (isa != Isa::Avx2 || l.in_place || l.phases != 2 || s.out_channels != s.in_channels) return false;
  columns = split_columns(s, l);
  return columns.usable;
}

// The band buffer of the split walk (walk_split_bands): two phase planes of `rows` padded rows,
// `stride` floats apart (a multiple of eight), phase p's plane at base[p] from a 32-byte
// boundary, placed so that the split's first written column of each phase starts a 32-byte
// boundary: its eight-float stores then never straddle a cache line (1.5x faster split on Zen 3,
// where a straddling store costs two).
struct BandLayout {
  std::size_t rows = 0, stride = 0, base[2] = {0, 0}, floats = 0;
};

BandLayout band_layout(std::size_t rows, std::size_t width, const SplitColumns& c) noexcept {
  constexpr std::size_t kAlign = 8;  // floats in 32 bytes
  BandLayout b;
  b.rows = rows;
  b.stride = (width + kAlign - 1) / kAlign * kAlign;
  const std::size_t even = c.even_phase, odd = 1 - c.even_phase;
  b.base[even] = (kAlign - c.even_first % kAlign) % kAlign;
  const std::size_t next = (b.base[even] + rows * b.stride + kAlign - 1) / kAlign * kAlign;
  b.base[odd] = next + (kAlign - c.odd_first % kAlign) % kAlign;
  b.floats = b.base[odd] + rows * b.stride;
  return b;
}

// Padded rows [row0, row0 + rows) of both phase planes into rows [0, rows) of the band buffer
// `dst`: input rows split, padding rows written as +0. Padding columns are never written, so they
// keep the zeros of the buffer's first fill.
void build_split_band(const Conv2dShape& s, const SplitColumns& c, const BandLayout& b, const float* in, float* dst,
                      std::size_t row0, std::size_t rows) noexcept {
  const std::size_t in_first = std::clamp(s.pad_top, row0, row0 + rows);
  const std::size_t in_past = std::clamp(s.pad_top + s.in_h, in_first, row0 + rows);
  for (std::size_t p = 0; p < 2; ++p) {
    float* plane = dst + b.base[p];
    std::fill(plane, plane + (in_first - row0) * b.stride, 0.0f);
    std::fill(plane + (in_past - row0) * b.stride, plane + rows * b.stride, 0.0f);
  }
  if (in_first == in_past) return;
  const std::size_t at = (in_first - row0) * b.stride;
  depthwise_phase_split__avx2(in + (in_first - s.pad_top) * s.in_w, s.in_w, in_past - in_first,
                              dst + b.base[c.even_phase] + at + c.even_first, c.even_count,
                              dst + b.base[1 - c.even_phase] + at + c.odd_first, c.odd_count, b.stride);
}
#endif

// The walk's job for one channel's taps `weights` (and bias, or null) over `src`, whose rows are
// `width` floats apart: the whole output plane (out_h of the shape); the caller sets `out` and,
// for a band, out_h.
DepthwisePlaneJob walk_job(const Conv2dShape& s, const float* src, const std::ptrdiff_t* offsets, const float* weights,
                           std::size_t taps, std::size_t width, const float* bias, bool exact) noexcept {
  DepthwisePlaneJob job;
  job.src = src;
  job.tap_offsets = offsets;
  job.weights = weights;
  job.taps = taps;
  job.row_step = static_cast<std::ptrdiff_t>(s.stride_h * width);
  job.width = static_cast<std::ptrdiff_t>(width);
  job.kernel_h = s.kernel_h;
  job.kernel_w = s.kernel_w;
  job.stride_h = s.stride_h;
  job.dilation_h = s.dilation_h;
  job.out_h = s.out_h;
  job.out_w = s.out_w;
  job.bias = bias;
  job.exact = exact;
  return job;
}

// kernels-depthwise.md "Fallback": a plain per-output loop in the same tap order, padding taps
// being products with +0.
void fallback_plane(const Conv2dShape& s, const float* in, const float* w, const float* bias, float* out, bool exact,
                    bool fused) noexcept {
  const std::ptrdiff_t in_h = static_cast<std::ptrdiff_t>(s.in_h), in_w = static_cast<std::ptrdiff_t>(s.in_w);
  for (std::size_t oy = 0; oy < s.out_h; ++oy) {
    for (std::size_t ox = 0; ox < s.out_w; ++ox) {
      float acc = 0.0f;
      for (std::size_t ky = 0; ky < s.kernel_h; ++ky) {
        const std::ptrdiff_t iy = static_cast<std::ptrdiff_t>(oy * s.stride_h + ky * s.dilation_h) -
                                  static_cast<std::ptrdiff_t>(s.pad_top);
        for (std::size_t kx = 0; kx < s.kernel_w; ++kx) {
          const std::ptrdiff_t ix = static_cast<std::ptrdiff_t>(ox * s.stride_w + kx * s.dilation_w) -
                                    static_cast<std::ptrdiff_t>(s.pad_left);
          const float v = (iy >= 0 && iy < in_h && ix >= 0 && ix < in_w) ? in[iy * in_w + ix] : 0.0f;
          const float wv = w[ky * s.kernel_w + kx];
          if (exact || !fused) {
            const float product = wv * v;
            acc = acc + product;
          } else {
            acc = std::fma(wv, v, acc);
          }
        }
      }
      if (bias != nullptr) acc = acc + *bias;
      out[oy * s.out_w + ox] = exact ? canonical_nan(acc) : acc;
    }
  }
}

// Phase-plane scratch is per thread and grows once (kernels-depthwise.md "Chunks"). `zeroed_for`
// names the geometry whose padding positions hold zeros: builds of that geometry write only input
// positions, so the zeros stay until a different geometry takes the scratch.
struct PhaseScratch {
  std::vector<float> values;
  std::array<std::size_t, 8> zeroed_for{};
};

PhaseScratch& thread_scratch() {
  thread_local PhaseScratch scratch;
  return scratch;
}

// Everything that decides which scratch positions build_phases writes.
std::array<std::size_t, 8> phase_geometry(const Conv2dShape& s, const PhaseLayout& l) noexcept {
  return {l.phases, l.height, l.width, s.pad_top, s.pad_left, s.in_h, s.in_w, s.stride_w};
}

// A fused BatchNormalization on one finished output plane of channel oc, when there is one.
void normalize_plane(Isa isa, const ConvActivation* activation, std::size_t oc, float* out, std::size_t size) {
  if (activation == nullptr || activation->norm_scale == nullptr) return;
  batchnorm::batch_norm_plane_f32(isa, out, out, size, activation->norm_scale[oc], activation->norm_shift[oc]);
}

// The residual and the activation after each plane's normalization: they are element-wise, so one
// call over the chunk's adjacent planes gives each value what a call per plane gives it, with up
// to 32 times fewer calls on small maps.
void apply_rest_of_activation(Isa isa, const ConvActivation& activation, std::size_t chunk, std::size_t per_chunk,
                              std::size_t end, const Conv2dShape& s, float* y) {
  ConvActivation rest = activation;
  rest.norm_scale = nullptr;
  rest.norm_shift = nullptr;
  const std::size_t first = chunk * per_chunk * s.out_plane();
  apply_conv_activation(isa, rest, 0, y + first, end * s.out_plane() - first, first);
}

#if defined(__x86_64__)
// The activation the band kernel applies in its stores (depthwise_band.hpp): one alone that the
// AVX2 stores apply (activation_fuses_in_store) without a residual, so that no second pass reads
// the planes again; else null, and the separate pass runs. Not SiLU: in the band's stores it ran
// 1.25-1.3x slower than the element-wise kernel's pass, which interleaves pairs of vectors (Zen 3,
// one thread, node median: 144 channels 5x5/2 at 56 232 -> 295 us, 96 channels 3x3/2 at 112 ~410
// -> 530); ReLU 1.07-1.1x faster (64 channels 3x3/2 at 112 169 -> 153-157, 576 3x3 at 14 81 ->
// 75), HardSwish even (240 channels 3x3/2 at 28, 83).
const ConvActivation* band_fused_activation(const ConvActivation* activation) noexcept {
  return activation_fuses_in_store(activation) && activation->residual == nullptr &&
                 activation->args.op != ew::UnaryOp::Silu
             ? activation
             : nullptr;
}

// Output rows per band of the split walk below: the whole plane when both its phase planes fit in
// 24 KB (most of a 32 KB L1 data cache: 3x3 and 5x5 at 56 x 56, 15 KB), else eight (3x3 at
// 112 x 112: bands of 17 rows, 8.5 KB). Session 36, AMD EPYC Zen 3, one thread: at 112 x 112 the
// walk over whole phase planes ran 1.12-1.16x slower than in bands of 8 or 16 output rows (bands
// of 4: 1.03-1.14x slower); at 56 x 56 5x5/2 bands of 8 ran 1.15x slower than the whole plane
// (each band splits the 3 rows its predecessor's windows also read again).
std::size_t split_band_rows(const Conv2dShape& s, const PhaseLayout& l) noexcept {
  constexpr std::size_t kWholePlaneBytes = 24 * 1024, kBandRows = 8;
  const std::size_t stride = (l.width + 7) / 8 * 8;
  return 2 * l.height * stride * sizeof(float) <= kWholePlaneBytes ? std::max<std::size_t>(s.out_h, 1) : kBandRows;
}

// The band buffer of the split walk, per thread; `zeroed_for` as in PhaseScratch.
struct BandScratch {
  std::vector<float> values;
  std::array<std::size_t, 8> zeroed_for{};
  // The first 32-byte boundary in values (BandLayout's bases count from it).
  float* aligned(std::size_t floats) {
    if (values.size() < floats + 8) values.resize(floats + 8);
    const std::uintptr_t at = reinterpret_cast<std::uintptr_t>(values.data());
    return values.data() + ((32 - at % 32) % 32) / sizeof(float);
  }
};

// The plane walk at column stride 2 on AVX2 (docs/design.md "Stride-2 phase planes by bands"):
// instead of both phase planes of the whole input plane (52 KB at 112 x 112, past L1), each band
// of kSplitBandRows output rows splits the padded rows it reads into a small buffer (two phases of
// (8 - 1) * stride_h + kernel_h rows, 8 KB at 112 wide) and walks them while they are in L1. The
// walk reads the same values at the same tap offsets within the band, so every output keeps its
// bits. Requires one filter per input channel (else the split would be repeated per filter).
void walk_split_bands(const KernelContext& context, const Conv2dShape& s, const PhaseLayout& l,
                      const SplitColumns& columns, const float* x, const float* w, const float* bias, float* y,
                      const ConvActivation* activation, double estimate) {
  const std::size_t planes = s.batch * s.out_channels, taps = s.taps();
  const std::size_t per_chunk = depthwise_planes_per_chunk(s);
  const std::size_t chunks = (planes + per_chunk - 1) / per_chunk;
  const std::size_t band_out = split_band_rows(s, l);
  const BandLayout band = band_layout(
      std::min(l.height, (band_out - 1) * s.stride_h + (s.kernel_h - 1) * s.dilation_h + 1), l.width, columns);
  std::array<std::ptrdiff_t, kDepthwiseMaxTaps> offsets{};
  for (std::size_t ky = 0; ky < s.kernel_h; ++ky) {
    for (std::size_t kx = 0; kx < s.kernel_w; ++kx) {
      const std::size_t dx = kx * s.dilation_w;
      offsets[ky * s.kernel_w + kx] =
          static_cast<std::ptrdiff_t>(band.base[dx % 2] + ky * s.dilation_h * band.stride + dx / 2);
    }
  }
  const DepthwisePlaneFn walk = variant_for(context.isa).plane;
  // Square 3x3 and 5x5 windows at stride 2 take the band kernel (depthwise_band.hpp), the rest
  // the path's walk.
  const bool fixed = band_kernel_fits(context.isa, s);
  const ConvActivation* fused = fixed ? band_fused_activation(activation) : nullptr;
  const std::array<std::size_t, 8> geometry = {band.rows, band.stride, band.base[0], band.base[1], l.width,
                                               s.pad_left, s.in_w, 1};
  context.parallel_for(chunks, estimate, [&](std::size_t chunk) {
    thread_local BandScratch scratch;
    float* buffer = scratch.aligned(band.floats);
    if (scratch.zeroed_for != geometry) {
      std::fill(buffer, buffer + band.floats, 0.0f);
      scratch.zeroed_for = geometry;
    }
    const std::size_t end = std::min(planes, (chunk + 1) * per_chunk);
    for (std::size_t q = chunk * per_chunk; q < end; ++q) {
      const std::size_t n = q / s.out_channels, oc = q % s.out_channels;
      const float* in = x + (n * s.in_channels + oc) * s.in_plane();
      DepthwisePlaneJob job = walk_job(s, buffer, offsets.data(), w + oc * taps, taps, band.stride,
                                       bias != nullptr ? bias + oc : nullptr, context.exact);
      float* out = y + q * s.out_plane();
      for (std::size_t oy = 0; oy < s.out_h; oy += band_out) {
        const std::size_t row0 = oy * s.stride_h;
        build_split_band(s, columns, band, in, buffer, row0, std::min(band.rows, l.height - row0));
        job.out_h = std::min(band_out, s.out_h - oy);
        job.out = out + oy * s.out_w;
        if (fixed) {
          DepthwiseBandJob b;
          b.planes[0] = buffer + band.base[0];
          b.planes[1] = buffer + band.base[1];
          b.stride = band.stride;
          b.kernel = s.kernel_w;
          b.weights = job.weights;
          b.bias = job.bias;
          b.out = job.out;
          b.out_h = job.out_h;
          b.out_w = s.out_w;
          b.exact = job.exact;
          b.activation = fused;
          depthwise_band__avx2(b);
        } else {
          walk(job);
        }
      }
      normalize_plane(context.isa, activation, oc, out, s.out_plane());
    }
    if (activation != nullptr && fused == nullptr) {
      apply_rest_of_activation(context.isa, *activation, chunk, per_chunk, end, s, y);
    }
  });
}
#endif

}  // namespace

std::span<const DepthwiseVariant> depthwise_variants() noexcept { return kVariants; }

std::size_t depthwise_planes_per_chunk(const Conv2dShape& shape) noexcept {
  const std::size_t plane = std::max<std::size_t>(shape.out_plane(), 1);
  return std::clamp<std::size_t>(4096 / plane, 1, 32);
}

bool depthwise_uses_fallback(const Conv2dShape& shape) noexcept {
  return shape.taps() > kDepthwiseMaxTaps || shape.stride_w > kDepthwiseMaxColumnStride;
}

bool depthwise_walk_takes_band_kernel(Isa isa, const Conv2dShape& shape) noexcept {
#if defined(__x86_64__)
  if (shape.batch * shape.out_channels == 0 || shape.out_plane() == 0 || depthwise_uses_fallback(shape)) return false;
  if (depthwise_takes_stride2(isa, shape) || depthwise_takes_stride1(isa, shape)) return false;
  if (!band_kernel_fits(isa, shape)) return false;
  SplitColumns columns;
  return shape.stride_w == 1 || splits_bands(isa, shape, phase_layout(shape), columns);
#else
  (void)isa;
  (void)shape;
  return false;
#endif
}

bool depthwise_walk_splits_bands(Isa isa, const Conv2dShape& shape) noexcept {
#if defined(__x86_64__)
  if (shape.batch * shape.out_channels == 0 || shape.out_plane() == 0 || depthwise_uses_fallback(shape)) return false;
  if (depthwise_takes_stride2(isa, shape) || depthwise_takes_stride1(isa, shape)) return false;
  SplitColumns columns;
  return splits_bands(isa, shape, phase_layout(shape), columns);
#else
  (void)isa;
  (void)shape;
  return false;
#endif
}

void depthwise_conv2d_f32(const KernelContext& context, const Conv2dShape& s, const float* x, const float* w,
                          const float* bias, float* y, const ConvActivation* activation) {
#if defined(__x86_64__)
  // Small unstrided maps on AVX-512: each plane as one flattened row (depthwise_flat.hpp).
  if (depthwise_takes_flat(context.isa, context.exact, s)) {
    depthwise_flat_conv2d_f32__avx512(context, s, x, w, bias, y, activation);
    return;
  }
  // Small maps: channels in the lanes instead of columns (depthwise_blocked.hpp); the same bits in
  // exact mode.
  if (depthwise_takes_blocked(context.isa, context.exact, s)) {
    if (context.isa == Isa::Avx512) {
      depthwise_blocked_conv2d_f32__avx512(context, s, x, w, bias, y, activation);
    } else {
      depthwise_blocked_conv2d_f32__avx2(context, s, x, w, bias, y, activation);
    }
    return;
  }
#endif
  depthwise_walk_conv2d_f32(context, s, x, w, bias, y, activation);
}

void depthwise_walk_conv2d_f32(const KernelContext& context, const Conv2dShape& s, const float* x, const float* w,
                               const float* bias, float* y, const ConvActivation* activation) {
  const std::size_t planes = s.batch * s.out_channels;
  if (planes == 0 || s.out_plane() == 0) return;
  const std::size_t multiplier = s.out_channels / s.in_channels;
  const std::size_t taps = s.taps();
  const std::size_t per_chunk = depthwise_planes_per_chunk(s);
  const std::size_t chunks = (planes + per_chunk - 1) / per_chunk;
  // kernels-depthwise.md "Chunks": planes * (OutH*OutW*KH*KW/8 + PaddedH*PaddedW/2) ns.
  const double estimate = static_cast<double>(planes) *
                          (static_cast<double>(s.out_plane() * taps) / 8.0 +
                           static_cast<double>(s.padded_h() * s.padded_w()) / 2.0);
  const bool exact = context.exact;
  const bool fused = variant_for(context.isa).fused_multiply_add;

  if (depthwise_uses_fallback(s)) {
    context.parallel_for(chunks, estimate, [&](std::size_t chunk) {
      const std::size_t end = std::min(planes, (chunk + 1) * per_chunk);
      for (std::size_t q = chunk * per_chunk; q < end; ++q) {
        const std::size_t n = q / s.out_channels, oc = q % s.out_channels;
        const float* in = x + (n * s.in_channels + oc / multiplier) * s.in_plane();
        fallback_plane(s, in, w + oc * taps, bias != nullptr ? bias + oc : nullptr, y + q * s.out_plane(), exact,
                       fused);
        float* plane = y + q * s.out_plane();
        if (activation != nullptr) {
          apply_conv_activation(context.isa, *activation, oc, plane, s.out_plane(), q * s.out_plane());
        }
      }
    });
    return;
  }

#if defined(__x86_64__)
  // Strides 2 and 1 on AVX-512 and AVX2: the planes read in place, no phase or padded copies
  // (depthwise_stride2.hpp, depthwise_stride1.hpp); the walk's bits in both modes.
  using InPlacePlane = void (*)(const Conv2dShape&, const float*, const float*, const float*, float*, bool) noexcept;
  const bool wide = context.isa == Isa::Avx512;  // else AVX2, the only other path they take
  const InPlacePlane in_place =
      depthwise_takes_stride2(context.isa, s)   ? (wide ? depthwise_stride2_plane__avx512 : depthwise_stride2_plane__avx2)
      : depthwise_takes_stride1(context.isa, s) ? (wide ? depthwise_stride1_plane__avx512 : depthwise_stride1_plane__avx2)
                                                : nullptr;
  if (in_place != nullptr) {
    context.parallel_for(chunks, estimate, [&](std::size_t chunk) {
      const std::size_t end = std::min(planes, (chunk + 1) * per_chunk);
      for (std::size_t q = chunk * per_chunk; q < end; ++q) {
        const std::size_t n = q / s.out_channels, oc = q % s.out_channels;
        const float* in = x + (n * s.in_channels + oc / multiplier) * s.in_plane();
        float* out = y + q * s.out_plane();
        in_place(s, in, w + oc * taps, bias != nullptr ? bias + oc : nullptr, out, exact);
        normalize_plane(context.isa, activation, oc, out, s.out_plane());
      }
      if (activation != nullptr) apply_rest_of_activation(context.isa, *activation, chunk, per_chunk, end, s, y);
    });
    return;
  }
#endif
  const PhaseLayout layout = phase_layout(s);
#if defined(__x86_64__)
  if (SplitColumns columns; splits_bands(context.isa, s, layout, columns)) {
    walk_split_bands(context, s, layout, columns, x, w, bias, y, activation, estimate);
    return;
  }
#endif
  // Tap (ky, kx) of output (oy, ox) is at padded (oy*sh + ky*dh, ox*sw + kx*dw): phase
  // dx % sw, column ox + dx / sw (kernels-depthwise.md "Phase planes").
  std::array<std::ptrdiff_t, kDepthwiseMaxTaps> offsets{};
  for (std::size_t ky = 0; ky < s.kernel_h; ++ky) {
    for (std::size_t kx = 0; kx < s.kernel_w; ++kx) {
      const std::size_t dx = kx * s.dilation_w;
      const std::size_t phase = layout.in_place ? 0 : dx % s.stride_w;
      const std::size_t column = layout.in_place ? dx : dx / s.stride_w;
      offsets[ky * s.kernel_w + kx] =
          static_cast<std::ptrdiff_t>(phase * layout.plane + ky * s.dilation_h * layout.width + column);
    }
  }
  const DepthwisePlaneFn walk = variant_for(context.isa).plane;
  const DepthwisePhaseRowsFn phase_rows = variant_for(context.isa).phase_rows;
#if defined(__x86_64__)
  // Unstrided square 3x3 and 5x5 windows on AVX2 take the band kernel over the padded plane
  // (docs/design.md "Stride-2 phase planes by bands", the unstrided use).
  const bool unstrided_band = band_kernel_fits(context.isa, s) && s.stride_w == 1;
  const ConvActivation* in_stores = unstrided_band ? band_fused_activation(activation) : nullptr;
#else
  const ConvActivation* in_stores = nullptr;
#endif
  const std::size_t scratch_floats = layout.in_place ? 0 : layout.phases * layout.plane;
  const std::array<std::size_t, 8> geometry = phase_geometry(s, layout);

  context.parallel_for(chunks, estimate, [&](std::size_t chunk) {
    PhaseScratch& scratch = thread_scratch();
    if (!layout.in_place) {
      if (scratch.values.size() < scratch_floats) scratch.values.resize(scratch_floats);
      if (scratch.zeroed_for != geometry) {
        std::fill(scratch.values.begin(), scratch.values.begin() + static_cast<std::ptrdiff_t>(scratch_floats), 0.0f);
        scratch.zeroed_for = geometry;
      }
    }
    const float* built_for = nullptr;  // the input plane the scratch holds
    const std::size_t end = std::min(planes, (chunk + 1) * per_chunk);
    for (std::size_t q = chunk * per_chunk; q < end; ++q) {
      const std::size_t n = q / s.out_channels, oc = q % s.out_channels;
      const float* in = x + (n * s.in_channels + oc / multiplier) * s.in_plane();
      const float* src = in;
      if (!layout.in_place) {
        if (built_for != in) {
          build_phases(s, layout, phase_rows, in, scratch.values.data());
          built_for = in;
        }
        src = scratch.values.data();
      }
#if defined(__x86_64__)
      if (unstrided_band) {
        // The whole padded plane is one band of the unstrided band kernel (depthwise_band.hpp).
        DepthwiseBandJob b;
        b.planes[0] = b.planes[1] = src;
        b.stride = layout.width;
        b.kernel = s.kernel_w;
        b.step = 1;
        b.weights = w + oc * taps;
        b.bias = bias != nullptr ? bias + oc : nullptr;
        b.out = y + q * s.out_plane();
        b.out_h = s.out_h;
        b.out_w = s.out_w;
        b.exact = exact;
        b.activation = in_stores;
        depthwise_band__avx2(b);
        normalize_plane(context.isa, activation, oc, b.out, s.out_plane());
        continue;
      }
#endif
      DepthwisePlaneJob job =
          walk_job(s, src, offsets.data(), w + oc * taps, taps, layout.width, bias != nullptr ? bias + oc : nullptr, exact);
      job.out = y + q * s.out_plane();
      walk(job);
      normalize_plane(context.isa, activation, oc, job.out, s.out_plane());
    }
    if (activation != nullptr && in_stores == nullptr) {
      apply_rest_of_activation(context.isa, *activation, chunk, per_chunk, end, s, y);
    }
  });
}

}  // namespace onemodel::opt
