// The two-pass AVX-512 MaxPool (pool_max_rows.hpp). Compiled with the AVX-512 flags of
// cmake/kernel_sources.cmake; called only on the AVX-512 path.
#include <immintrin.h>

#include <cstdint>
#include <vector>

#include "optimized/kernels/pool/pool_literal.hpp"
#include "optimized/kernels/pool/pool_max_rows.hpp"
#include "optimized/kernels/window/row_lanes_avx512.hpp"

namespace onemodel::opt::pool {
namespace {

using row_lanes::kLanes;

using row_lanes::between;

// Sixteen input columns from `at` of a row, lanes outside `keep` (the columns outside the row)
// -inf and never read. The address is formed as an integer: for those lanes it may lie outside the
// row.
inline __m512 load_columns(const float* row, std::int64_t at, __mmask16 keep, __m512 minus_inf) noexcept {
  return row_lanes::load(row, at, keep, minus_inf);
}

// The lanes of each load of a block's first pass inside the row: three per block, the same for
// every row of every plane, so made once per call.
struct BlockLanes {
  __mmask16 load[3];
};

template <int kStride>
BlockLanes block_lanes(const PoolAxis& W, std::int64_t b) noexcept {
  const std::int64_t at = b * kLanes * kStride - W.pad_before;
  BlockLanes lanes{};
  for (std::int64_t k = 0; k < 3; ++k) {
    // Stride 1: window column k at at + k. Stride 2: the 16 columns from at + 16k (the third load
    // needs its first column only).
    const std::int64_t from = kStride == 1 ? at + k : at + k * kLanes;
    lanes.load[k] = between(-from, W.in - from);
  }
  if (kStride == 2) lanes.load[2] = static_cast<__mmask16>(lanes.load[2] & 0x0001);
  return lanes;
}

// One tap into a running maximum: `v > acc ? v : acc` per lane (vmaxps returns its second operand
// when either is NaN or both are zero), the reference's "strictly greater replaces", NaN skipped.
// The all-lanes zero-masked form: the unmasked one makes GCC 12 warn (-Wmaybe-uninitialized on its
// undefined pass-through operand), an error in the Checked build.
inline __m512 fold(__m512 acc, __m512 v) noexcept { return _mm512_maskz_max_ps(0xFFFF, v, acc); }

// The first pass for one input row: for each block of sixteen output columns, the fold over its
// three window columns in w order, into maxima[b * 16, b * 16 + 16).
template <int kStride>
void row_maxima(const float* row, const PoolAxis& W, std::int64_t blocks, const BlockLanes* lanes,
                float* maxima) noexcept {
  const __m512 minus_inf = _mm512_set1_ps(-__builtin_inff());
  const __mmask16 all = 0xFFFF;
  for (std::int64_t b = 0; b < blocks; ++b) {
    const std::int64_t at = b * kLanes * kStride - W.pad_before;
    const BlockLanes& l = lanes[b];
    // Every fold starts from -inf: a NaN first tap is then skipped like any other NaN tap (taken
    // as the running value, it would hide the row's other taps).
    __m512 acc;
    if constexpr (kStride == 1) {
      acc = fold(minus_inf, load_columns(row, at, l.load[0], minus_inf));
      acc = fold(acc, load_columns(row, at + 1, l.load[1], minus_inf));
      acc = fold(acc, load_columns(row, at + 2, l.load[2], minus_inf));
    } else {
      // Columns at + 2j (window column 0), at + 2j + 1 (column 1) and at + 2j + 2 (column 2): the
      // even and odd elements of 32 loaded columns, and the even ones moved a lane on, the 33rd
      // column entering the last lane.
      const __m512 low = load_columns(row, at, l.load[0], minus_inf);
      const __m512 high = load_columns(row, at + kLanes, l.load[1], minus_inf);
      const __m512 next = load_columns(row, at + 2 * kLanes, l.load[2], minus_inf);
      const __m512i even_index = _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30);
      const __m512i odd_index = _mm512_setr_epi32(1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31);
      const __m512 even = _mm512_permutex2var_ps(low, even_index, high);
      const __m512 odd = _mm512_permutex2var_ps(low, odd_index, high);
      const __m512 even_next = _mm512_castsi512_ps(
          _mm512_maskz_alignr_epi32(all, _mm512_castps_si512(next), _mm512_castps_si512(even), 1));
      acc = fold(fold(fold(minus_inf, even), odd), even_next);
    }
    _mm512_storeu_ps(maxima + b * kLanes, acc);
  }
}

// Per thread, grown once: the row maxima of one plane (h.in rows of blocks * 16 floats) and the
// blocks' load lanes.
struct RowsScratch {
  std::vector<float> maxima;
  std::vector<BlockLanes> lanes;
};

RowsScratch& rows_scratch() {
  thread_local RowsScratch scratch;
  return scratch;
}

// The second pass for one output row: the fold down `count` rows of maxima from `m` (row_floats
// apart), in h order, per block of sixteen outputs; returns the lanes left at -inf. Three rows (every
// interior row of a 3-tall window) are unrolled, the other counts loop. Together with the plain
// pointers and the one scan for -inf below: this pass about 0.64x its time, the kernel 0.74x, on
// SqueezeNet's first 3 x 3 pool (AMD Zen 4, session 28); the three were measured together only.
template <int kRows>
__mmask16 column_maxima(const float* m, std::int64_t count, std::int64_t row_floats, std::int64_t full,
                        __mmask16 tail, float* out) noexcept {
  const __m512 minus_inf = _mm512_set1_ps(-__builtin_inff());
  auto block = [&](std::int64_t b) noexcept {
    const float* at = m + b * kLanes;
    __m512 acc = minus_inf;
    if constexpr (kRows == 3) {
      acc = fold(fold(fold(acc, _mm512_loadu_ps(at)), _mm512_loadu_ps(at + row_floats)),
                 _mm512_loadu_ps(at + 2 * row_floats));
    } else {
      for (std::int64_t r = 0; r < count; ++r) acc = fold(acc, _mm512_loadu_ps(at + r * row_floats));
    }
    return acc;
  };
  __mmask16 at_minus_inf = 0;
  for (std::int64_t b = 0; b < full; ++b) {
    const __m512 acc = block(b);
    _mm512_storeu_ps(out + b * kLanes, acc);
    at_minus_inf = static_cast<__mmask16>(at_minus_inf | _mm512_cmp_ps_mask(acc, minus_inf, _CMP_EQ_OQ));
  }
  if (tail != 0) {
    const __m512 acc = block(full);
    _mm512_mask_storeu_ps(out + full * kLanes, tail, acc);
    at_minus_inf = static_cast<__mmask16>(at_minus_inf | _mm512_mask_cmp_ps_mask(tail, acc, minus_inf, _CMP_EQ_OQ));
  }
  return at_minus_inf;
}

template <int kStride>
void planes_max(const Pool2dShape& s, const float* x, float* y, std::int64_t planes) {
  const PoolAxis& H = s.h;
  const PoolAxis& W = s.w;
  const std::int64_t blocks = (W.out + kLanes - 1) / kLanes;
  const std::int64_t row_floats = blocks * kLanes;
  RowsScratch& scratch = rows_scratch();
  if (scratch.maxima.size() < static_cast<std::size_t>(H.in * row_floats)) {
    scratch.maxima.resize(static_cast<std::size_t>(H.in * row_floats));
  }
  if (scratch.lanes.size() < static_cast<std::size_t>(blocks)) scratch.lanes.resize(static_cast<std::size_t>(blocks));
  for (std::int64_t b = 0; b < blocks; ++b) scratch.lanes[static_cast<std::size_t>(b)] = block_lanes<kStride>(W, b);
  // Plain pointers and counts, taken once: through the thread-local scratch and with the literal
  // rule's call inside the loop, GCC reloaded them (and the -inf constant) for every block.
  float* const maxima = scratch.maxima.data();
  const BlockLanes* const lanes = scratch.lanes.data();
  const std::int64_t full = W.out / kLanes;
  const auto tail = static_cast<__mmask16>((1u << (W.out - full * kLanes)) - 1u);
  for (std::int64_t p = 0; p < planes; ++p) {
    const float* plane = x + p * H.in * W.in;
    float* yplane = y + p * H.out * W.out;
    for (std::int64_t iy = 0; iy < H.in; ++iy) {
      row_maxima<kStride>(plane + iy * W.in, W, blocks, lanes, maxima + iy * row_floats);
    }
    __mmask16 at_minus_inf = 0;
    for (std::int64_t oy = 0; oy < H.out; ++oy) {
      // The window rows inside the input, in h order.
      const std::int64_t top = oy * H.stride - H.pad_before;
      const std::int64_t first = top < 0 ? 0 : top;
      const std::int64_t past = top + H.kernel < H.in ? top + H.kernel : H.in;
      const float* m = maxima + first * row_floats;
      float* out = yplane + oy * W.out;
      at_minus_inf |= past - first == 3 ? column_maxima<3>(m, 3, row_floats, full, tail, out)
                                        : column_maxima<0>(m, past - first, row_floats, full, tail, out);
    }
    // Outputs at -inf go to the literal rule (pool_literal.hpp); rare, so found by a scan of the
    // plane once any lane of it was -inf.
    if (at_minus_inf != 0) {
      for (std::int64_t oy = 0; oy < H.out; ++oy) {
        for (std::int64_t ox = 0; ox < W.out; ++ox) {
          float& out = yplane[oy * W.out + ox];
          if (out == -__builtin_inff()) out = max_one(s, plane, oy, ox);
        }
      }
    }
  }
}

}  // namespace

void max_planes_rows__avx512(const Pool2dShape& s, const float* x, float* y, std::int64_t planes) {
  if (s.w.stride == 1) {
    planes_max<1>(s, x, y, planes);
  } else {
    planes_max<2>(s, x, y, planes);
  }
}

}  // namespace onemodel::opt::pool
