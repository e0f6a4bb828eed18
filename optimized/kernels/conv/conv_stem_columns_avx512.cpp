// The direct stem convolution with output columns in the lanes (conv_stem_columns.hpp). Work is
// cut into chunks of whole output rows of one image, as conv_stem_avx512.cpp cuts it; a chunk
// first copies the input rows its windows read into a zero-padded block split by column phase
// (phase p of a row holds its padded columns p, p + S, p + 2S, ... for column stride S), so that
// the input a tap kx gives to sixteen neighbouring outputs is one unaligned load from phase kx % S
// at kx / S. A tile is kCh output channels by kV vectors of sixteen columns of one output row:
// per tap, kV loads feed kCh * kV multiply-adds, each with its weight broadcast from the packed
// weights (conv_stem_pack_weights) as the instruction's memory operand. Each accumulator is one
// channel's sixteen columns, so a finished tile is stored as it is: the kernel of
// conv_stem_avx512.cpp holds sixteen channels per register and transposes each 16 x 16 block
// before its stores, which for K = 27 (a 3x3 stem) had cost about a third of its time.
//
// Every lane is one output as the product computes it (kernels-gemm.md "Convolution",
// exact-mode.md "Convolution"): +0, then w * x over k = (c, ky, kx) in increasing order, padding
// taps products with +0 (the block holds zeros there), the bias one rounded addition afterwards;
// exact mode a rounded product then a rounded sum with canonical NaN, fast mode one fused
// multiply-add per tap. So the bits are the other stem kernel's, im2col's and the reference's.
#include <immintrin.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

#include "optimized/kernels/conv/conv_stem.hpp"
#include "optimized/kernels/conv/conv_stem_chunks.hpp"
#include "optimized/kernels/conv/conv_stem_columns.hpp"
#include "optimized/kernels/conv/fused_activation_avx512.hpp"
#include "optimized/kernels/window/row_lanes_avx512.hpp"

namespace onemodel::opt {
namespace {

constexpr std::int64_t kLanes = 16;
constexpr int kCh = 8;  // output channels per tile (conv_stem_padded_channels is a multiple of 16)

struct Geometry {
  std::int64_t cin, in_h, in_w, kh, kw, sh, sw, dh, pad_top, pad_left, out_h, out_w, cout, cout_padded;
};

// Input rows [first_row, first_row + rows) of one image, zero-padded, each split into sw phases of
// `width` floats: data[((c * rows + r) * sw + p) * width + j] is padded column j * sw + p of row r
// (input column j * sw + p - pad_left, +0 outside the image).
struct PhaseBlock {
  const float* data;
  std::int64_t first_row, rows, width;
};

thread_local std::vector<float> phase_storage;  // only grows: warm runs allocate nothing

PhaseBlock make_phase_block(const Geometry& g, const float* xn, std::int64_t oy_first, std::int64_t oy_past,
                            std::int64_t chunk_rows) {
  PhaseBlock b;
  b.first_row = oy_first * g.sh - g.pad_top;
  b.rows = (oy_past - 1 - oy_first) * g.sh + (g.kh - 1) * g.dh + 1;
  // Tiles read phase columns up to (out_w rounded up to 16) - 1 + (kw - 1) / sw; rounded up to 16
  // so that the rows are written in whole vectors.
  b.width = ((g.out_w + kLanes - 1) / kLanes * kLanes + (g.kw - 1) / g.sw + 1 + kLanes - 1) / kLanes * kLanes;
  // The storage is sized for a whole chunk (Chunks::rows), as make_block in conv_stem_avx512.cpp, even when this one is the shorter last:
  // a thread's first chunk then sizes it for every later one, and a warm call never grows it. A
  // worker whose first chunks were a layer's last one grew it on a later call, so that a warm
  // call made one allocation now and then (WarmRunAllocation.FloatConvolutionsOfEveryKernelFamily
  // failed about one run in twenty at two threads, session 43).
  const std::int64_t whole_rows = std::max(b.rows, (chunk_rows - 1) * g.sh + (g.kh - 1) * g.dh + 1);
  const std::size_t floats = static_cast<std::size_t>(g.cin * whole_rows * g.sw * b.width);
  if (phase_storage.size() < floats) phase_storage.resize(floats);
  float* data = phase_storage.data();
  const __m512i even = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
  const __m512i odd = _mm512_setr_epi32(1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31);
  for (std::int64_t c = 0; c < g.cin; ++c) {
    for (std::int64_t r = 0; r < b.rows; ++r) {
      float* phases = data + (c * b.rows + r) * g.sw * b.width;
      const std::int64_t iy = b.first_row + r;
      if (iy < 0 || iy >= g.in_h) {
        std::fill(phases, phases + g.sw * b.width, 0.0f);
        continue;
      }
      // Padded column q is input column q - pad_left: lanes outside the input are masked off
      // (never read) and hold +0. Two phases: 32 padded columns at a time, split by one
      // permutation each into the even and the odd columns.
      const float* row = xn + (c * g.in_h + iy) * g.in_w;
      for (std::int64_t j = 0; j < b.width; j += kLanes) {
        if (g.sw == 1) {
          const std::int64_t at = j - g.pad_left;
          _mm512_storeu_ps(phases + j, row_lanes::load_or_zero(row, at, row_lanes::between(-at, g.in_w - at)));
          continue;
        }
        const std::int64_t at = 2 * j - g.pad_left;
        const __m512 l0 = row_lanes::load_or_zero(row, at, row_lanes::between(-at, g.in_w - at));
        const __m512 l1 = row_lanes::load_or_zero(row, at + kLanes, row_lanes::between(-at - kLanes, g.in_w - at - kLanes));
        _mm512_storeu_ps(phases + j, _mm512_permutex2var_ps(l0, even, l1));
        _mm512_storeu_ps(phases + b.width + j, _mm512_permutex2var_ps(l0, odd, l1));
      }
    }
  }
  b.data = data;
  return b;
}

// exact-mode.md rule 1: the product rounded, then the sum rounded; fast mode one fused step.
template <bool kExact>
[[gnu::always_inline]] inline __m512 step(__m512 acc, __m512 w, __m512 x) noexcept {
  if constexpr (kExact) {
    return _mm512_add_ps(acc, _mm512_mul_ps(w, x));
  } else {
    return _mm512_fmadd_ps(w, x, acc);
  }
}

struct TileOut {
  const float* bias;
  const fused_activation::Args* activation;  // applied before the store, or nullptr
  float* yn;                                 // the image's output
  std::int64_t plane;
  std::int64_t oy_past;                      // the chunk's last output row + 1
};

// Output row oy, columns [ox0, ox0 + 16 kV) (those past out_w computed from the block's zeros and
// never stored), channels [oc0, oc0 + kCh) (those past cout computed from zero weights and never
// stored).
template <bool kExact, int kS, int kW, int kV>
void tile(const Geometry& g, const PhaseBlock& b, const float* packed, const TileOut& out, std::int64_t oy,
          std::int64_t ox0, std::int64_t oc0) noexcept {
  __m512 acc[kCh][kV];
#pragma GCC unroll 8
  for (int ch = 0; ch < kCh; ++ch) {
#pragma GCC unroll 3
    for (int v = 0; v < kV; ++v) acc[ch][v] = _mm512_setzero_ps();  // exact-mode.md rule 3
  }
  // The tile's outputs of the next row, asked for with intent to write while this tile computes:
  // rows_of walks a row of every channel before the next, so those lines are needed one row of
  // tiles later. A stem writes 64 planes (or 32, 24) a few lines at a time, more streams than the
  // hardware prefetchers follow, onto memory no earlier layer touched (3.2 MB per image for
  // SqueezeNet's 64 x 111 x 111), so each store waited for its line. Session 42, Intel Xeon (model
  // 167), one thread, per node (onemodel profile, minimum of 3-4 alternated medians): SqueezeNet's
  // stem 530 -> 498 us at batch 1, 6761 -> 4889 us at batch 8; whole rows (ab_rows.py) SqueezeNet
  // at batch 8 fast 60.4 -> 57.7 ms, exact 90.1 -> 80.0. Only rows of this chunk: the next chunk's
  // first row may be another thread's. A hint to the caches only; no value changes.
  if (oy + 1 < out.oy_past) {
    const std::int64_t channels = std::min<std::int64_t>(kCh, g.cout - oc0);
    const std::int64_t cols = std::min<std::int64_t>(kV * kLanes, g.out_w - ox0);
    for (int ch = 0; ch < channels; ++ch) {
      const float* row = out.yn + (oc0 + ch) * out.plane + (oy + 1) * g.out_w + ox0;
      for (std::int64_t j = 0; j < cols; j += kLanes) __builtin_prefetch(row + j, 1, 3);
      __builtin_prefetch(row + cols - 1, 1, 3);
    }
  }
  const float* wp = packed + oc0;
  for (std::int64_t c = 0; c < g.cin; ++c) {
    for (std::int64_t ky = 0; ky < g.kh; ++ky) {
      const std::int64_t r = oy * g.sh - g.pad_top + ky * g.dh - b.first_row;  // input row first_row + r
      const float* phases = b.data + (c * b.rows + r) * kS * b.width + ox0;
#pragma GCC unroll 7
      for (int kx = 0; kx < kW; ++kx, wp += g.cout_padded) {
        const float* src = phases + (kx % kS) * b.width + kx / kS;
        __m512 x[kV];
#pragma GCC unroll 3
        for (int v = 0; v < kV; ++v) x[v] = _mm512_loadu_ps(src + v * kLanes);
#pragma GCC unroll 8
        for (int ch = 0; ch < kCh; ++ch) {
          const __m512 w = _mm512_set1_ps(wp[ch]);
#pragma GCC unroll 3
          for (int v = 0; v < kV; ++v) acc[ch][v] = step<kExact>(acc[ch][v], w, x[v]);
        }
      }
    }
  }
  const std::int64_t channels = std::min<std::int64_t>(kCh, g.cout - oc0);
  for (int ch = 0; ch < channels; ++ch) {
    float* row = out.yn + (oc0 + ch) * out.plane + oy * g.out_w + ox0;
    const __m512 bv = out.bias != nullptr ? _mm512_set1_ps(out.bias[oc0 + ch]) : _mm512_setzero_ps();
#pragma GCC unroll 3
    for (int v = 0; v < kV; ++v) {
      const std::int64_t left = g.out_w - ox0 - v * kLanes;
      if (left <= 0) break;
      __m512 r = acc[ch][v];
      if (out.bias != nullptr) r = _mm512_add_ps(r, bv);  // one rounded addition after the sum
      if constexpr (kExact) {
        r = _mm512_mask_mov_ps(r, _mm512_cmp_ps_mask(r, r, _CMP_UNORD_Q),
                               _mm512_castsi512_ps(_mm512_set1_epi32(0x7FC00000)));
      }
      if (out.activation != nullptr) r = fused_activation::apply(*out.activation, r);
      const __mmask16 lanes = left >= kLanes ? static_cast<__mmask16>(0xFFFF) : static_cast<__mmask16>((1u << left) - 1u);
      _mm512_mask_storeu_ps(row + v * kLanes, lanes, r);
    }
  }
}

// The chunk's rows: per row and block of kCh channels, the columns in tiles of three vectors,
// the last tile as narrow as the row's remaining columns allow.
template <bool kExact, int kS, int kW>
void rows_of(const Geometry& g, const PhaseBlock& b, const float* packed, const TileOut& out, std::int64_t oy_first,
             std::int64_t oy_past) noexcept {
  for (std::int64_t oy = oy_first; oy < oy_past; ++oy) {
    for (std::int64_t oc0 = 0; oc0 < g.cout; oc0 += kCh) {
      std::int64_t ox0 = 0;
      for (; ox0 + 3 * kLanes <= g.out_w; ox0 += 3 * kLanes) tile<kExact, kS, kW, 3>(g, b, packed, out, oy, ox0, oc0);
      const std::int64_t left = g.out_w - ox0;
      if (left > 2 * kLanes) {
        tile<kExact, kS, kW, 3>(g, b, packed, out, oy, ox0, oc0);
      } else if (left > kLanes) {
        tile<kExact, kS, kW, 2>(g, b, packed, out, oy, ox0, oc0);
      } else if (left > 0) {
        tile<kExact, kS, kW, 1>(g, b, packed, out, oy, ox0, oc0);
      }
    }
  }
}

template <bool kExact>
void rows_of(const Geometry& g, const PhaseBlock& b, const float* packed, const TileOut& out, std::int64_t oy_first,
             std::int64_t oy_past) noexcept {
  const auto by_width = [&]<int kS>() {
    switch (g.kw) {
      case 3: return rows_of<kExact, kS, 3>(g, b, packed, out, oy_first, oy_past);
      case 5: return rows_of<kExact, kS, 5>(g, b, packed, out, oy_first, oy_past);
      default: return rows_of<kExact, kS, 7>(g, b, packed, out, oy_first, oy_past);
    }
  };
  if (g.sw == 1) return by_width.template operator()<1>();
  by_width.template operator()<2>();
}

}  // namespace


void conv_stem_columns_f32__avx512(const KernelContext& context, const Conv2dShape& s, const float* x,
                                   const float* packed, const float* bias, float* y,
                                   const ConvActivation* activation) {
  const auto i64 = [](std::size_t v) { return static_cast<std::int64_t>(v); };
  const Geometry g{i64(s.in_channels), i64(s.in_h),     i64(s.in_w),     i64(s.kernel_h), i64(s.kernel_w),
                   i64(s.stride_h),    i64(s.stride_w), i64(s.dilation_h), i64(s.pad_top), i64(s.pad_left),
                   i64(s.out_h),       i64(s.out_w),    i64(s.out_channels),
                   i64(conv_stem_padded_channels(Isa::Avx512, s.out_channels))};
  if (s.batch == 0 || g.out_h == 0 || g.out_w == 0 || g.cout == 0) return;
  const stem_chunks::Chunks chunks = stem_chunks::chunks_of(s);
  const std::size_t plane = s.out_plane();
  // An activation alone (fused_activation_avx512.hpp) is applied before the store, as the
  // element-wise kernel computes it: the same bits as the separate pass below.
  const bool fused = activation_fuses_in_store(activation) && activation->residual == nullptr;
  const fused_activation::Args fused_args = fused ? fused_activation::args_of(*activation) : fused_activation::Args{};
  context.parallel_for(chunks.count, chunks.estimate_ns, [&](std::size_t index) {
    const stem_chunks::Chunk c = stem_chunks::chunk_at(chunks, s, index);
    const std::size_t image = c.image;
    const std::int64_t oy_first = c.oy_first, oy_past = c.oy_past;
    const PhaseBlock b = make_phase_block(g, x + image * s.in_channels * s.in_plane(), oy_first, oy_past, chunks.rows);
    const TileOut out{bias, fused ? &fused_args : nullptr, y + image * s.out_channels * plane,
                      static_cast<std::int64_t>(plane), oy_past};
    if (context.exact) {
      rows_of<true>(g, b, packed, out, oy_first, oy_past);
    } else {
      rows_of<false>(g, b, packed, out, oy_first, oy_past);
    }
    if (activation != nullptr && !fused) stem_chunks::activate_chunk(context.isa, *activation, s, c, y);
  });
}

}  // namespace onemodel::opt
