// The channel-blocked depthwise kernel (depthwise_blocked.hpp), written once over a lane type so
// that the AVX-512 path (blocks of sixteen channels, depthwise_blocked_avx512.cpp) and the AVX2
// path (blocks of eight, depthwise_blocked_avx2.cpp) compute every output in the same order: per
// block of kLanes output channels, the padded input interleaved by channel (tile[(py * PW + px) *
// kLanes + lane]), then each output row in register tiles of up to 8 positions, each accumulator
// one vector of kLanes channels, the taps in row-major order; then the block's outputs are written
// back plane by plane. Everything here is a template over the lane traits or sits in an anonymous
// namespace, and each per-path file defines its traits in an anonymous namespace, so code built
// with the AVX-512 flags is never merged by the linker with the AVX2 file's (the per-thread scratch
// is one per file). Included by per-ISA kernel files only.
//
// Lane traits L provide, besides what depthwise_stride1_body.hpp lists (kLanes, Vec, Mask, zero,
// loadu, storeu, add, step<kExact>, canonical_nan): first_lanes(count) (lanes [0, min(count,
// kLanes))); load_first(p, mask) (lanes outside `mask` read nothing and hold +0); store_mask(p,
// mask, v); transpose(in, out) (out[c] lane r = in[r] lane c, kLanes x kLanes; only data moves).
//
// Activation traits F (the second parameter of run): kFuses (whether the path applies an
// activation in the write-back's stores), Args, args_of(activation) and apply_op<op>(args, v): the
// path's fused_activation_*.hpp operations, each the bits of the element-wise kernel's pass.
#pragma once

#include <algorithm>
#include <cstddef>
#include <type_traits>
#include <vector>

#include "optimized/kernels/batchnorm/batch_norm.hpp"
#include "optimized/kernels/conv/conv_activation_step.hpp"
#include "optimized/kernels/conv/depthwise_blocked.hpp"
#include "optimized/kernels/gemm/gemm_buffer.hpp"

namespace onemodel::opt {
namespace {
namespace depthwise_blocked_body {

constexpr std::size_t kTileOutputs = 8;  // accumulators per register tile

struct BlockJob {
  const Conv2dShape* s = nullptr;
  const float* tile = nullptr;     // padded_h x padded_w positions of kLanes lanes
  std::size_t tile_w = 0;          // padded_w
  const float* weights = nullptr;  // taps positions of kLanes lanes
  const float* bias = nullptr;     // kLanes lanes, or nullptr
  float* out = nullptr;            // out_h x out_w positions of kLanes lanes
};

// N outputs (oy, ox .. ox + N - 1) of the block's channels. exact-mode.md rule 1 in exact mode:
// the product rounded, then the sum rounded.
template <class L, bool kExact, std::size_t N>
void output_tile(const BlockJob& j, std::size_t oy, std::size_t ox) noexcept {
  constexpr std::size_t kL = L::kLanes;
  const Conv2dShape& s = *j.s;
  typename L::Vec acc[N];
  for (std::size_t r = 0; r < N; ++r) acc[r] = L::zero();
  const std::size_t step = s.stride_w * kL;
  const float* weight = j.weights;
  for (std::size_t ky = 0; ky < s.kernel_h; ++ky) {
    const float* row = j.tile + ((oy * s.stride_h + ky * s.dilation_h) * j.tile_w + ox * s.stride_w) * kL;
    for (std::size_t kx = 0; kx < s.kernel_w; ++kx, weight += kL) {
      const typename L::Vec w = L::loadu(weight);
      const float* p = row + kx * s.dilation_w * kL;
      for (std::size_t r = 0; r < N; ++r) {
        const typename L::Vec v = L::loadu(p + r * step);
        acc[r] = L::template step<kExact>(acc[r], w, v);
      }
    }
  }
  float* dst = j.out + (oy * s.out_w + ox) * kL;
  const typename L::Vec b = j.bias != nullptr ? L::loadu(j.bias) : L::zero();
  for (std::size_t r = 0; r < N; ++r) {
    typename L::Vec v = acc[r];
    if (j.bias != nullptr) v = L::add(v, b);  // rule 4: one rounded addition after the sum
    if constexpr (kExact) v = L::canonical_nan(v);
    L::storeu(dst + r * kL, v);
  }
}

// The same N outputs for a square K x K window at stride S both ways, no dilation (the 3x3 and
// 5x5 layers of the mobile networks): each input vector of a window row is loaded once and
// meets every weight that reads it, instead of once per tap (a row of N outputs reads (N - 1) *
// S + K vectors, not N * K). Output r takes tap kx at input column c = r * S + kx, so walking c
// upwards gives each output its taps of the row in increasing kx, the rows in increasing ky:
// every output's order is still output_tile's (kernels-depthwise.md "What each output is").
// Unrolled whole so that the N accumulators and K weights stay in registers (N + K + 1 <= 14 of
// the 16 AVX2 registers).
template <class L, bool kExact, std::size_t N, std::size_t K, std::size_t S>
void output_tile_square(const BlockJob& j, std::size_t oy, std::size_t ox) noexcept {
  constexpr std::size_t kL = L::kLanes;
  constexpr std::size_t kColumns = (N - 1) * S + K;
  typename L::Vec acc[N];
#pragma GCC unroll 8
  for (std::size_t r = 0; r < N; ++r) acc[r] = L::zero();
  const float* weight = j.weights;
  const float* row = j.tile + (oy * S * j.tile_w + ox * S) * kL;
  for (std::size_t ky = 0; ky < K; ++ky, row += j.tile_w * kL, weight += K * kL) {
    typename L::Vec w[K];
#pragma GCC unroll 8
    for (std::size_t kx = 0; kx < K; ++kx) w[kx] = L::loadu(weight + kx * kL);
#pragma GCC unroll 32
    for (std::size_t c = 0; c < kColumns; ++c) {
      const typename L::Vec v = L::loadu(row + c * kL);
#pragma GCC unroll 8
      for (std::size_t kx = 0; kx < K; ++kx) {
        if (c < kx || (c - kx) % S != 0 || (c - kx) / S >= N) continue;
        acc[(c - kx) / S] = L::template step<kExact>(acc[(c - kx) / S], w[kx], v);
      }
    }
  }
  float* dst = j.out + (oy * j.s->out_w + ox) * kL;
  const typename L::Vec b = j.bias != nullptr ? L::loadu(j.bias) : L::zero();
#pragma GCC unroll 8
  for (std::size_t r = 0; r < N; ++r) {
    typename L::Vec v = acc[r];
    if (j.bias != nullptr) v = L::add(v, b);  // rule 4: one rounded addition after the sum
    if constexpr (kExact) v = L::canonical_nan(v);
    L::storeu(dst + r * kL, v);
  }
}

// The tile of n outputs: output_tile_square<K, S> for a square window of that size and stride
// (K, S given), else the general output_tile (K == 0).
template <class L, bool kExact, std::size_t K, std::size_t S>
void output_tile_n(const BlockJob& j, std::size_t oy, std::size_t ox, std::size_t n) noexcept {
  if constexpr (K == 0) {
    switch (n) {
      case 1: return output_tile<L, kExact, 1>(j, oy, ox);
      case 2: return output_tile<L, kExact, 2>(j, oy, ox);
      case 3: return output_tile<L, kExact, 3>(j, oy, ox);
      case 4: return output_tile<L, kExact, 4>(j, oy, ox);
      case 5: return output_tile<L, kExact, 5>(j, oy, ox);
      case 6: return output_tile<L, kExact, 6>(j, oy, ox);
      case 7: return output_tile<L, kExact, 7>(j, oy, ox);
      default: return output_tile<L, kExact, 8>(j, oy, ox);
    }
  } else {
    switch (n) {
      case 1: return output_tile_square<L, kExact, 1, K, S>(j, oy, ox);
      case 2: return output_tile_square<L, kExact, 2, K, S>(j, oy, ox);
      case 3: return output_tile_square<L, kExact, 3, K, S>(j, oy, ox);
      case 4: return output_tile_square<L, kExact, 4, K, S>(j, oy, ox);
      case 5: return output_tile_square<L, kExact, 5, K, S>(j, oy, ox);
      case 6: return output_tile_square<L, kExact, 6, K, S>(j, oy, ox);
      case 7: return output_tile_square<L, kExact, 7, K, S>(j, oy, ox);
      default: return output_tile_square<L, kExact, 8, K, S>(j, oy, ox);
    }
  }
}

template <class L, bool kExact, std::size_t K, std::size_t S>
void block_outputs_as(const BlockJob& j) noexcept {
  const Conv2dShape& s = *j.s;
  for (std::size_t oy = 0; oy < s.out_h; ++oy) {
    for (std::size_t ox = 0; ox < s.out_w; ox += kTileOutputs) {
      output_tile_n<L, kExact, K, S>(j, oy, ox, std::min(kTileOutputs, s.out_w - ox));
    }
  }
}

// Square 3x3 and 5x5 windows at stride 1 or 2 both ways without dilation take the unrolled tile
// (output_tile_square), the rest the general one.
template <class L, bool kExact>
void block_outputs(const BlockJob& j) noexcept {
  const Conv2dShape& s = *j.s;
  const bool square = s.kernel_h == s.kernel_w && s.stride_h == s.stride_w && s.dilation_h == 1 && s.dilation_w == 1;
  if (square && s.kernel_w == 3 && s.stride_w == 1) return block_outputs_as<L, kExact, 3, 1>(j);
  if (square && s.kernel_w == 3 && s.stride_w == 2) return block_outputs_as<L, kExact, 3, 2>(j);
  if (square && s.kernel_w == 5 && s.stride_w == 1) return block_outputs_as<L, kExact, 5, 1>(j);
  if (square && s.kernel_w == 5 && s.stride_w == 2) return block_outputs_as<L, kExact, 5, 2>(j);
  block_outputs_as<L, kExact, 0, 0>(j);
}

// Per-thread scratch (grows once): the padded tile, the block's weights and outputs. `zeroed`
// names the geometry whose padding positions the tile holds as zeros: positions that hold input
// are rewritten for every block, the others are written only here. Each position of the tile, the
// weights and the outputs is one vector, so the buffers are 64-byte aligned (GrowingBuffer) and
// every load and store of the block's arithmetic is one cache line (AVX-512) or half of one
// (AVX2): in a std::vector (16-byte aligned) every such access had spanned two lines, halving the
// loads a cycle could issue, and a 5x5 layer over 1152 channels of 7 x 7 took 1.36x its time.
struct Scratch {
  gemm::GrowingBuffer tile, weights, out, bias;
  // The calling thread's table of tile offsets (run() below), read by every thread of its call;
  // it only grows, so a warm run allocates nothing (graph-runtime.md section 4).
  std::vector<std::size_t> at;
  std::size_t zeroed_h = 0, zeroed_w = 0, zeroed_top = 0, zeroed_left = 0, zeroed_in_h = 0, zeroed_in_w = 0;
  const float* zeroed_data = nullptr;
};

Scratch& thread_scratch() {
  thread_local Scratch scratch;
  return scratch;
}

// The block's padded tile, its padding positions zeroed once per geometry.
template <class L>
float* prepare_tile(const Conv2dShape& s, Scratch& sc) {
  const std::size_t ph = s.padded_h(), pw = s.padded_w(), floats = ph * pw * L::kLanes;
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

// No activation in the stores (a path whose fused activation is not wired or not tested here).
template <class L>
struct NoFusedActivation {
  static constexpr bool kFuses = false;
  struct Args {};
  static Args args_of(const ConvActivation&) noexcept { return {}; }
  template <ew::UnaryOp kOp>
  static typename L::Vec apply_op(const Args&, typename L::Vec v) noexcept {
    return v;
  }
};

// x, w, bias, y, activation as depthwise_conv2d_f32 (any channel multiplier).
template <class L, class F>
void run(const KernelContext& context, const Conv2dShape& s, const float* x, const float* w, const float* bias,
         float* y, const ConvActivation* activation) {
  constexpr std::size_t kL = L::kLanes;
  using Vec = typename L::Vec;
  const std::size_t cout = s.out_channels;
  if (s.batch == 0 || cout == 0 || s.out_plane() == 0) return;
  const std::size_t multiplier = cout / s.in_channels;
  const std::size_t taps = s.taps();
  const std::size_t per_image = (cout + kL - 1) / kL;
  const std::size_t blocks = s.batch * per_image;
  const std::size_t ph = s.padded_h(), pw = s.padded_w();
  // The input rows and columns the windows reach (padded row py holds input row py - pad_top).
  const std::size_t row_past = std::min(s.in_h, ph > s.pad_top ? ph - s.pad_top : 0);
  const std::size_t col_past = std::min(s.in_w, pw > s.pad_left ? pw - s.pad_left : 0);
  // Per block: out_plane * taps vector multiply-adds (about 8 per nanosecond on this CPU) and the
  // two interleaving copies (half a nanosecond per float moved).
  const double per_block = static_cast<double>(s.out_plane() * taps) / 8.0 +
                           static_cast<double>((row_past * col_past + s.out_plane()) * kL) * 0.5;
  const bool exact = context.exact;
  // An activation alone (no normalization, no residual, one of those fused_activation_*.hpp
  // applies) is applied in the write-back's stores, on values still in registers, instead of a
  // second pass over the block's planes: the same operations on the same values, so the same bits.
  // Not SiLU: in the stores it ran 1.1-1.4x slower than the element-wise kernel's own pass, which
  // interleaves pairs of vectors (Zen 3, one thread, 1152 channels 5x5 at 7 x 7: 108 -> 122-154 us).
  const bool fused = F::kFuses && activation_fuses_in_store(activation) && activation->residual == nullptr &&
                     activation->args.op != ew::UnaryOp::Silu;
  const typename F::Args fused_args = fused ? F::args_of(*activation) : typename F::Args{};
  // The tile offset of each input position the windows reach (row-major over rows [0, row_past)),
  // when whole rows are read: computed once per call rather than stepped per position.
  std::size_t* at = nullptr;
  if (col_past == s.in_w) {
    std::vector<std::size_t>& table = thread_scratch().at;
    if (table.size() < row_past * s.in_w) table.resize(row_past * s.in_w);
    at = table.data();
    for (std::size_t iy = 0; iy < row_past; ++iy) {
      for (std::size_t ix = 0; ix < s.in_w; ++ix) at[iy * s.in_w + ix] = ((iy + s.pad_top) * pw + s.pad_left + ix) * kL;
    }
  }
  context.parallel_for(blocks, per_block * static_cast<double>(blocks), [&](std::size_t block) {
    Scratch& sc = thread_scratch();
    float* tile = prepare_tile<L>(s, sc);
    float* weights = sc.weights.reserve(taps * kL);
    float* out = sc.out.reserve(s.out_plane() * kL);
    float* block_bias = sc.bias.reserve(kL);
    const std::size_t n = block / per_image, oc0 = (block % per_image) * kL;
    const std::size_t lanes = std::min(kL, cout - oc0);
    // The input rows interleaved kLanes columns at a time; lanes past `lanes` (a last partial
    // block) hold +0, computed and never stored.
    const float* src[kL];
    for (std::size_t l = 0; l < kL; ++l) {
      src[l] = l < lanes ? x + (n * s.in_channels + (oc0 + l) / multiplier) * s.in_plane() : nullptr;
    }
    Vec rows[kL], columns[kL];
    if (col_past == s.in_w) {
      // Whole input rows: kLanes positions of the flattened rows at a time, so a 7 x 7 map takes 4
      // transposes of 16 rather than one per row of 7; each position to its place in the padded
      // tile (`at`). In a full block of a map of kLanes positions or more every load is a whole
      // vector: the last partial group is taken as the map's last kLanes positions, rewriting
      // places the previous group wrote with the same values (masked loads and the per-lane
      // checks had cost as much as the 3x3 arithmetic on 7 x 7 maps).
      const std::size_t positions = row_past * s.in_w;
      const bool whole = lanes == kL && positions >= kL;
      for (std::size_t p0 = 0; p0 < positions; p0 += kL) {
        std::size_t count = std::min(kL, positions - p0);
        if (whole) {
          if (count < kL) {
            p0 = positions - kL;
            count = kL;
          }
          for (std::size_t l = 0; l < kL; ++l) rows[l] = L::loadu(src[l] + p0);
        } else {
          const typename L::Mask mask = L::first_lanes(count);
          for (std::size_t l = 0; l < kL; ++l) {
            rows[l] = src[l] != nullptr ? L::load_first(src[l] + p0, mask) : L::zero();
          }
        }
        L::transpose(rows, columns);
        for (std::size_t c = 0; c < count; ++c) L::storeu(tile + at[p0 + c], columns[c]);
      }
    }
    for (std::size_t iy = 0; iy < (col_past == s.in_w ? 0 : row_past); ++iy) {
      float* dst = tile + ((iy + s.pad_top) * pw + s.pad_left) * kL;
      for (std::size_t c0 = 0; c0 < col_past; c0 += kL) {
        const std::size_t count = std::min(kL, col_past - c0);
        const typename L::Mask mask = L::first_lanes(count);
        for (std::size_t l = 0; l < kL; ++l) {
          rows[l] = src[l] != nullptr ? L::load_first(src[l] + iy * s.in_w + c0, mask) : L::zero();
        }
        L::transpose(rows, columns);
        for (std::size_t c = 0; c < count; ++c) L::storeu(dst + (c0 + c) * kL, columns[c]);
      }
    }
    // The block's weights interleaved the same way, kLanes taps at a time (each channel's taps are
    // contiguous in w): a scalar loop over taps x lanes had cost about as much as the block's
    // arithmetic on a 7 x 7 map.
    for (std::size_t t0 = 0; t0 < taps; t0 += kL) {
      const std::size_t count = std::min(kL, taps - t0);
      const typename L::Mask mask = L::first_lanes(count);
      for (std::size_t l = 0; l < kL; ++l) {
        rows[l] = l < lanes ? L::load_first(w + (oc0 + l) * taps + t0, mask) : L::zero();
      }
      L::transpose(rows, columns);
      for (std::size_t t = 0; t < count; ++t) L::storeu(weights + (t0 + t) * kL, columns[t]);
    }
    for (std::size_t l = 0; l < kL; ++l) block_bias[l] = l < lanes && bias != nullptr ? bias[oc0 + l] : 0.0f;
    BlockJob job;
    job.s = &s;
    job.tile = tile;
    job.tile_w = pw;
    job.weights = weights;
    job.bias = bias != nullptr ? block_bias : nullptr;
    job.out = out;
    if (exact) {
      block_outputs<L, true>(job);
    } else {
      block_outputs<L, false>(job);
    }
    // The block's outputs back to their planes, kLanes positions at a time, by whole-vector
    // stores: a plane's last partial group is stored as its last kLanes positions, rewriting
    // positions the previous group stored with the same values (a masked store, vmaskmovps, costs
    // many times a plain one on Zen 3: the masked write-back of every group had taken a third of a
    // 3x3 layer over 1152 channels of 7 x 7). Planes under kLanes positions keep the masked store.
    // With a fused activation (kFuse) each stored vector passes through it first; the overlapping
    // last group applies it again to the block's unactivated outputs, so it rewrites the same values.
    const std::size_t plane = s.out_plane();
    float* first = y + (n * cout + oc0) * plane;
    const auto write_back = [&](auto fuse, auto op) {
      constexpr bool kFuse = decltype(fuse)::value;
      const auto finish = [&](Vec v) {
        if constexpr (kFuse) {
          return F::template apply_op<decltype(op)::value>(fused_args, v);
        } else {
          return v;
        }
      };
      for (std::size_t p0 = 0; p0 < plane; p0 += kL) {
        const std::size_t count = std::min(kL, plane - p0);
        if (count < kL && plane >= kL) {
          const std::size_t back = plane - kL;
          for (std::size_t q = 0; q < kL; ++q) rows[q] = L::loadu(out + (back + q) * kL);
          L::transpose(rows, columns);
          for (std::size_t l = 0; l < lanes; ++l) L::storeu(first + l * plane + back, finish(columns[l]));
          break;
        }
        for (std::size_t q = 0; q < kL; ++q) rows[q] = q < count ? L::loadu(out + (p0 + q) * kL) : L::zero();
        L::transpose(rows, columns);
        if (count == kL) {
          for (std::size_t l = 0; l < lanes; ++l) L::storeu(first + l * plane + p0, finish(columns[l]));
        } else {
          const typename L::Mask mask = L::first_lanes(count);
          for (std::size_t l = 0; l < lanes; ++l) L::store_mask(first + l * plane + p0, mask, finish(columns[l]));
        }
      }
    };
    if (fused) {
      fused_activation::with_op(activation->args.op, [&](auto op) { write_back(std::true_type{}, op); });
      return;
    }
    write_back(std::false_type{}, std::integral_constant<ew::UnaryOp, ew::UnaryOp::Relu>{});
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

}  // namespace depthwise_blocked_body
}  // namespace
}  // namespace onemodel::opt
