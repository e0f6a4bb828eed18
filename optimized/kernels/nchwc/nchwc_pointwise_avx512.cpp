// The blocked 1x1 convolution on the AVX-512 path (nchwc.hpp). A register tile is kRows
// positions by two blocks of sixteen output channels: per input channel, kRows broadcasts of x
// read in place (no packed copy of the input, in either layout) meet two vectors of packed
// weights. Positions ride in broadcasts, not in lanes, so a 7 x 7 or 14 x 14 map leaves no
// half-empty vector (the NCHW product's last column tile of a 7 x 7 map had cost 1.4x a full one
// per column, docs/kernel-performance.md "Session 42"). Compiled with the AVX-512 flags.
#include <immintrin.h>

#include <algorithm>
#include <cstddef>

#include "optimized/kernels/conv/fused_activation_avx512.hpp"
#include "optimized/kernels/nchwc/nchwc.hpp"
#include "optimized/kernels/transpose/transpose16_avx512.hpp"

namespace onemodel::opt::nchwc {
namespace {

constexpr std::size_t kRows = 12;    // positions per register tile: 24 accumulators (14 ran at 0.65x)
constexpr std::size_t kPair = 2;     // output blocks per register tile
// Multiply-adds (scalar) a chunk of work aims at: enough to pay for a claim, small enough that
// two threads share a 7 x 7 layer evenly.
constexpr double kChunkMultiplyAdds = 393216.0;
constexpr std::size_t kSmallInputBytes = 131072;
constexpr std::size_t kPrefetchSteps = 16;  // input channels ahead the weights are asked for

struct Geometry {
  const Pointwise* job = nullptr;
  std::size_t out_blocks = 0, pairs = 0, tiles = 0;
  std::size_t in_image = 0, out_image = 0;  // floats per image
};

// The accumulators of positions p0 .. p0 + R - 1 and output blocks b0 .. b0 + P - 1 (P of 1 or
// 2), holding the bias: input channel by input channel, one fused multiply-add each.
template <bool kInBlocked, std::size_t R, std::size_t P>
inline __attribute__((always_inline)) void accumulate(const Geometry& g, const float* x, const float* w,
                                                      __m512 (&acc)[R][P]) noexcept {
  const std::size_t plane = g.job->plane, cin = g.job->in_channels;
  for (std::size_t c0 = 0; c0 < cin; c0 += kBlock) {
    // Input channels c0 .. c0 + 15 are one block: at x + c0 * plane in both layouts.
    const float* xb = x + c0 * plane;
    const float* wb = w + c0 * kPair * kBlock;
    const std::size_t lanes = std::min(kBlock, cin - c0);
    for (std::size_t l = 0; l < lanes; ++l) {
      // The weights kPrefetchSteps input channels ahead (two lines each), asked for now: a
      // layer's weights come from memory (a whole model's outrun the caches).
      const char* ahead = reinterpret_cast<const char*>(wb + (l + kPrefetchSteps) * kPair * kBlock);
      _mm_prefetch(ahead, _MM_HINT_T0);
      _mm_prefetch(ahead + 64, _MM_HINT_T0);
      __m512 wv[P];
#pragma GCC unroll 2
      for (std::size_t b = 0; b < P; ++b) wv[b] = _mm512_loadu_ps(wb + (l * kPair + b) * kBlock);
#pragma GCC unroll 16
      for (std::size_t r = 0; r < R; ++r) {
        const __m512 v = _mm512_set1_ps(kInBlocked ? xb[r * kBlock + l] : xb[l * plane + r]);
#pragma GCC unroll 2
        for (std::size_t b = 0; b < P; ++b) acc[r][b] = _mm512_fmadd_ps(v, wv[b], acc[r][b]);
      }
    }
  }
}

template <std::size_t R, std::size_t P>
inline __attribute__((always_inline)) void start_from_bias(const float* bias, __m512 (&acc)[R][P]) noexcept {
  for (std::size_t b = 0; b < P; ++b) {
    const __m512 v = _mm512_loadu_ps(bias + b * kBlock);
#pragma GCC unroll 16
    for (std::size_t r = 0; r < R; ++r) acc[r][b] = v;
  }
}

// One register tile into a blocked y: the residual (same layout) added and the activation
// applied in the stores when `kOp` is fused (kFuse), else the values as summed.
template <bool kInBlocked, std::size_t R, std::size_t P, bool kFuse, ew::UnaryOp kOp>
void tile_blocked(const Geometry& g, std::size_t n, std::size_t p0, std::size_t b0,
                  const fused_activation::Args& args) noexcept {
  const Pointwise& j = *g.job;
  const float* x = j.x + n * g.in_image + (kInBlocked ? p0 * kBlock : p0);
  const float* w = j.weights + b0 * j.in_channels * kBlock;
  const std::size_t at = n * g.out_image + b0 * j.plane * kBlock + p0 * kBlock;
  float* y = j.y + at;
  __m512 acc[R][P];
  start_from_bias(j.bias + b0 * kBlock, acc);
  accumulate<kInBlocked, R, P>(g, x, w, acc);
  const float* residual = j.activation != nullptr ? j.activation->residual : nullptr;
  for (std::size_t b = 0; b < P; ++b) {
#pragma GCC unroll 16
    for (std::size_t r = 0; r < R; ++r) {
      __m512 v = acc[r][b];
      const std::size_t off = b * j.plane * kBlock + r * kBlock;
      if (residual != nullptr) {
        const __m512 rv = _mm512_loadu_ps(residual + at + off);
        v = j.activation->residual_first ? _mm512_add_ps(rv, v) : _mm512_add_ps(v, rv);
      }
      if constexpr (kFuse) v = fused_activation::apply_op<kOp>(args, v);
      _mm512_storeu_ps(y + off, v);
    }
  }
}

// One register tile into a [N, C, H, W] y: each vector's lanes to their channel planes.
template <bool kInBlocked, std::size_t R, std::size_t P>
void tile_plain(const Geometry& g, std::size_t n, std::size_t p0, std::size_t b0) noexcept {
  const Pointwise& j = *g.job;
  const float* x = j.x + n * g.in_image + (kInBlocked ? p0 * kBlock : p0);
  const float* w = j.weights + b0 * j.in_channels * kBlock;
  __m512 acc[R][P];
  start_from_bias(j.bias + b0 * kBlock, acc);
  accumulate<kInBlocked, R, P>(g, x, w, acc);
  // Sixteen positions by sixteen channels transposed in registers, then each channel's R
  // positions in one masked store.
  const __mmask16 rows = static_cast<__mmask16>((1u << R) - 1u);
  for (std::size_t b = 0; b < P; ++b) {
    __m512 in[kBlock], out[kBlock];
    for (std::size_t r = 0; r < kBlock; ++r) in[r] = r < R ? acc[r][b] : _mm512_setzero_ps();
    avx512_transpose::transpose16(in, out);
    const std::size_t c0 = (b0 + b) * kBlock, count = std::min(kBlock, j.out_channels - c0);
    float* y = j.y + n * g.out_image + c0 * j.plane + p0;
    for (std::size_t c = 0; c < count; ++c) _mm512_mask_storeu_ps(y + c * j.plane, rows, out[c]);
  }
}

template <bool kInBlocked, bool kOutBlocked, std::size_t P, bool kFuse, ew::UnaryOp kOp>
void tile_rows(const Geometry& g, std::size_t n, std::size_t p0, std::size_t rows, std::size_t b0,
               const fused_activation::Args& args) noexcept {
  const auto one = [&](auto r) {
    constexpr std::size_t R = decltype(r)::value;
    if constexpr (kOutBlocked) {
      tile_blocked<kInBlocked, R, P, kFuse, kOp>(g, n, p0, b0, args);
    } else {
      tile_plain<kInBlocked, R, P>(g, n, p0, b0);
    }
  };
  switch (rows) {
#define ONEMODEL_NCHWC_ROWS(k) \
  case k: return one(std::integral_constant<std::size_t, k>{});
    ONEMODEL_NCHWC_ROWS(1) ONEMODEL_NCHWC_ROWS(2) ONEMODEL_NCHWC_ROWS(3) ONEMODEL_NCHWC_ROWS(4)
    ONEMODEL_NCHWC_ROWS(5) ONEMODEL_NCHWC_ROWS(6) ONEMODEL_NCHWC_ROWS(7) ONEMODEL_NCHWC_ROWS(8)
    ONEMODEL_NCHWC_ROWS(9) ONEMODEL_NCHWC_ROWS(10) ONEMODEL_NCHWC_ROWS(11) ONEMODEL_NCHWC_ROWS(12)
    ONEMODEL_NCHWC_ROWS(13)
#undef ONEMODEL_NCHWC_ROWS
    default: return one(std::integral_constant<std::size_t, kRows>{});
  }
}

template <bool kInBlocked, bool kOutBlocked, bool kFuse, ew::UnaryOp kOp>
void run_as(const KernelContext& context, const Geometry& g, const fused_activation::Args& args) {
  const Pointwise& j = *g.job;
  // A chunk is a range of position tiles by a range of block pairs, tiles outermost so that the
  // caller (which claims from the front, thread_pool.hpp) takes the top of the map in every
  // layer and reads mostly what it wrote. Whole pairs per chunk when a tile of them is small.
  const double per_unit = static_cast<double>(kRows * j.in_channels * kPair * kBlock);
  const std::size_t units = std::max<std::size_t>(1, static_cast<std::size_t>(kChunkMultiplyAdds / per_unit));
  // An input smaller than the weights (a small map) is taken whole by every chunk, which is a
  // range of output channels: each pair's weights are read once (a whole pass over them per tile
  // had streamed them from memory several times over a 7 x 7 map), and the input, reread per
  // pair, stays near. A larger one is split by positions first (whole pairs per chunk when they
  // are few), so every layer's caller works on the top of the map.
  const bool small = j.plane <= j.out_channels || j.plane * j.in_channels * sizeof(float) <= kSmallInputBytes;
  const std::size_t pairs_per_chunk =
      small ? std::clamp<std::size_t>(units / g.tiles, 1, g.pairs) : std::min(g.pairs, units);
  const std::size_t tiles_per_chunk = small ? g.tiles : std::max<std::size_t>(1, units / g.pairs);
  const std::size_t pair_chunks = (g.pairs + pairs_per_chunk - 1) / pairs_per_chunk;
  const std::size_t tile_chunks = (g.tiles + tiles_per_chunk - 1) / tiles_per_chunk;
  const std::size_t per_image = pair_chunks * tile_chunks;
  const double total = static_cast<double>(j.batch * j.plane * j.in_channels * g.out_blocks * kBlock);
  // About 28 fused multiply-adds of sixteen lanes per nanosecond.
  const auto run_chunk = [&](std::size_t n, std::size_t in_image) {
    const std::size_t t_first = (in_image / pair_chunks) * tiles_per_chunk;
    const std::size_t t_end = std::min(g.tiles, t_first + tiles_per_chunk);
    const std::size_t q_first = (in_image % pair_chunks) * pairs_per_chunk;
    const std::size_t q_end = std::min(g.pairs, q_first + pairs_per_chunk);
    // Block pairs outermost: a pair's weights stay near over the chunk's tiles.
    for (std::size_t q = q_first; q < q_end; ++q) {
      const std::size_t b0 = q * kPair;
      for (std::size_t t = t_first; t < t_end; ++t) {
        const std::size_t p0 = t * kRows, rows = std::min(kRows, j.plane - p0);
        if (b0 + 1 < g.out_blocks) {
          tile_rows<kInBlocked, kOutBlocked, 2, kFuse, kOp>(g, n, p0, rows, b0, args);
        } else {
          tile_rows<kInBlocked, kOutBlocked, 1, kFuse, kOp>(g, n, p0, rows, b0, args);
        }
      }
    }
    if (j.activation == nullptr || kFuse) return;
    // What the stores did not apply, over the chunk's outputs (still in cache).
    const std::size_t p_first = t_first * kRows, p_end = std::min(j.plane, t_end * kRows);
    const std::size_t b_first = q_first * kPair, b_end = std::min(g.out_blocks, q_end * kPair);
    if constexpr (kOutBlocked) {
      if (!j.activation->activate) return;  // the residual alone: added in the stores
      ConvActivation rest = *j.activation;
      rest.residual = nullptr;  // added in the stores
      for (std::size_t b = b_first; b < b_end; ++b) {
        const std::size_t at = n * g.out_image + (b * j.plane + p_first) * kBlock;
        apply_conv_activation(context.isa, rest, 0, j.y + at, (p_end - p_first) * kBlock, at);
      }
    } else {
      const std::size_t c_end = std::min(j.out_channels, b_end * kBlock);
      if (p_first == 0 && p_end == j.plane) {
        // Whole planes: the chunk's channels are one run (one call, not one per channel: a
        // Sigmoid after a 1x1 layer on a 1 x 1 map had taken a call per value).
        const std::size_t at = n * g.out_image + b_first * kBlock * j.plane;
        ConvActivation whole = *j.activation;
        whole.norm_scale = nullptr;
        apply_conv_activation(context.isa, whole, 0, j.y + at, (c_end - b_first * kBlock) * j.plane, at);
        return;
      }
      for (std::size_t c = b_first * kBlock; c < c_end; ++c) {
        const std::size_t at = n * g.out_image + c * j.plane + p_first;
        apply_conv_activation(context.isa, *j.activation, c, j.y + at, p_end - p_first, at);
      }
    }
  };
  if (runs_by_images(context, j.batch)) {
    context.parallel_for(j.batch, total / 448.0, [&](std::size_t n) {
      for (std::size_t c = 0; c < per_image; ++c) run_chunk(n, c);
    });
    return;
  }
  context.parallel_for(j.batch * per_image, total / 448.0,
                       [&](std::size_t chunk) { run_chunk(chunk / per_image, chunk % per_image); });
}

template <bool kInBlocked, bool kOutBlocked>
void run_layouts(const KernelContext& context, const Geometry& g) {
  const ConvActivation* a = g.job->activation;
  // In the stores: an activation of fused_activation_avx512.hpp into a blocked y (the residual
  // is added there too). Anything else after the chunk, by the element-wise kernels.
  if (kOutBlocked && activation_fuses_in_store(a)) {
    const fused_activation::Args args = fused_activation::args_of(*a);
    fused_activation::with_op(a->args.op, [&](auto op) {
      run_as<kInBlocked, kOutBlocked, true, decltype(op)::value>(context, g, args);
    });
    return;
  }
  run_as<kInBlocked, kOutBlocked, false, ew::UnaryOp::Relu>(context, g, fused_activation::Args{});
}

}  // namespace

void pointwise_f32__avx512(const KernelContext& context, const Pointwise& job) {
  if (job.batch == 0 || job.plane == 0 || job.out_channels == 0) return;
  Geometry g;
  g.job = &job;
  g.out_blocks = blocks_of(job.out_channels);
  g.pairs = (g.out_blocks + kPair - 1) / kPair;
  g.tiles = (job.plane + kRows - 1) / kRows;
  g.in_image = (job.in_blocked ? blocks_of(job.in_channels) * kBlock : job.in_channels) * job.plane;
  g.out_image = (job.out_blocked ? g.out_blocks * kBlock : job.out_channels) * job.plane;
  if (job.in_blocked) {
    if (job.out_blocked) return run_layouts<true, true>(context, g);
    return run_layouts<true, false>(context, g);
  }
  if (job.out_blocked) return run_layouts<false, true>(context, g);
  run_layouts<false, false>(context, g);
}

}  // namespace onemodel::opt::nchwc
