// The direct stem convolution on the AVX2 path (conv_stem.hpp), the twin of conv_stem_avx512.cpp
// written apart from it (the planning is shared: chunks, conv_stem_chunks.hpp; packed weights and
// the predicate, conv_stem.cpp). Work is cut into the same chunks of whole output rows of one
// image and group; a chunk first copies the input rows its windows read into a zero-padded block
// (zero rows above and below the image, zero columns left and right, so that every tap of every
// tile reads inside the block and a padding tap is a product with +0 like any other), then
// computes tiles of 8 output channels (one ymm register of lanes) by 14 output columns (14
// accumulators, one weight register and one broadcast register: the 16 ymm registers; rows of 14,
// 28 and 56 columns, RegNet's and ResNeXt's maps, split into whole tiles; maps of at most 7
// columns in tiles of two rows of 7), taps k = (c, ky, kx) in
// increasing order, and finishes each tile with two 8 x 8 transposes before its stores. Groups of
// 8 filters (RegNet-Y, ResNeXt's second stage) are whole registers; 16 filters are two tiles over
// the same block columns. On Zen 3 a broadcast from memory is a load alone, so one multiply-add
// per broadcast leaves the two FMA pipes nearly the bound (the AVX-512 kernel feeds two per
// broadcast, conv_stem_avx512.cpp, because on Zen 4 its broadcasts take vector-pipe time); in fast
// mode a stem's tiles are 16 channels by 6 columns instead, two multiply-adds per broadcast
// (pair_tile); 16 x 6 tiles measured slower on ResNeXt's grouped layers (16 filters a group at
// 14 x 14: 460 -> 635 us, the 14 columns computed as 18). A tile's weights are one contiguous
// block (conv_stem_pack_weights), its taps run out of line (accumulate), and a store may run past
// its row into outputs its chunk stores later (rows_of). A fused activation runs over bands of
// finished rows (activate_rows).
// Every output is +0, then w * x over k in increasing order, the bias one rounded addition after;
// exact mode unfused with canonical NaN, fast mode one fused multiply-add per tap: the AVX-512
// kernel's, the im2col path's and the reference's bits.
#include <immintrin.h>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "optimized/kernels/conv/conv_stem.hpp"
#include "optimized/kernels/conv/conv_stem_chunks.hpp"
#include "optimized/kernels/conv/fused_activation_avx2.hpp"
#include "optimized/kernels/elementwise/lane_math.hpp"
#include "optimized/kernels/lanes/paired_lanes.hpp"
#include "optimized/kernels/transpose/transpose8_avx2.hpp"

namespace onemodel::opt {
namespace {

constexpr std::int64_t kLanes = 8;
constexpr std::int64_t kCols = 14;  // output columns per tile (conv_stem.cpp's AVX2 rules assume it)

constexpr std::int64_t kBandFloats = 4096;  // finished outputs per activation pass (rows_of)

constexpr std::int64_t kPairCols = 6;  // output columns per tile of 16 channels (pair_tile)


struct Geometry {
  std::int64_t cin, in_h, in_w, kh, kw, sh, sw, dh, dw, pad_top, pad_left, out_h, out_w, cout, cout_padded;
  bool pairs;  // stems: 16 channels at a time in tiles of 6 columns (pair_tile)
};

// The outputs of `channels` planes, columns [ox0, ox0 + n) of the next row of the chunk (its
// positions end at `end`), asked for with intent to write while the current row's tiles compute:
// rows_of walks a row of every channel block before the next row. The AVX-512 kernels' reason:
// conv_stem_columns_avx512.cpp, tile. Session 42, this path on an Intel Xeon (model 167,
// ONEMODEL_ISA=avx2), one thread, per node (minimum of three alternated profile medians, us):
// SqueezeNet's 3 -> 64 3x3/2 stem at batch 8 7767 -> 6188, MnasNet's 3 -> 32 3319 -> 3105; at
// batch 1 within noise. A hint only; no value changes.
inline void ask_for_next_row(const Geometry& g, float* yn, std::int64_t oc0, std::int64_t channels,
                             std::int64_t next_oy, std::int64_t ox0, std::int64_t n, std::int64_t end) noexcept {
  const std::int64_t at = next_oy * g.out_w + ox0;
  if (at + n > end) return;
  const std::int64_t plane = g.out_h * g.out_w;
  for (std::int64_t i = 0; i < channels; ++i) {
    const float* row = yn + (oc0 + i) * plane + at;
    __builtin_prefetch(row, 1, 3);
    __builtin_prefetch(row + n - 1, 1, 3);
  }
}

// As conv_stem_avx512.cpp's Block: `rows` zero-padded input rows per channel of `width` floats;
// taps[k]: where tap k = (c, ky, kx) reads from the window's first block row and column.
struct Block {
  const float* data;
  std::int64_t first_row, rows, width;
  const std::int64_t* taps;
};

// exact-mode.md rule 1: the product rounded, then the sum rounded; fast mode one fused step.
template <bool kExact>
[[gnu::always_inline]] inline __m256 step(__m256 acc, __m256 w, __m256 x) noexcept {
  if constexpr (kExact) {
    return _mm256_add_ps(acc, _mm256_mul_ps(w, x));
  } else {
    return _mm256_fmadd_ps(w, x, acc);
  }
}

// Lanes [0, n) all ones (n in 0..8): the mask of _mm256_maskload_ps / _mm256_maskstore_ps.
inline __m256i first_lanes(std::int64_t n) noexcept {
  return _mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int>(n)), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}

// One tile: output channels [oc0, oc0 + 8), columns [ox0, ox0 + n) of kRows output rows from oy,
// n <= kCols / kRows (columns past n are computed from the block's zeros or neighbours and never
// stored; channels past cout from the packed zeros, never stored). Two rows of 7 columns on maps
// at most 7 wide (ResNeXt's and RegNet's last stages), where one row would leave half the 14
// accumulators idle. kStride: the column stride when 1 or 2, else 0.
// The taps of one tile into acc (kCols accumulators of 8 channels, kRows rows of kCols / kRows
// columns). Out of line: inlined in tile(), GCC kept three of the 14 accumulators of exact mode on
// the stack (a load and a store per tap each, 3 of the 16 registers left unused in the loop), the
// store-to-load latency in every third chain.
template <bool kExact, int kStride, int kRows>
[[gnu::noinline]] void accumulate(const Geometry& g, const Block& b, const float* wp, const float* window,
                                  __m256* out) noexcept {
  constexpr std::int64_t kC = kCols / kRows;  // columns per row
  __m256 acc[kCols];
#pragma GCC unroll 14
  for (std::int64_t j = 0; j < kCols; ++j) acc[j] = _mm256_setzero_ps();  // exact-mode.md rule 3
  const std::int64_t sw = kStride != 0 ? kStride : g.sw;
  const std::int64_t row_step = g.sh * b.width;  // the next output row's window
  const std::int64_t taps = g.cin * g.kh * g.kw;
  for (std::int64_t t = 0; t < taps; ++t, wp += kLanes) {
    const __m256 wv = _mm256_loadu_ps(wp);
    const float* p = window + b.taps[t];
    // One pointer per row, each broadcast at a constant offset from it: written as p + (j / kC) *
    // row_step + (j % kC) * sw, GCC kept the second row's 7 offsets on the stack (a load each).
    const float* rows[kRows];
#pragma GCC unroll 2
    for (std::int64_t r = 0; r < kRows; ++r) rows[r] = p + r * row_step;
#pragma GCC unroll 14
    for (std::int64_t j = 0; j < kCols; ++j) {
      acc[j] = step<kExact>(acc[j], wv, _mm256_broadcast_ss(rows[j / kC] + (j % kC) * sw));
    }
  }
#pragma GCC unroll 14
  for (std::int64_t j = 0; j < kCols; ++j) out[j] = acc[j];
}

template <bool kExact, int kStride, int kRows>
void tile(const Geometry& g, const Block& b, const float* packed, const float* bias, float* yn, std::int64_t oy,
          std::int64_t oc0, std::int64_t ox0, std::int64_t n, std::int64_t stored_rows, std::int64_t end) noexcept {
  constexpr std::int64_t kC = kCols / kRows;  // columns per row
  const std::int64_t sw = kStride != 0 ? kStride : g.sw;
  const std::int64_t taps = g.cin * g.kh * g.kw;
  const std::int64_t top = oy * g.sh - g.pad_top - b.first_row;  // the window's first block row
  __m256 acc[kCols];
  // The block of channels oc0.. (conv_stem_pack_weights), the window's first block row and column.
  ask_for_next_row(g, yn, oc0, std::min<std::int64_t>(kLanes, g.cout - oc0), oy + kRows, ox0, n, end);
  accumulate<kExact, kStride, kRows>(g, b, packed + oc0 * taps, b.data + top * b.width + ox0 * sw, acc);
  // The bias, one rounded addition per output after the sum; exact mode stores canonical NaN;
  // the activation; then per row and 8 columns an 8 x 8 transpose (rows past the row's columns
  // zero) and one store per channel of its columns.
  const std::int64_t channels = std::min<std::int64_t>(kLanes, g.cout - oc0);
  const __m256 bv = bias != nullptr ? _mm256_maskload_ps(bias + oc0, first_lanes(channels)) : _mm256_setzero_ps();
  const std::int64_t plane = g.out_h * g.out_w;
#pragma GCC unroll 2
  for (std::int64_t r = 0; r < kRows; ++r) {
    if (r >= stored_rows) break;
    const std::int64_t at = (oy + r) * g.out_w + ox0;  // in each channel's plane
    float* out = yn + oc0 * plane + at;
#pragma GCC unroll 2
    for (std::int64_t j0 = 0; j0 < kC; j0 += kLanes) {
      if (j0 >= n) break;
      __m256 rows[kLanes];
#pragma GCC unroll 8
      for (std::int64_t j = 0; j < kLanes; ++j) {
        __m256 v = j0 + j < kC ? acc[r * kC + j0 + j] : _mm256_setzero_ps();
        if (bias != nullptr) v = _mm256_add_ps(v, bv);
        if constexpr (kExact) {
          v = _mm256_blendv_ps(v, _mm256_castsi256_ps(_mm256_set1_epi32(0x7FC00000)),
                               _mm256_cmp_ps(v, v, _CMP_UNORD_Q));
        }
        rows[j] = v;
      }
      __m256 columns[kLanes];
      avx2_transpose::transpose8(rows, columns);
      const std::int64_t left = std::min<std::int64_t>(kLanes, n - j0);
      if (left == kLanes || at + j0 + kLanes <= end) {
        for (std::int64_t i = 0; i < channels; ++i) _mm256_storeu_ps(out + i * plane + j0, columns[i]);
      } else {
        const __m256i lanes = first_lanes(left);
        for (std::int64_t i = 0; i < channels; ++i) _mm256_maskstore_ps(out + i * plane + j0, lanes, columns[i]);
      }
    }
  }
}

// The activation on `count` finished floats in place (fused_activation_avx2.hpp's apply_op, the
// element-wise kernel's per-element sequence, so the bits of applying it before the stores). The
// last vector's inputs are read before any store, so a count of at least 8 ends with one
// overlapping full vector instead of a masked store (vmaskmovps to memory is slow on Zen 3).
// SiLU takes four vectors a step over the paired lanes (lanes/paired_lanes.hpp, the element-wise
// kernel's loop: four chains side by side; each lane the same sequence, so the same bits), in a
// flattened function so that the pairs stay in registers.
template <ew::UnaryOp kOp>
[[gnu::flatten]] void activate_line(const fused_activation_avx2::Args& a, float* p, std::int64_t count) noexcept {
  if (count < kLanes) {
    const __m256i lanes = first_lanes(count);
    _mm256_maskstore_ps(p, lanes, fused_activation_avx2::apply_op<kOp>(a, _mm256_maskload_ps(p, lanes)));
    return;
  }
  const __m256 last = _mm256_loadu_ps(p + count - kLanes);
  std::int64_t j = 0;
  if constexpr (kOp == ew::UnaryOp::Silu) {
    using Q = opt::PairedLanes<opt::PairedLanes<ew::Avx2Lanes>>;
    constexpr std::int64_t kQuad = static_cast<std::int64_t>(Q::kWidth);
    for (; j + kQuad < count; j += kQuad) {
      const Q::F v = Q::load(p + j);
      Q::store(p + j, a.fast ? ew::fast_silu<Q>(v) : ew::silu<Q>(v));
    }
  }
  for (; j + kLanes < count; j += kLanes) {
    _mm256_storeu_ps(p + j, fused_activation_avx2::apply_op<kOp>(a, _mm256_loadu_ps(p + j)));
  }
  _mm256_storeu_ps(p + count - kLanes, fused_activation_avx2::apply_op<kOp>(a, last));
}

// The activation on output rows [oy_first, oy_past) of every channel, just stored (about 14 KB
// for 32 channels of 112 columns, still in the first-level cache). Applied per vector inside the
// tile it had cost 1.5 ns per output with SiLU (its constants and temporaries beside the 14
// accumulators); over the finished rows it is the element-wise loop's 0.67 ns.
inline void activate_rows(const Geometry& g, const fused_activation_avx2::Args& a, float* yn, std::int64_t oy_first,
                          std::int64_t oy_past) noexcept {
  const std::int64_t plane = g.out_h * g.out_w;
  fused_activation::with_op(a.op, [&](auto op) {
    for (std::int64_t oc = 0; oc < g.cout; ++oc) {
      activate_line<decltype(op)::value>(a, yn + oc * plane + oy_first * g.out_w, (oy_past - oy_first) * g.out_w);
    }
  });
}

// A stem's tile of 16 output channels [oc0, oc0 + 16) (two registers of lanes) by 6 columns
// [ox0, ox0 + n), n <= 6: per tap two weight loads and 6 broadcasts feed 12 multiply-adds, where
// the 8 x 14 tile's 15 loads feed 14, as many loads as multiply-adds (Zen 3 issues two
// multiply-adds a cycle and, as far as measured, not many more loads). 12 accumulators, 2 weights
// and the broadcast fit the 16 ymm registers. Fast mode only: in exact mode the separate multiply
// and add already take both halves of the FP pipes per load, and the 7 x 7 stem took 1.08x the
// 8 x 14 tiles' time with these (3533 -> 3807 us). The same sequence per output as tile().
template <bool kExact, int kStride>
void pair_tile(const Geometry& g, const Block& b, const float* packed, const float* bias, float* yn, std::int64_t oy,
               std::int64_t oc0, std::int64_t ox0, std::int64_t n, std::int64_t end) noexcept {
  __m256 acc0[kPairCols], acc1[kPairCols];
#pragma GCC unroll 6
  for (std::int64_t j = 0; j < kPairCols; ++j) acc0[j] = acc1[j] = _mm256_setzero_ps();  // exact-mode.md rule 3
  const std::int64_t sw = kStride != 0 ? kStride : g.sw;
  const std::int64_t taps = g.cin * g.kh * g.kw;
  const float* wp = packed + oc0 * taps;  // channels oc0.., then oc0 + 8.. kLanes * taps further
  const std::int64_t top = oy * g.sh - g.pad_top - b.first_row;
  const float* window = b.data + top * b.width + ox0 * sw;
  ask_for_next_row(g, yn, oc0, std::min<std::int64_t>(2 * kLanes, g.cout - oc0), oy + 1, ox0, n, end);
  for (std::int64_t t = 0; t < taps; ++t, wp += kLanes) {
    const __m256 w0 = _mm256_loadu_ps(wp), w1 = _mm256_loadu_ps(wp + kLanes * taps);
    const float* p = window + b.taps[t];
#pragma GCC unroll 6
    for (std::int64_t j = 0; j < kPairCols; ++j) {
      const __m256 xv = _mm256_broadcast_ss(p + j * sw);
      acc0[j] = step<kExact>(acc0[j], w0, xv);
      acc1[j] = step<kExact>(acc1[j], w1, xv);
    }
  }
  const std::int64_t plane = g.out_h * g.out_w;
  // Full stores while the 8 columns stay in the row (the 2 past n are the row's next tile's, which
  // this call stores after), masked at the row's end.
  const bool full = oy * g.out_w + ox0 + kLanes <= end;
  const __m256i lanes = first_lanes(n);
#pragma GCC unroll 2
  for (std::int64_t q = 0; q < 2; ++q) {
    const std::int64_t first = oc0 + q * kLanes;
    const std::int64_t channels = std::min<std::int64_t>(kLanes, g.cout - first);
    if (channels <= 0) break;
    const __m256 bv = bias != nullptr ? _mm256_maskload_ps(bias + first, first_lanes(channels)) : _mm256_setzero_ps();
    __m256 rows[kLanes];
#pragma GCC unroll 8
    for (std::int64_t j = 0; j < kLanes; ++j) {
      __m256 v = j < kPairCols ? (q == 0 ? acc0[j] : acc1[j]) : _mm256_setzero_ps();
      if (bias != nullptr) v = _mm256_add_ps(v, bv);
      if constexpr (kExact) {
        v = _mm256_blendv_ps(v, _mm256_castsi256_ps(_mm256_set1_epi32(0x7FC00000)), _mm256_cmp_ps(v, v, _CMP_UNORD_Q));
      }
      rows[j] = v;
    }
    __m256 columns[kLanes];
    avx2_transpose::transpose8(rows, columns);
    float* out = yn + first * plane + oy * g.out_w + ox0;
    if (full) {
      for (std::int64_t i = 0; i < channels; ++i) _mm256_storeu_ps(out + i * plane, columns[i]);
    } else {
      for (std::int64_t i = 0; i < channels; ++i) _mm256_maskstore_ps(out + i * plane, lanes, columns[i]);
    }
  }
}

template <bool kExact, int kStride>
void rows_of(const Geometry& g, const Block& b, const float* packed, const float* bias,
             const fused_activation_avx2::Args* activation, float* yn, std::int64_t oy_first,
             std::int64_t oy_past) noexcept {
  // Each channel's outputs are stored in increasing order within the chunk, so a store may run
  // past its row into outputs that this chunk stores later (up to `end`): full vectors where
  // masked stores were (vmaskmovps to memory is slow on Zen 3).
  const std::int64_t end = oy_past * g.out_w;
  std::int64_t oy = oy_first;
  if (g.out_w <= kCols / 2) {
    // Pairs of rows; an odd last row is the pair's first (the block holds one more row of
    // windows, make_block), the second computed and not stored (it had been a one-row tile of 14
    // columns, 7 of them dropped, whose block rows had to be 14 tiles wide). Channel blocks
    // outermost: with the weights of all the group's channels in each tap's row, ResNeXt's
    // 1024-channel layer at 7 x 7 took 700 -> 658 us so (with the blocked weights since, a tie).
    // These maps are small: the activation once over the chunk.
    for (std::int64_t oc0 = 0; oc0 < g.cout; oc0 += kLanes) {
      for (oy = oy_first; oy < oy_past; oy += 2) {
        const std::int64_t rows = std::min<std::int64_t>(2, oy_past - oy);
        tile<kExact, kStride, 2>(g, b, packed, bias, yn, oy, oc0, 0, g.out_w, rows, end);
      }
    }
    if (activation != nullptr) activate_rows(g, *activation, yn, oy_first, oy_past);
    return;
  }
  std::int64_t band = oy;  // the first row not activated yet
  for (; oy < oy_past; ++oy) {
    std::int64_t oc0 = 0;
    if (g.pairs) {
      for (; oc0 + 2 * kLanes <= g.cout_padded; oc0 += 2 * kLanes) {
        for (std::int64_t ox0 = 0; ox0 < g.out_w; ox0 += kPairCols) {
          pair_tile<kExact, kStride>(g, b, packed, bias, yn, oy, oc0, ox0, std::min(kPairCols, g.out_w - ox0), end);
        }
      }
    }
    for (; oc0 < g.cout; oc0 += kLanes) {
      for (std::int64_t ox0 = 0; ox0 < g.out_w; ox0 += kCols) {
        tile<kExact, kStride, 1>(g, b, packed, bias, yn, oy, oc0, ox0, std::min(kCols, g.out_w - ox0), 1, end);
      }
    }
    // The activation over bands of about 16 KB of finished rows (per row, ResNeXt's 16 channels
    // of 14 columns at 14 x 14 had spent 8% of the layer in its calls).
    if (activation != nullptr && (oy + 1 == oy_past || (oy + 2 - band) * g.out_w * g.cout > kBandFloats)) {
      activate_rows(g, *activation, yn, band, oy + 1);
      band = oy + 1;
    }
  }
}

template <bool kExact>
void rows_of(const Geometry& g, const Block& b, const float* packed, const float* bias,
             const fused_activation_avx2::Args* activation, float* yn, std::int64_t oy_first,
             std::int64_t oy_past) noexcept {
  if (g.sw == 1) return rows_of<kExact, 1>(g, b, packed, bias, activation, yn, oy_first, oy_past);
  if (g.sw == 2) return rows_of<kExact, 2>(g, b, packed, bias, activation, yn, oy_first, oy_past);
  rows_of<kExact, 0>(g, b, packed, bias, activation, yn, oy_first, oy_past);
}

// A block line is `width` floats (at least 8): an input row of in_w floats from column pad_left,
// zeros around it. It is written as full vectors from offset 0 and one last overlapping vector
// ending at `width`; each vector's lanes read the input where they lie over it (a masked load,
// which costs little on Zen 3, where a vector is not wholly inside the row) and are zero elsewhere.
// The vectors' places and masks are the same for every line of a block, so they are found once
// (line_vectors). With a library copy and masked stores around it (vmaskmovps to memory is slow
// on Zen 3) the copy had taken 14% of ResNeXt's 1024-channel layer at 7 x 7 and 30% of its strided
// 512-channel one (perf).
struct LineVector {
  __m256i lanes;        // the lanes over the input row
  std::int64_t q, c;    // the vector's place in the line, the input column under its lane 0
  bool whole;           // all 8 lanes inside the row: a plain load
};

thread_local std::vector<LineVector> line_vector_storage;  // only grows

inline std::int64_t line_vectors(std::int64_t width, std::int64_t pad_left, std::int64_t in_w) {
  const __m256i index = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
  const std::size_t count = static_cast<std::size_t>((width + kLanes - 1) / kLanes);
  if (line_vector_storage.size() < count) line_vector_storage.resize(count);
  LineVector* v = line_vector_storage.data();
  for (std::int64_t q = 0;; q += kLanes, ++v) {
    if (q + kLanes > width) q = width - kLanes;
    const std::int64_t c = q - pad_left;
    v->q = q;
    v->c = c;
    v->whole = c >= 0 && c + kLanes <= in_w;
    // Lanes l with 0 <= c + l < in_w; the others are neither read nor faulted on.
    v->lanes = _mm256_and_si256(_mm256_cmpgt_epi32(_mm256_set1_epi32(static_cast<int>(in_w - c)), index),
                                _mm256_cmpgt_epi32(index, _mm256_set1_epi32(static_cast<int>(-1 - c))));
    if (q + kLanes >= width) break;
  }
  return static_cast<std::int64_t>(count);
}

// One line from input row `row` (nullptr: a padding row, all zeros).
inline void fill_line(float* line, const float* row, const LineVector* vectors, std::int64_t count) noexcept {
  if (row == nullptr) {
    for (std::int64_t i = 0; i < count; ++i) _mm256_storeu_ps(line + vectors[i].q, _mm256_setzero_ps());
    return;
  }
  for (std::int64_t i = 0; i < count; ++i) {
    const LineVector& v = vectors[i];
    _mm256_storeu_ps(line + v.q, v.whole ? _mm256_loadu_ps(row + v.c) : _mm256_maskload_ps(row + v.c, v.lanes));
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
  const bool two_rows = g.out_w <= kCols / 2;  // tiles of two rows of 7 columns (rows_of)
  if (two_rows) b.rows += g.sh;                // an odd last row's unstored second row
  // Every tile reads columns up to (last tile's ox0 + kCols - 1) * sw + (kw - 1) * dw.
  std::int64_t tiles_end = two_rows ? kCols / 2 : (g.out_w + kCols - 1) / kCols * kCols;
  if (g.pairs) tiles_end = std::max(tiles_end, (g.out_w + kPairCols - 1) / kPairCols * kPairCols);
  b.width = (tiles_end - 1) * g.sw + (g.kw - 1) * g.dw + 1;
  b.width = std::max({b.width, g.pad_left + g.in_w, kLanes});  // fill_line writes whole vectors
  // The storage is sized for a whole chunk (Chunks::rows) even when this one is the shorter last:
  // a thread's first chunk then sizes it for every later one, and a warm call never grows it. A
  // worker whose first chunks were a layer's last one grew it on a later call, so that a warm
  // call made one allocation now and then (WarmRunAllocation.FloatConvolutionsOfEveryKernelFamily
  // failed about one run in twenty at two threads, session 43).
  const std::int64_t whole_rows =
      std::max(b.rows, (chunk_rows - 1) * g.sh + (g.kh - 1) * g.dh + 1 + (two_rows ? g.sh : 0));
  const std::size_t floats = static_cast<std::size_t>(g.cin * whole_rows * b.width);
  if (block_storage.size() < floats) block_storage.resize(floats);
  float* data = block_storage.data();
  const std::int64_t count = line_vectors(b.width, g.pad_left, g.in_w);
  const LineVector* vectors = line_vector_storage.data();
  for (std::int64_t c = 0; c < g.cin; ++c) {
    for (std::int64_t r = 0; r < b.rows; ++r) {
      float* line = data + (c * b.rows + r) * b.width;
      const std::int64_t iy = b.first_row + r;
      fill_line(line, iy < 0 || iy >= g.in_h ? nullptr : xn + (c * g.in_h + iy) * g.in_w, vectors, count);
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

void conv_stem_f32__avx2(const KernelContext& context, const Conv2dShape& s, const float* x, const float* packed,
                         const float* bias, float* y, const ConvActivation* activation) {
  const auto i64 = [](std::size_t v) { return static_cast<std::int64_t>(v); };
  const std::size_t padded = conv_stem_padded_channels(Isa::Avx2, s.out_per_group());
  const Geometry g{i64(s.in_per_group()), i64(s.in_h),     i64(s.in_w),       i64(s.kernel_h), i64(s.kernel_w),
                   i64(s.stride_h),       i64(s.stride_w), i64(s.dilation_h), i64(s.dilation_w), i64(s.pad_top),
                   i64(s.pad_left),       i64(s.out_h),    i64(s.out_w),      i64(s.out_per_group()), i64(padded),
                   // pair_tile: fast-mode stems (other shapes were not measured with it)
                   !context.exact && s.groups == 1 && s.in_channels <= 4 && s.out_w > kCols / 2};
  if (s.batch == 0 || g.out_h == 0 || g.out_w == 0 || g.cout == 0) return;
  const std::size_t group_weights = s.in_per_group() * s.taps() * padded;
  const stem_chunks::Chunks chunks = stem_chunks::chunks_of(s);
  const std::size_t plane = s.out_plane();
  // An activation alone is applied in the tile before its store, as the element-wise kernel
  // computes it (fused_activation_avx2.hpp): the same bits as the separate pass below.
  const bool fused = activation_fuses_in_store(activation) && activation->residual == nullptr;
  const fused_activation_avx2::Args fused_args =
      fused ? fused_activation_avx2::Args{activation->args.op, _mm256_set1_ps(activation->args.alpha),
                                          _mm256_set1_ps(activation->args.beta), activation->args.fast}
            : fused_activation_avx2::Args{};
  const fused_activation_avx2::Args* in_store = fused ? &fused_args : nullptr;
  context.parallel_for(chunks.count, chunks.estimate_ns, [&](std::size_t index) {
    const stem_chunks::Chunk c = stem_chunks::chunk_at(chunks, s, index);
    const Block b =
        make_block(g, x + (c.image * s.in_channels + c.group * s.in_per_group()) * s.in_plane(), c.oy_first, c.oy_past,
                   chunks.rows);
    float* yn = y + (c.image * s.out_channels + c.group * s.out_per_group()) * plane;
    const float* group_packed = packed + c.group * group_weights;
    const float* group_bias = bias != nullptr ? bias + c.group * s.out_per_group() : nullptr;
    if (context.exact) {
      rows_of<true>(g, b, group_packed, group_bias, in_store, yn, c.oy_first, c.oy_past);
    } else {
      rows_of<false>(g, b, group_packed, group_bias, in_store, yn, c.oy_first, c.oy_past);
    }
    if (activation != nullptr && !fused) stem_chunks::activate_chunk(context.isa, *activation, s, c, y);
  });
}

}  // namespace onemodel::opt
