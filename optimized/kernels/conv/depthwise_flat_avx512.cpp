// The flattened-plane depthwise kernel on the AVX-512 path (depthwise_flat.hpp). Compiled with the
// AVX-512 flags of cmake/kernel_sources.cmake; called only on the AVX-512 path.
#include <immintrin.h>

#include <algorithm>
#include <array>
#include <cstddef>
#include <utility>

#include "optimized/kernels/batchnorm/batch_norm.hpp"
#include "optimized/kernels/conv/depthwise_direct_lanes_avx512.hpp"
#include "optimized/kernels/conv/depthwise_flat.hpp"

namespace onemodel::opt {
namespace {

using L = Avx512DirectLanes;
constexpr std::size_t kLanes = 16;
constexpr std::size_t kMaxVectors = kDepthwiseFlatMaxPlane / kLanes;
// Output planes per chunk: one image's consecutive channels, as the channel-blocked kernel's
// blocks of sixteen, so a chunk's activation is one element-wise call over adjacent planes.
constexpr std::size_t kPlanesPerChunk = 16;

// The call's geometry, computed once: each tap's offset in the flattened input plane and, per
// vector of sixteen output positions and tap, the lanes whose input lies inside the map.
struct FlatTable {
  std::size_t vectors = 0;
  std::size_t taps = 0;
  std::ptrdiff_t offset[kDepthwiseFlatMaxTaps] = {};
  __mmask16 inside[kMaxVectors][kDepthwiseFlatMaxTaps] = {};
  __mmask16 last_store = 0;  // the output lanes of the last vector
};

// Built every call (the plan holds no per-shape state for this kernel), so it is cheap: one pass
// over the output positions with row and column counters (no division) marks, per vector, the
// lanes each window row and each window column keeps inside the map; a tap keeps the lanes both
// keep.
void build_table(const Conv2dShape& s, FlatTable& t) noexcept {
  const auto h = static_cast<std::ptrdiff_t>(s.in_h), w = static_cast<std::ptrdiff_t>(s.in_w);
  const auto top = static_cast<std::ptrdiff_t>(s.pad_top), left = static_cast<std::ptrdiff_t>(s.pad_left);
  t.vectors = (s.out_plane() + kLanes - 1) / kLanes;
  t.taps = s.taps();
  unsigned row_inside[kMaxVectors][kDepthwiseFlatMaxTaps] = {};
  unsigned col_inside[kMaxVectors][kDepthwiseFlatMaxTaps] = {};
  std::ptrdiff_t oy = 0, ox = 0;
  for (std::size_t i = 0; i < s.out_plane(); ++i) {
    const std::size_t v = i / kLanes;
    const unsigned bit = 1u << (i % kLanes);
    for (std::size_t ky = 0; ky < s.kernel_h; ++ky) {
      const std::ptrdiff_t iy = oy + static_cast<std::ptrdiff_t>(ky) - top;
      if (iy >= 0 && iy < h) row_inside[v][ky] |= bit;
    }
    for (std::size_t kx = 0; kx < s.kernel_w; ++kx) {
      const std::ptrdiff_t ix = ox + static_cast<std::ptrdiff_t>(kx) - left;
      if (ix >= 0 && ix < w) col_inside[v][kx] |= bit;
    }
    if (++ox == w) {
      ox = 0;
      ++oy;
    }
  }
  for (std::size_t ky = 0; ky < s.kernel_h; ++ky) {
    for (std::size_t kx = 0; kx < s.kernel_w; ++kx) {
      const std::size_t tap = ky * s.kernel_w + kx;
      t.offset[tap] = (static_cast<std::ptrdiff_t>(ky) - top) * w + static_cast<std::ptrdiff_t>(kx) - left;
      for (std::size_t v = 0; v < t.vectors; ++v) {
        t.inside[v][tap] = static_cast<__mmask16>(row_inside[v][ky] & col_inside[v][kx]);
      }
    }
  }
  const std::size_t tail = s.out_plane() - (t.vectors - 1) * kLanes;
  t.last_store = static_cast<__mmask16>(tail >= kLanes ? 0xFFFFu : (1u << tail) - 1u);
}

// One output plane of kVectors vectors from one input plane: every accumulator in a register, the
// taps outermost so each weight is broadcast once per plane.
template <bool kExact, std::size_t kVectors>
void plane_outputs(const FlatTable& t, const float* in, const float* w, const float* bias, float* out) noexcept {
  // The loops over v are unrolled before register allocation (the pragmas), so that each acc[v] is a
  // register: rolled, GCC 12 kept the array on the stack and stored every accumulator after each
  // tap, which made a 14 x 14 plane 1.7x slower than the channel-blocked kernel.
  __m512 acc[kVectors];
#pragma GCC unroll 16
  for (std::size_t v = 0; v < kVectors; ++v) acc[v] = L::zero();  // +0 (exact-mode.md rule 3)
  for (std::size_t tap = 0; tap < t.taps; ++tap) {
    const __m512 wv = L::set1(w[tap]);
    const std::ptrdiff_t at = t.offset[tap];
#pragma GCC unroll 16
    for (std::size_t v = 0; v < kVectors; ++v) {
      const __m512 xv = L::load_or_zero(in, at + static_cast<std::ptrdiff_t>(v * kLanes), t.inside[v][tap]);
      acc[v] = L::step<kExact>(acc[v], wv, xv);
    }
  }
#pragma GCC unroll 16
  for (std::size_t v = 0; v < kVectors; ++v) {
    __m512 r = bias != nullptr ? L::add(acc[v], L::set1(*bias)) : acc[v];
    if constexpr (kExact) r = L::canonical_nan(r);
    if (v + 1 < kVectors) {
      L::storeu(out + v * kLanes, r);
    } else {
      _mm512_mask_storeu_ps(out + v * kLanes, t.last_store, r);
    }
  }
}

using PlaneFn = void (*)(const FlatTable&, const float*, const float*, const float*, float*) noexcept;

template <bool kExact, std::size_t... kV>
constexpr auto plane_table(std::index_sequence<kV...>) {
  return std::array<PlaneFn, sizeof...(kV)>{&plane_outputs<kExact, kV + 1>...};
}

}  // namespace

void depthwise_flat_conv2d_f32__avx512(const KernelContext& context, const Conv2dShape& s, const float* x,
                                       const float* w, const float* bias, float* y, const ConvActivation* activation) {
  const std::size_t cout = s.out_channels;
  if (s.batch == 0 || cout == 0 || s.out_plane() == 0) return;
  FlatTable table;
  build_table(s, table);
  static constexpr auto kExactPlanes = plane_table<true>(std::make_index_sequence<kMaxVectors>{});
  static constexpr auto kFastPlanes = plane_table<false>(std::make_index_sequence<kMaxVectors>{});
  const PlaneFn plane_fn = (context.exact ? kExactPlanes : kFastPlanes)[table.vectors - 1];
  const std::size_t multiplier = cout / s.in_channels;
  const std::size_t taps = s.taps();
  const std::size_t plane = s.out_plane();
  const std::size_t per_image = (cout + kPlanesPerChunk - 1) / kPlanesPerChunk;
  const std::size_t chunks = s.batch * per_image;
  // Per plane: vectors x taps multiply-adds and as many loads, about 8 a nanosecond.
  const double per_chunk = static_cast<double>(kPlanesPerChunk * table.vectors * taps) / 8.0;
  context.parallel_for(chunks, per_chunk * static_cast<double>(chunks), [&](std::size_t chunk) {
    const std::size_t n = chunk / per_image, oc0 = (chunk % per_image) * kPlanesPerChunk;
    const std::size_t planes = std::min(kPlanesPerChunk, cout - oc0);
    float* first = y + (n * cout + oc0) * plane;
    for (std::size_t p = 0; p < planes; ++p) {
      const std::size_t oc = oc0 + p;
      const float* in = x + (n * s.in_channels + oc / multiplier) * s.in_plane();
      plane_fn(table, in, w + oc * taps, bias != nullptr ? bias + oc : nullptr, first + p * plane);
    }
    if (activation != nullptr) {
      // As the channel-blocked kernel: the normalization per plane (its factor and shift are the
      // channel's), then the residual and the activation in one element-wise call over the
      // chunk's adjacent planes.
      if (activation->norm_scale != nullptr) {
        for (std::size_t p = 0; p < planes; ++p) {
          float* out = first + p * plane;
          batchnorm::batch_norm_plane_f32(context.isa, out, out, plane, activation->norm_scale[oc0 + p],
                                          activation->norm_shift[oc0 + p]);
        }
      }
      ConvActivation rest = *activation;
      rest.norm_scale = nullptr;
      rest.norm_shift = nullptr;
      apply_conv_activation(context.isa, rest, oc0, first, planes * plane, (n * cout + oc0) * plane);
    }
  });
}

}  // namespace onemodel::opt
