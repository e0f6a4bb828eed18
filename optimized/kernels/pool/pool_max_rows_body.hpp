// The two-pass MaxPool (pool_max_rows.hpp), written once over a lane type so that the AVX-512 path
// (sixteen lanes, pool_max_rows_avx512.cpp) and the AVX2 path (eight lanes, pool_max_rows_avx2.cpp)
// run the same folds in the same order (spec/ops/products-conv.md section 8.2). Each per-path file
// defines its lane traits in an anonymous namespace, so every function here, a template over them,
// is instantiated inside that file only: code built with the AVX-512 flags is never merged by the
// linker with the AVX2 file's (an inline non-template function here would be, and could then run
// AVX-512 instructions on an AVX2 machine). Included by per-ISA kernel files only.
//
// Lane traits L provide: kLanes; Vec (kLanes floats) and Mask (a set of lanes); between(lo, hi)
// (lanes t with lo <= t < hi); minus_inf(); load(row, at, keep, fill) (kLanes floats from row[at],
// lanes outside `keep` read nothing and hold `fill`; the address is formed as an integer, so for
// those lanes it may lie outside the row); loadu(p), storeu(p, v), store(p, keep, v) (the lanes in
// `keep` only); fold(acc, v) (`v > acc ? v : acc` per lane: the reference's "strictly greater
// replaces", NaN taps skipped); minus_inf_lanes(v, keep) (the bits of the lanes in `keep` that
// equal -inf); stride2_columns(low, high, next, c0, c1, c2) (from 2 * kLanes + 1 columns starting
// at a block's first window column, in low, high and lane 0 of next: window columns 0, 1 and 2 of
// the block's kLanes outputs at width stride 2). Optionally (permuted_stride2<L>): kPermutedStride2,
// stride2_columns_permuted(p, c0, c1, c2) (the same three columns from 2 * kLanes + 2 floats read
// plainly from p, each in the lane order L's permutation gives) and permute(v) (that permutation,
// its own inverse).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "optimized/kernels/pool/pool_literal.hpp"
#include "optimized/kernels/pool/pool_max_rows.hpp"

namespace onemodel::opt::pool::rows_body {

// The lanes of each load of a block's first pass inside the row: three per block, the same for
// every row of every plane, so made once per call.
template <class L>
struct BlockLanes {
  typename L::Mask load[3];
  bool plain = false;  // stride 2: the 2 * kLanes + 2 floats from the block's first window column lie in the row
};

// Whether L computes stride-2 row maxima in a permuted lane order (AVX2: without the 64-bit
// permutes that put the even and odd columns in order, the lane-crossing part of the first pass;
// the second pass, lane by lane, puts each output block back in order once).
template <class L>
constexpr bool permuted_stride2() noexcept {
  if constexpr (requires { L::kPermutedStride2; }) {
    return L::kPermutedStride2;
  } else {
    return false;
  }
}

template <class L, int kStride>
BlockLanes<L> block_lanes(const PoolAxis& W, std::int64_t b) noexcept {
  constexpr std::int64_t kLanes = L::kLanes;
  const std::int64_t at = b * kLanes * kStride - W.pad_before;
  BlockLanes<L> lanes{};
  for (std::int64_t k = 0; k < 3; ++k) {
    // Stride 1: window column k at at + k. Stride 2: the kLanes columns from at + kLanes * k, of
    // which the third load needs its first column only.
    const std::int64_t from = kStride == 1 ? at + k : at + k * kLanes;
    const std::int64_t past = W.in - from;
    lanes.load[k] = L::between(-from, kStride == 2 && k == 2 && past > 1 ? 1 : past);
  }
  lanes.plain = at >= 0 && at + 2 * kLanes + 2 <= W.in;
  return lanes;
}

// The first pass for one input row: for each block of kLanes output columns, the fold over its
// three window columns in w order, into maxima[b * kLanes, (b + 1) * kLanes).
template <class L, int kStride>
void row_maxima(const float* row, const PoolAxis& W, std::int64_t blocks, const BlockLanes<L>* lanes,
                float* maxima) noexcept {
  constexpr std::int64_t kLanes = L::kLanes;
  const typename L::Vec minus_inf = L::minus_inf();
  for (std::int64_t b = 0; b < blocks; ++b) {
    const std::int64_t at = b * kLanes * kStride - W.pad_before;
    const BlockLanes<L>& l = lanes[b];
    // Every fold starts from -inf: a NaN first tap is then skipped like any other NaN tap (taken
    // as the running value, it would hide the row's other taps).
    typename L::Vec acc;
    if constexpr (kStride == 1) {
      acc = L::fold(minus_inf, L::load(row, at, l.load[0], minus_inf));
      acc = L::fold(acc, L::load(row, at + 1, l.load[1], minus_inf));
      acc = L::fold(acc, L::load(row, at + 2, l.load[2], minus_inf));
    } else {
      // Columns at + 2j (window column 0), at + 2j + 1 (column 1) and at + 2j + 2 (column 2), out
      // of 2 * kLanes loaded columns and the first of the next kLanes.
      typename L::Vec c0, c1, c2;
      if constexpr (permuted_stride2<L>()) {
        // In L's permuted lane order: plainly inside the row, the columns come so; at a border,
        // the block computed in order is permuted (each lane's fold is the same either way).
        if (l.plain) {
          L::stride2_columns_permuted(row + at, c0, c1, c2);
          acc = L::fold(L::fold(L::fold(minus_inf, c0), c1), c2);
        } else {
          L::stride2_columns(L::load(row, at, l.load[0], minus_inf), L::load(row, at + kLanes, l.load[1], minus_inf),
                             L::load(row, at + 2 * kLanes, l.load[2], minus_inf), c0, c1, c2);
          acc = L::permute(L::fold(L::fold(L::fold(minus_inf, c0), c1), c2));
        }
      } else {
        L::stride2_columns(L::load(row, at, l.load[0], minus_inf), L::load(row, at + kLanes, l.load[1], minus_inf),
                           L::load(row, at + 2 * kLanes, l.load[2], minus_inf), c0, c1, c2);
        acc = L::fold(L::fold(L::fold(minus_inf, c0), c1), c2);
      }
    }
    L::storeu(maxima + b * kLanes, acc);
  }
}

// Per thread, grown once: the row maxima of one plane (h.in rows of blocks * kLanes floats) and the
// blocks' load lanes.
template <class L>
struct RowsScratch {
  std::vector<float> maxima;
  std::vector<BlockLanes<L>> lanes;
};

template <class L>
RowsScratch<L>& rows_scratch() {
  thread_local RowsScratch<L> scratch;
  return scratch;
}

// The second pass for one output row: the fold down `count` rows of maxima from `m` (row_floats
// apart), in h order, per block of kLanes outputs; returns the lanes left at -inf. Three rows (every
// interior row of a 3-tall window) are unrolled, the other counts loop. Together with the plain
// pointers and the one scan for -inf below: this pass about 0.64x its time, the kernel 0.74x, on
// SqueezeNet's first 3 x 3 pool (AMD Zen 4, AVX-512, session 28); the three were measured together
// only.
// kPermuted: the rows of maxima are in L's permuted lane order (permuted_stride2), each block put
// back in order (L::permute) before its store.
template <class L, int kRows, bool kPermuted>
unsigned column_maxima(const float* m, std::int64_t count, std::int64_t row_floats, std::int64_t full, bool ragged,
                       typename L::Mask tail, float* out) noexcept {
  constexpr std::int64_t kLanes = L::kLanes;
  const typename L::Vec minus_inf = L::minus_inf();
  const typename L::Mask all = L::between(0, kLanes);
  auto block = [&](std::int64_t b) noexcept {
    const float* at = m + b * kLanes;
    typename L::Vec acc = minus_inf;
    if constexpr (kRows == 3) {
      acc = L::fold(L::fold(L::fold(acc, L::loadu(at)), L::loadu(at + row_floats)), L::loadu(at + 2 * row_floats));
    } else {
      for (std::int64_t r = 0; r < count; ++r) acc = L::fold(acc, L::loadu(at + r * row_floats));
    }
    if constexpr (kPermuted) acc = L::permute(acc);
    return acc;
  };
  unsigned at_minus_inf = 0;
  for (std::int64_t b = 0; b < full; ++b) {
    const typename L::Vec acc = block(b);
    L::storeu(out + b * kLanes, acc);
    at_minus_inf |= L::minus_inf_lanes(acc, all);
  }
  if (ragged) {
    const typename L::Vec acc = block(full);
    L::store(out + full * kLanes, tail, acc);
    at_minus_inf |= L::minus_inf_lanes(acc, tail);
  }
  return at_minus_inf;
}

// The input kAheadBytes past a row, as long as the row, asked for before the row's first pass:
// the planes are read in address order, but a pool after a stem reads a map the stem wrote beyond
// L2 (64 x 112 x 112, 3.2 MB an image), and the hardware prefetchers stop at each 4 KB page, so
// every page's first lines waited. Planes are contiguous, so near a plane's end the requests run
// on into the next plane; past the chunk's last plane they may lie beyond the input (formed as
// integers: a request never faults). Session 42, Intel Xeon (model 167), one thread, per node
// (minimum of three alternated profile medians, us): SqueezeNet at batch 8, its three 3x3/2 pools
// 2934 -> 2538, 1287 -> 840, 423 -> 364; at batch 1 3-5% less; ResNet-50's pool at batch 8 within
// noise (3043 / 3094). A hint only; no value changes.
constexpr std::uintptr_t kAheadBytes = 4096;

inline void ask_ahead(const float* row, std::int64_t floats) noexcept {
  constexpr std::int64_t kLineFloats = 16;  // 64-byte lines
  const std::uintptr_t first = reinterpret_cast<std::uintptr_t>(row) + kAheadBytes;
  for (std::int64_t j = 0; j < floats; j += kLineFloats) {
    __builtin_prefetch(reinterpret_cast<const char*>(first + static_cast<std::uintptr_t>(j) * sizeof(float)), 0, 3);
  }
}

template <class L, int kStride>
void planes_max(const Pool2dShape& s, const float* x, float* y, std::int64_t planes) {
  constexpr std::int64_t kLanes = L::kLanes;
  const PoolAxis& H = s.h;
  const PoolAxis& W = s.w;
  const std::int64_t blocks = (W.out + kLanes - 1) / kLanes;
  const std::int64_t row_floats = blocks * kLanes;
  RowsScratch<L>& scratch = rows_scratch<L>();
  if (scratch.maxima.size() < static_cast<std::size_t>(H.in * row_floats)) {
    scratch.maxima.resize(static_cast<std::size_t>(H.in * row_floats));
  }
  if (scratch.lanes.size() < static_cast<std::size_t>(blocks)) scratch.lanes.resize(static_cast<std::size_t>(blocks));
  for (std::int64_t b = 0; b < blocks; ++b) {
    scratch.lanes[static_cast<std::size_t>(b)] = block_lanes<L, kStride>(W, b);
  }
  // Plain pointers and counts, taken once: through the thread-local scratch and with the literal
  // rule's call inside the loop, GCC reloaded them (and the -inf constant) for every block.
  float* const maxima = scratch.maxima.data();
  const BlockLanes<L>* const lanes = scratch.lanes.data();
  const std::int64_t full = W.out / kLanes;
  const bool ragged = W.out % kLanes != 0;
  const typename L::Mask tail = L::between(0, W.out - full * kLanes);
  for (std::int64_t p = 0; p < planes; ++p) {
    const float* plane = x + p * H.in * W.in;
    float* yplane = y + p * H.out * W.out;
    for (std::int64_t iy = 0; iy < H.in; ++iy) {
      ask_ahead(plane + iy * W.in, W.in);
      row_maxima<L, kStride>(plane + iy * W.in, W, blocks, lanes, maxima + iy * row_floats);
    }
    unsigned at_minus_inf = 0;
    for (std::int64_t oy = 0; oy < H.out; ++oy) {
      // The window rows inside the input, in h order.
      const std::int64_t top = oy * H.stride - H.pad_before;
      const std::int64_t first = top < 0 ? 0 : top;
      const std::int64_t past = top + H.kernel < H.in ? top + H.kernel : H.in;
      const float* m = maxima + first * row_floats;
      float* out = yplane + oy * W.out;
      constexpr bool kPermuted = kStride == 2 && permuted_stride2<L>();
      at_minus_inf |= past - first == 3
                          ? column_maxima<L, 3, kPermuted>(m, 3, row_floats, full, ragged, tail, out)
                          : column_maxima<L, 0, kPermuted>(m, past - first, row_floats, full, ragged, tail, out);
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

// The kernel: max_planes_rows__<path> (pool_max_rows.hpp) on the lane type of its path.
template <class L>
void max_planes_rows(const Pool2dShape& s, const float* x, float* y, std::int64_t planes) {
  if (s.w.stride == 1) {
    planes_max<L, 1>(s, x, y, planes);
  } else {
    planes_max<L, 2>(s, x, y, planes);
  }
}

}  // namespace onemodel::opt::pool::rows_body
