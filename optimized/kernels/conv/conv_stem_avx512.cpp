// The direct stem convolution on the AVX-512 path (conv_stem.hpp). Work is cut into chunks of
// whole output rows of one image (a function of the shape, conv_stem_f32__avx512); a
// chunk first copies the input rows its windows read into a zero-padded block (zero rows above and
// below the image, zero columns left and right, so that every tap of every tile reads inside the
// block and a padding tap is a product with +0 like any other), then computes tiles of 32 output
// channels (two vectors of 16 lanes) by 14 output columns (28 accumulators: each broadcast input
// feeds two multiply-adds, and rows of 14, 28, 56, 112 and 224 columns split into whole tiles,
// where tiles of 12 had wasted up to a fifth of a 28-wide row), taps k = (c, ky, kx) in
// increasing order, and finishes each channel's rows with the activation. Neither the thread count
// nor the chunk a row falls in changes a value.
#include <immintrin.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "optimized/kernels/conv/conv_stem.hpp"
#include "optimized/kernels/conv/conv_stem_chunks.hpp"
#include "optimized/kernels/conv/conv_stem_columns.hpp"
#include "optimized/kernels/conv/fused_activation_avx512.hpp"
#include "optimized/kernels/transpose/transpose16_avx512.hpp"
#include "optimized/kernels/window/row_lanes_avx512.hpp"

namespace onemodel::opt {
namespace {

constexpr std::int64_t kLanes = 16;

struct Geometry {
  std::int64_t cin, in_h, in_w, kh, kw, sh, sw, dh, dw, pad_top, pad_left, out_h, out_w, cout, cout_padded;
};

// The zero-padded input rows of one chunk: for each channel, `rows` rows of `width` floats; row r
// is input row first_row + r, column j input column j - pad_left (zeros outside the image).
// taps[k] for k = (c, ky, kx): where tap k of a window reads, from the window's first block row and
// column (at most 256 taps, conv_stem_takes).
struct Block {
  const float* data;
  std::int64_t first_row, rows, width;
  const std::int64_t* taps;
};

// exact-mode.md rule 1: the product rounded, then the sum rounded; fast mode one fused step.
template <bool kExact>
__attribute__((always_inline)) inline __m512 step(__m512 acc, __m512 w, __m512 x) noexcept {
  if constexpr (kExact) {
    return _mm512_add_ps(acc, _mm512_mul_ps(w, x));
  } else {
    return _mm512_fmadd_ps(w, x, acc);
  }
}

// One tile: output channels [oc0, oc0 + 16 * kVec), columns [ox0, ox0 + n) of output row oy, n <=
// kCols (columns past n are computed from the block's zeros or neighbours and never stored). Each
// broadcast input feeds kVec multiply-adds: with one (16 channels by 16 columns) the broadcasts
// took half the vector pipes' time on Zen 4. kStride: the column stride when 1 or 2, else 0.
template <bool kExact, int kStride, int kVec>
void tile(const Geometry& g, const Block& b, const float* packed, const float* bias,
          const fused_activation::Args* activation, float* yn, std::int64_t oy, std::int64_t oc0, std::int64_t ox0,
          std::int64_t n) noexcept {
  constexpr std::int64_t kCols = kVec == 2 ? 14 : 16;
  const __m512 zero = _mm512_setzero_ps();
  __m512 acc[kVec][kCols];
#pragma GCC unroll 16
  for (std::int64_t j = 0; j < kCols; ++j) {
#pragma GCC unroll 2
    for (int v = 0; v < kVec; ++v) acc[v][j] = zero;
  }
  const std::int64_t sw = kStride != 0 ? kStride : g.sw;
  const float* wp = packed + oc0;
  const std::int64_t top = oy * g.sh - g.pad_top - b.first_row;  // the window's first block row
  const float* window = b.data + top * b.width + ox0 * sw;
  // One loop over the taps (c, ky, kx) in increasing order, their offsets from the block: nested
  // loops over c, ky and kx had left the seven-step kx loop's exit to the branch predictor 21
  // times per tile.
  const std::int64_t taps = g.cin * g.kh * g.kw;
  for (std::int64_t t = 0; t < taps; ++t, wp += g.cout_padded) {
    __m512 wv[kVec];
#pragma GCC unroll 2
    for (int v = 0; v < kVec; ++v) wv[v] = _mm512_loadu_ps(wp + 16 * v);
    const float* p = window + b.taps[t];
#pragma GCC unroll 16
    for (std::int64_t j = 0; j < kCols; ++j) {
      const __m512 x = _mm512_set1_ps(p[j * sw]);
#pragma GCC unroll 2
      for (int v = 0; v < kVec; ++v) acc[v][j] = step<kExact>(acc[v][j], wv[v], x);
    }
  }
  // The bias, one rounded addition per output after the sum; exact mode stores canonical NaN;
  // then per vector of channels a 16 x 16 transpose (rows past kCols zero) and one store per
  // channel of its n columns.
  const __mmask16 column_lanes = static_cast<__mmask16>((1u << n) - 1u);
  const std::int64_t plane = g.out_h * g.out_w;
  for (int v = 0; v < kVec; ++v) {
    const std::int64_t first = oc0 + 16 * v;
    const std::int64_t channels = std::min<std::int64_t>(kLanes, g.cout - first);
    if (channels <= 0) break;
    const __m512 bv = bias != nullptr
                          ? _mm512_maskz_loadu_ps(static_cast<__mmask16>((1u << channels) - 1u), bias + first)
                          : zero;
    __m512 rows[kLanes];
    for (std::int64_t j = 0; j < kLanes; ++j) {
      __m512 r = j < kCols ? acc[v][j] : zero;
      if (bias != nullptr) r = _mm512_add_ps(r, bv);
      if constexpr (kExact) {
        r = _mm512_mask_mov_ps(r, _mm512_cmp_ps_mask(r, r, _CMP_UNORD_Q),
                               _mm512_castsi512_ps(_mm512_set1_epi32(0x7FC00000)));
      }
      // A fused activation as the element-wise kernel computes it (fused_activation_avx512.hpp).
      if (activation != nullptr) r = fused_activation::apply(*activation, r);
      rows[j] = r;
    }
    __m512 columns[kLanes];
    avx512_transpose::transpose16(rows, columns);
    for (std::int64_t i = 0; i < channels; ++i) {
      _mm512_mask_storeu_ps(yn + (first + i) * plane + oy * g.out_w + ox0, column_lanes, columns[i]);
    }
  }
}

template <bool kExact, int kStride, int kVec>
void rows_of(const Geometry& g, const Block& b, const float* packed, const float* bias,
             const fused_activation::Args* activation, float* yn, std::int64_t oy_first, std::int64_t oy_past) noexcept {
  constexpr std::int64_t kCols = kVec == 2 ? 14 : 16;
  for (std::int64_t oy = oy_first; oy < oy_past; ++oy) {
    for (std::int64_t oc0 = 0; oc0 < g.cout; oc0 += 16 * kVec) {
      for (std::int64_t ox0 = 0; ox0 < g.out_w; ox0 += kCols) {
        tile<kExact, kStride, kVec>(g, b, packed, bias, activation, yn, oy, oc0, ox0, std::min(kCols, g.out_w - ox0));
      }
    }
  }
}

template <bool kExact>
void rows_of(const Geometry& g, const Block& b, const float* packed, const float* bias,
             const fused_activation::Args* activation, float* yn, std::int64_t oy_first, std::int64_t oy_past) noexcept {
  // Two vectors of channels when there are more than 16 (the padded weight rows hold zeros past
  // Cout, whose outputs are never stored).
  const bool two = g.cout > 16;
  if (g.sw == 1) {
    return two ? rows_of<kExact, 1, 2>(g, b, packed, bias, activation, yn, oy_first, oy_past)
               : rows_of<kExact, 1, 1>(g, b, packed, bias, activation, yn, oy_first, oy_past);
  }
  if (g.sw == 2) {
    return two ? rows_of<kExact, 2, 2>(g, b, packed, bias, activation, yn, oy_first, oy_past)
               : rows_of<kExact, 2, 1>(g, b, packed, bias, activation, yn, oy_first, oy_past);
  }
  return two ? rows_of<kExact, 0, 2>(g, b, packed, bias, activation, yn, oy_first, oy_past)
             : rows_of<kExact, 0, 1>(g, b, packed, bias, activation, yn, oy_first, oy_past);
}

// The block's lines are short (14 to 58 floats for the grouped layers of 14 x 14 to 56 x 56
// maps), one library call per piece had taken a fifth of a grouped 3x3 layer at 14 x 14 (three
// calls a line, session 31 profile): vector stores inline, a masked one for the tail.
inline void zero_floats(float* out, std::int64_t count) noexcept {
  for (std::int64_t j = 0; j < count; j += kLanes) {
    _mm512_mask_storeu_ps(out + j, row_lanes::between(0, count - j), _mm512_setzero_ps());
  }
}

inline void copy_floats(float* out, const float* in, std::int64_t count) noexcept {
  for (std::int64_t j = 0; j < count; j += kLanes) {
    const __mmask16 lanes = row_lanes::between(0, count - j);
    _mm512_mask_storeu_ps(out + j, lanes, _mm512_maskz_loadu_ps(lanes, in + j));
  }
}

thread_local std::vector<float> block_storage;  // only grows: warm runs allocate nothing
thread_local std::vector<std::int64_t> tap_storage;

// The chunk's block: input rows [first_row, first_row + rows) of image xn, zero-padded.
Block make_block(const Geometry& g, const float* xn, std::int64_t oy_first, std::int64_t oy_past,
                 std::int64_t chunk_rows) {
  Block b;
  b.first_row = oy_first * g.sh - g.pad_top;
  b.rows = (oy_past - 1 - oy_first) * g.sh + (g.kh - 1) * g.dh + 1;
  // Every tile reads columns up to (last tile's ox0 + kCols - 1) * sw + (kw - 1) * dw (kCols <= 16).
  const std::int64_t tiles_end = (g.out_w + 15) / 12 * 12 + 16;
  b.width = (tiles_end - 1) * g.sw + (g.kw - 1) * g.dw + 1;
  b.width = std::max(b.width, g.pad_left + g.in_w);
  // The storage is sized for a whole chunk (Chunks::rows) even when this one is the shorter last:
  // a thread's first chunk then sizes it for every later one, and a warm call never grows it. A
  // worker whose first chunks were a layer's last one grew it on a later call, so that a warm
  // call made one allocation now and then (WarmRunAllocation.FloatConvolutionsOfEveryKernelFamily
  // failed about one run in twenty at two threads, session 43).
  const std::int64_t whole_rows = std::max(b.rows, (chunk_rows - 1) * g.sh + (g.kh - 1) * g.dh + 1);
  const std::size_t floats = static_cast<std::size_t>(g.cin * whole_rows * b.width);
  if (block_storage.size() < floats) block_storage.resize(floats);
  float* data = block_storage.data();
  // Each block row: zeros, or the zero left columns, the input row and the zero right columns
  // (only the padding is written with zeros: a whole-block fill had cost a twentieth of a
  // 3x3 stem).
  for (std::int64_t c = 0; c < g.cin; ++c) {
    for (std::int64_t r = 0; r < b.rows; ++r) {
      float* line = data + (c * b.rows + r) * b.width;
      const std::int64_t iy = b.first_row + r;
      if (iy < 0 || iy >= g.in_h) {
        zero_floats(line, b.width);
        continue;
      }
      zero_floats(line, g.pad_left);
      copy_floats(line + g.pad_left, xn + (c * g.in_h + iy) * g.in_w, g.in_w);
      zero_floats(line + g.pad_left + g.in_w, b.width - g.pad_left - g.in_w);
    }
  }
  b.data = data;
  const std::size_t taps = static_cast<std::size_t>(g.cin * g.kh * g.kw);
  if (tap_storage.size() < taps) tap_storage.resize(taps);  // only grows: warm runs allocate nothing
  std::int64_t* tap = tap_storage.data();
  b.taps = tap;
  for (std::int64_t c = 0; c < g.cin; ++c) {
    for (std::int64_t ky = 0; ky < g.kh; ++ky) {
      for (std::int64_t kx = 0; kx < g.kw; ++kx) *tap++ = (c * b.rows + ky * g.dh) * b.width + kx * g.dw;
    }
  }
  return b;
}

}  // namespace

void conv_stem_f32__avx512(const KernelContext& context, const Conv2dShape& s, const float* x, const float* packed,
                           const float* bias, float* y, const ConvActivation* activation) {
  if (conv_stem_columns_takes(s)) return conv_stem_columns_f32__avx512(context, s, x, packed, bias, y, activation);
  const auto i64 = [](std::size_t v) { return static_cast<std::int64_t>(v); };
  // One group's geometry: its input channels, its filters (one group when groups = 1).
  const Geometry g{i64(s.in_per_group()), i64(s.in_h),     i64(s.in_w),       i64(s.kernel_h), i64(s.kernel_w),
                   i64(s.stride_h),       i64(s.stride_w), i64(s.dilation_h), i64(s.dilation_w), i64(s.pad_top),
                   i64(s.pad_left),       i64(s.out_h),    i64(s.out_w),      i64(s.out_per_group()),
                   i64(conv_stem_padded_channels(Isa::Avx512, s.out_per_group()))};
  const std::size_t group_weights =
      s.in_per_group() * s.taps() * conv_stem_padded_channels(Isa::Avx512, s.out_per_group());
  const stem_chunks::Chunks chunks = stem_chunks::chunks_of(s);
  const std::size_t plane = s.out_plane();
  // A Relu, Clip, LeakyRelu, HardSwish or SiLU alone (no normalization, residual or narrowing
  // first) is applied in the tile before its store, as the element-wise kernel computes it, instead
  // of by a second pass over the chunk's outputs (a seventh of a 3 -> 64 3x3/2 stem at 224 x 224):
  // the same bits.
  const bool fused = activation_fuses_in_store(activation) && activation->residual == nullptr;
  const fused_activation::Args fused_args = fused ? fused_activation::args_of(*activation) : fused_activation::Args{};
  const fused_activation::Args* in_store = fused ? &fused_args : nullptr;
  context.parallel_for(chunks.count, chunks.estimate_ns, [&](std::size_t index) {
    const stem_chunks::Chunk c = stem_chunks::chunk_at(chunks, s, index);
    const std::size_t image = c.image;
    const std::int64_t oy_first = c.oy_first, oy_past = c.oy_past;
    // The group's input channels, weights, bias and output channels (conv_stem_pack_weights).
    const Block b =
        make_block(g, x + (image * s.in_channels + c.group * s.in_per_group()) * s.in_plane(), oy_first, oy_past,
                   chunks.rows);
    float* yn = y + (image * s.out_channels + c.group * s.out_per_group()) * plane;
    const float* group_packed = packed + c.group * group_weights;
    const float* group_bias = bias != nullptr ? bias + c.group * s.out_per_group() : nullptr;
    if (context.exact) {
      rows_of<true>(g, b, group_packed, group_bias, in_store, yn, oy_first, oy_past);
    } else {
      rows_of<false>(g, b, group_packed, group_bias, in_store, yn, oy_first, oy_past);
    }
    if (activation != nullptr && !fused) stem_chunks::activate_chunk(context.isa, *activation, s, c, y);
  });
}

}  // namespace onemodel::opt
