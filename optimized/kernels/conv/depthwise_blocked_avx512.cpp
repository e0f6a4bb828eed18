// The channel-blocked depthwise kernel on the AVX-512 path (depthwise_blocked.hpp): per block of
// 16 output channels, the padded input interleaved by channel (tile[(py * PW + px) * 16 + lane]),
// then each output row in register tiles of up to 8 positions, each accumulator one vector of 16
// channels, the taps in row-major order; then the block's outputs are written back plane by plane.
#include <immintrin.h>

#include <algorithm>
#include <cstdint>

#include "optimized/kernels/conv/depthwise_blocked.hpp"
#include "optimized/kernels/gemm/gemm_buffer.hpp"
#include "optimized/kernels/transpose/transpose16_avx512.hpp"

namespace onemodel::opt {
namespace {

constexpr std::size_t L = kDepthwiseBlockLanes;
constexpr std::size_t kTileOutputs = 8;  // accumulators per register tile

// exact-mode.md rule 4: NaN lanes become 0x7FC00000.
__m512 canonical(__m512 v) noexcept {
  return _mm512_mask_blend_ps(_mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q), v,
                              _mm512_castsi512_ps(_mm512_set1_epi32(0x7FC00000)));
}

using avx512_transpose::transpose16;

__mmask16 first_lanes(std::size_t count) noexcept {
  return static_cast<__mmask16>(count >= 16 ? 0xFFFFu : (1u << count) - 1u);
}

struct BlockJob {
  const Conv2dShape* s = nullptr;
  const float* tile = nullptr;     // padded_h x padded_w positions of 16 lanes
  std::size_t tile_w = 0;          // padded_w
  const float* weights = nullptr;  // taps positions of 16 lanes
  const float* bias = nullptr;     // 16 lanes, or nullptr
  float* out = nullptr;            // out_h x out_w positions of 16 lanes
};

// N outputs (oy, ox .. ox + N - 1) of the block's 16 channels. exact-mode.md rule 1 in exact
// mode: the product rounded, then the sum rounded.
template <bool kExact, std::size_t N>
void output_tile(const BlockJob& j, std::size_t oy, std::size_t ox) noexcept {
  const Conv2dShape& s = *j.s;
  __m512 acc[N];
  for (std::size_t r = 0; r < N; ++r) acc[r] = _mm512_setzero_ps();
  const std::size_t step = s.stride_w * L;
  const float* weight = j.weights;
  for (std::size_t ky = 0; ky < s.kernel_h; ++ky) {
    const float* row = j.tile + ((oy * s.stride_h + ky * s.dilation_h) * j.tile_w + ox * s.stride_w) * L;
    for (std::size_t kx = 0; kx < s.kernel_w; ++kx, weight += L) {
      const __m512 w = _mm512_loadu_ps(weight);
      const float* p = row + kx * s.dilation_w * L;
      for (std::size_t r = 0; r < N; ++r) {
        const __m512 v = _mm512_loadu_ps(p + r * step);
        if constexpr (kExact) {
          acc[r] = _mm512_add_ps(acc[r], _mm512_mul_ps(w, v));
        } else {
          acc[r] = _mm512_fmadd_ps(w, v, acc[r]);
        }
      }
    }
  }
  float* dst = j.out + (oy * s.out_w + ox) * L;
  const __m512 b = j.bias != nullptr ? _mm512_loadu_ps(j.bias) : _mm512_setzero_ps();
  for (std::size_t r = 0; r < N; ++r) {
    __m512 v = acc[r];
    if (j.bias != nullptr) v = _mm512_add_ps(v, b);  // rule 4: one rounded addition after the sum
    if constexpr (kExact) v = canonical(v);
    _mm512_storeu_ps(dst + r * L, v);
  }
}

template <bool kExact>
void output_tile_n(const BlockJob& j, std::size_t oy, std::size_t ox, std::size_t n) noexcept {
  switch (n) {
    case 1: return output_tile<kExact, 1>(j, oy, ox);
    case 2: return output_tile<kExact, 2>(j, oy, ox);
    case 3: return output_tile<kExact, 3>(j, oy, ox);
    case 4: return output_tile<kExact, 4>(j, oy, ox);
    case 5: return output_tile<kExact, 5>(j, oy, ox);
    case 6: return output_tile<kExact, 6>(j, oy, ox);
    case 7: return output_tile<kExact, 7>(j, oy, ox);
    default: return output_tile<kExact, 8>(j, oy, ox);
  }
}

template <bool kExact>
void block_outputs(const BlockJob& j) noexcept {
  const Conv2dShape& s = *j.s;
  for (std::size_t oy = 0; oy < s.out_h; ++oy) {
    for (std::size_t ox = 0; ox < s.out_w; ox += kTileOutputs) {
      output_tile_n<kExact>(j, oy, ox, std::min(kTileOutputs, s.out_w - ox));
    }
  }
}

// Per-thread scratch (grows once): the padded tile, the block's weights and outputs. `zeroed`
// names the geometry whose padding positions the tile holds as zeros: positions that hold input
// are rewritten for every block, the others are written only here. Each position of the tile, the
// weights and the outputs is one vector of 16 floats, so the buffers are 64-byte aligned
// (GrowingBuffer) and every load and store of the block's arithmetic is one cache line: in a
// std::vector (16-byte aligned) every such access had spanned two lines, halving the loads a
// cycle could issue, and a 5x5 layer over 1152 channels of 7 x 7 took 1.36x its time.
struct Scratch {
  gemm::GrowingBuffer tile, weights, out, bias;
  std::size_t zeroed_h = 0, zeroed_w = 0, zeroed_top = 0, zeroed_left = 0, zeroed_in_h = 0, zeroed_in_w = 0;
  const float* zeroed_data = nullptr;
};

Scratch& thread_scratch() {
  thread_local Scratch scratch;
  return scratch;
}

// The block's padded tile, its padding positions zeroed once per geometry.
float* prepare_tile(const Conv2dShape& s, Scratch& sc) {
  const std::size_t ph = s.padded_h(), pw = s.padded_w(), floats = ph * pw * L;
  float* tile = sc.tile.reserve(floats);
  if (sc.zeroed_data != tile || sc.zeroed_h != ph || sc.zeroed_w != pw || sc.zeroed_top != s.pad_top ||
      sc.zeroed_left != s.pad_left || sc.zeroed_in_h != s.in_h || sc.zeroed_in_w != s.in_w) {
    std::fill(tile, tile + floats, 0.0f);
    sc.zeroed_data = tile;
    sc.zeroed_h = ph;
    sc.zeroed_w = pw;
    sc.zeroed_top = s.pad_top;
    sc.zeroed_left = s.pad_left;
    sc.zeroed_in_h = s.in_h;
    sc.zeroed_in_w = s.in_w;
  }
  return tile;
}

}  // namespace

void depthwise_blocked_conv2d_f32__avx512(const KernelContext& context, const Conv2dShape& s, const float* x,
                                          const float* w, const float* bias, float* y,
                                          const ConvActivation* activation) {
  const std::size_t cout = s.out_channels;
  if (s.batch == 0 || cout == 0 || s.out_plane() == 0) return;
  const std::size_t multiplier = cout / s.in_channels;
  const std::size_t taps = s.taps();
  const std::size_t per_image = (cout + L - 1) / L;
  const std::size_t blocks = s.batch * per_image;
  const std::size_t ph = s.padded_h(), pw = s.padded_w();
  // The input rows and columns the windows reach (padded row py holds input row py - pad_top).
  const std::size_t row_past = std::min(s.in_h, ph > s.pad_top ? ph - s.pad_top : 0);
  const std::size_t col_past = std::min(s.in_w, pw > s.pad_left ? pw - s.pad_left : 0);
  // Per block: out_plane * taps vector multiply-adds (about 8 per nanosecond on this CPU) and the
  // two interleaving copies (half a nanosecond per float moved).
  const double per_block = static_cast<double>(s.out_plane() * taps) / 8.0 +
                           static_cast<double>((row_past * col_past + s.out_plane()) * L) * 0.5;
  const bool exact = context.exact;
  context.parallel_for(blocks, per_block * static_cast<double>(blocks), [&](std::size_t block) {
    Scratch& sc = thread_scratch();
    float* tile = prepare_tile(s, sc);
    float* weights = sc.weights.reserve(taps * L);
    float* out = sc.out.reserve(s.out_plane() * L);
    float* block_bias = sc.bias.reserve(L);
    const std::size_t n = block / per_image, oc0 = (block % per_image) * L;
    const std::size_t lanes = std::min(L, cout - oc0);
    // The input rows interleaved 16 columns at a time; lanes past `lanes` (a last partial block)
    // hold +0, computed and never stored.
    const float* src[L];
    for (std::size_t l = 0; l < L; ++l) {
      src[l] = l < lanes ? x + (n * s.in_channels + (oc0 + l) / multiplier) * s.in_plane() : nullptr;
    }
    __m512 rows[L], columns[L];
    if (col_past == s.in_w) {
      // Whole input rows: 16 positions of the flattened rows at a time, so a 7 x 7 map takes 4
      // transposes rather than one per row of 7; each position to its place in the padded tile.
      const std::size_t positions = row_past * s.in_w;
      std::size_t iy = 0, ix = 0;
      for (std::size_t p0 = 0; p0 < positions; p0 += L) {
        const std::size_t count = std::min(L, positions - p0);
        const __mmask16 mask = first_lanes(count);
        for (std::size_t l = 0; l < L; ++l) {
          rows[l] = src[l] != nullptr ? _mm512_maskz_loadu_ps(mask, src[l] + p0) : _mm512_setzero_ps();
        }
        transpose16(rows, columns);
        for (std::size_t c = 0; c < count; ++c) {
          _mm512_storeu_ps(tile + ((iy + s.pad_top) * pw + s.pad_left + ix) * L, columns[c]);
          if (++ix == s.in_w) {
            ix = 0;
            ++iy;
          }
        }
      }
    }
    for (std::size_t iy = 0; iy < (col_past == s.in_w ? 0 : row_past); ++iy) {
      float* dst = tile + ((iy + s.pad_top) * pw + s.pad_left) * L;
      for (std::size_t c0 = 0; c0 < col_past; c0 += L) {
        const std::size_t count = std::min(L, col_past - c0);
        const __mmask16 mask = first_lanes(count);
        for (std::size_t l = 0; l < L; ++l) {
          rows[l] = src[l] != nullptr ? _mm512_maskz_loadu_ps(mask, src[l] + iy * s.in_w + c0) : _mm512_setzero_ps();
        }
        transpose16(rows, columns);
        for (std::size_t c = 0; c < count; ++c) _mm512_storeu_ps(dst + (c0 + c) * L, columns[c]);
      }
    }
    // The block's weights interleaved the same way, 16 taps at a time (each channel's taps are
    // contiguous in w): a scalar loop over taps x lanes had cost about as much as the block's
    // arithmetic on a 7 x 7 map.
    for (std::size_t t0 = 0; t0 < taps; t0 += L) {
      const std::size_t count = std::min(L, taps - t0);
      const __mmask16 mask = first_lanes(count);
      for (std::size_t l = 0; l < L; ++l) {
        rows[l] = l < lanes ? _mm512_maskz_loadu_ps(mask, w + (oc0 + l) * taps + t0) : _mm512_setzero_ps();
      }
      transpose16(rows, columns);
      for (std::size_t t = 0; t < count; ++t) _mm512_storeu_ps(weights + (t0 + t) * L, columns[t]);
    }
    for (std::size_t l = 0; l < L; ++l) block_bias[l] = l < lanes && bias != nullptr ? bias[oc0 + l] : 0.0f;
    BlockJob job;
    job.s = &s;
    job.tile = tile;
    job.tile_w = pw;
    job.weights = weights;
    job.bias = bias != nullptr ? block_bias : nullptr;
    job.out = out;
    if (exact) {
      block_outputs<true>(job);
    } else {
      block_outputs<false>(job);
    }
    // The block's outputs back to their planes, 16 positions at a time.
    const std::size_t plane = s.out_plane();
    float* first = y + (n * cout + oc0) * plane;
    for (std::size_t p0 = 0; p0 < plane; p0 += L) {
      const std::size_t count = std::min(L, plane - p0);
      for (std::size_t q = 0; q < L; ++q) {
        rows[q] = q < count ? _mm512_loadu_ps(out + (p0 + q) * L) : _mm512_setzero_ps();
      }
      transpose16(rows, columns);
      const __mmask16 mask = first_lanes(count);
      for (std::size_t l = 0; l < lanes; ++l) _mm512_mask_storeu_ps(first + l * plane + p0, mask, columns[l]);
    }
    if (activation != nullptr) {
      // The normalization per plane (its factor and shift are the channel's); the residual and
      // the activation are element-wise, so one call over the block's adjacent planes gives each
      // value what a call per plane gives it, at a fraction of the calls on 7x7 maps.
      if (activation->norm_scale != nullptr) {
        for (std::size_t l = 0; l < lanes; ++l) {
          float* p = first + l * plane;
          const std::size_t oc = oc0 + l;
          batchnorm::batch_norm_plane_f32(context.isa, p, p, plane, activation->norm_scale[oc], activation->norm_shift[oc]);
        }
      }
      ConvActivation rest = *activation;
      rest.norm_scale = nullptr;
      rest.norm_shift = nullptr;
      apply_conv_activation(context.isa, rest, oc0, first, lanes * plane, (n * cout + oc0) * plane);
    }
  });
}

}  // namespace onemodel::opt
