// The fast flavour of one attention work item (kernels-attention.md, "The exact definition", last
// paragraph: fused multiply-add, the fast exponential, multiply by 1/l; deterministic for any thread
// count because an item is still one (b, h, block of 32 query rows) and its arithmetic does not
// depend on the thread that runs it). Used on paths of 8 or more lanes (AVX2, AVX-512); narrower
// paths run work_item<L, true> of attention_body.hpp.
//
// Why a separate body: the exact flavour's order is normative (step 4's 16-partial block sum, the
// per-element operation order), the fast flavour's is not, so here
//  - the score block is a register-tiled product (R query rows x C vectors of keys, up to 16
//    accumulators on AVX-512) over keys packed d-major (kt[x][j]), so lanes run over keys and the loop
//    over x is a broadcast of q[r][x] times a row of kt: no horizontal sums in the inner loops;
//  - the mask is read in place (no per-block copy) unless the block is partial;
//  - the running sum l is kept as one vector of lane partials per row (l = l * alpha + sum of the
//    block's weight vectors), reduced once at the end instead of once per block;
//  - P V is a register tile of R rows x C vectors over the value columns;
//  - the key block is packed by KeyPack<L>, which a per-ISA file may specialise with a vector
//    transpose (attention_avx512.cpp, attention_avx2.cpp).
// Included by per-ISA kernel files only.
#pragma once

#include <cstddef>
#include <cstring>

#include "optimized/kernels/attention/attention_body.hpp"

namespace onemodel::opt::attention {

// Packs keys [0, n) of a block transposed and times ks: kt[x * 64 + j] = k[j][x] * ks, zero for
// j in [n, 64). Generic version: element by element. Per-ISA files specialise it.
template <class L>
struct KeyPack {
  static void pack(float* kt, const float* k, std::ptrdiff_t row_stride, std::size_t n, std::size_t d,
                   float ks) noexcept {
    for (std::size_t j = 0; j < n; ++j) {
      const float* kr = k + static_cast<std::ptrdiff_t>(j) * row_stride;
      for (std::size_t x = 0; x < d; ++x) kt[x * 64 + j] = kr[x] * ks;
    }
    if (n < 64) {
      for (std::size_t x = 0; x < d; ++x)
        for (std::size_t j = n; j < 64; ++j) kt[x * 64 + j] = 0.0f;
    }
  }
};

// Horizontal reductions of one vector, used once per row and block (max) or once per row (sum).
// Generic version through memory; per-ISA files may specialise it.
template <class L>
struct Horizontal {
  static float max(typename L::F v) noexcept {  // lanes are never NaN here
    float lanes[L::kWidth];
    L::store(lanes, v);
    float m = lanes[0];
    for (int k = 1; k < L::kWidth; ++k) m = lanes[k] > m ? lanes[k] : m;
    return m;
  }
  static float sum(typename L::F v) noexcept {
    float lanes[L::kWidth];
    L::store(lanes, v);
    // Pairwise, fixed order (deterministic; the fast flavour's order is free).
    for (int w = L::kWidth / 2; w >= 1; w /= 2)
      for (int k = 0; k < w; ++k) lanes[k] = lanes[k] + lanes[k + w];
    return lanes[0];
  }
};

// How a block reads its mask: none, one value per row (column stride 0), or a row of 64 values.
enum class MaskKind { None, PerRow, Row };

struct FastBlock {
  MaskKind kind = MaskKind::None;
  const float* row[32] = {};  // MaskKind::Row: values of keys kb .. kb + 64 (or a padded copy)
  float value[32] = {};       // MaskKind::PerRow
};

// Scores of rows [r0, r0 + R) and key vectors [j0, j0 + C * W): s = mask + dot * scale (fused).
// Tiles are kept out of line: inlined into the item, GCC 12 spilled accumulators to the stack to
// hold the item's loop state in vector registers.
template <class L, std::size_t R, std::size_t C>
__attribute__((noinline)) void fast_score_tile(const Scratch& w, const FastBlock& fb, std::size_t d, float scale, std::size_t r0,
                            std::size_t j0) noexcept {
  using F = typename L::F;
  constexpr std::size_t W = static_cast<std::size_t>(L::kWidth);
  F acc[R][C];
  for (std::size_t r = 0; r < R; ++r)
    for (std::size_t c = 0; c < C; ++c) acc[r][c] = L::zero();
  const float* q0 = w.q + r0 * d;
  const float* kt = w.kt + j0;
  for (std::size_t x = 0; x < d; ++x) {
    F kv[C];
    for (std::size_t c = 0; c < C; ++c) kv[c] = L::load(kt + x * 64 + c * W);
    for (std::size_t r = 0; r < R; ++r) {
      const F qv = L::set1(q0[r * d + x]);
      for (std::size_t c = 0; c < C; ++c) acc[r][c] = L::fmadd(qv, kv[c], acc[r][c]);
    }
  }
  const F sc = L::set1(scale);
  for (std::size_t r = 0; r < R; ++r) {
    float* s = w.s + (r0 + r) * 64 + j0;
    for (std::size_t c = 0; c < C; ++c) {
      F mv = L::zero();
      if (fb.kind == MaskKind::Row) mv = L::load(fb.row[r0 + r] + j0 + c * W);
      else if (fb.kind == MaskKind::PerRow) mv = L::set1(fb.value[r0 + r]);
      L::store(s + c * W, L::fmadd(acc[r][c], sc, mv));
    }
  }
}

// The score tiles of rows [r0, r0 + R) over `vectors` key vectors from j0 (at most C): the tile of
// that many vectors, so a block's last keys (197 = 3 x 64 + 5) cost one vector, not four.
template <class L, std::size_t R, std::size_t C>
inline void fast_score_part(const Scratch& w, const FastBlock& fb, std::size_t d, float scale, std::size_t r0,
                            std::size_t j0, std::size_t vectors) noexcept {
  if constexpr (C > 1) {
    if (vectors < C) return fast_score_part<L, R, C - 1>(w, fb, d, scale, r0, j0, vectors);
  }
  fast_score_tile<L, R, C>(w, fb, d, scale, r0, j0);
}

// acc[r][x] += p[r][j] * v[j][x] for rows [r0, r0 + R), columns [x0, x0 + C * W), keys [0, n).
template <class L, std::size_t R, std::size_t C>
__attribute__((noinline)) void fast_pv_tile(const Scratch& w, const float* v, std::ptrdiff_t vs, std::size_t dv, std::size_t r0,
                         std::size_t x0, std::size_t n) noexcept {
  using F = typename L::F;
  constexpr std::size_t W = static_cast<std::size_t>(L::kWidth);
  F acc[R][C];
  for (std::size_t r = 0; r < R; ++r)
    for (std::size_t c = 0; c < C; ++c) acc[r][c] = L::load(w.acc + (r0 + r) * dv + x0 + c * W);
  const float* p0 = w.s + r0 * 64;
  for (std::size_t j = 0; j < n; ++j) {
    const float* vrow = v + static_cast<std::ptrdiff_t>(j) * vs + static_cast<std::ptrdiff_t>(x0);
    F vv[C];
    for (std::size_t c = 0; c < C; ++c) vv[c] = L::load(vrow + c * W);
    for (std::size_t r = 0; r < R; ++r) {
      const F pv = L::set1(p0[r * 64 + j]);
      for (std::size_t c = 0; c < C; ++c) acc[r][c] = L::fmadd(pv, vv[c], acc[r][c]);
    }
  }
  for (std::size_t r = 0; r < R; ++r)
    for (std::size_t c = 0; c < C; ++c) L::store(w.acc + (r0 + r) * dv + x0 + c * W, acc[r][c]);
}

// Rows [0, rows_pad) (a multiple of 4) with tiles of R rows where R divides the 8-aligned part.
template <class L, std::size_t R, std::size_t C>
inline void fast_pv_columns(const Scratch& w, const float* v, std::ptrdiff_t vs, std::size_t dv,
                            std::size_t rows_pad, std::size_t x0, std::size_t n) noexcept {
  std::size_t r0 = 0;
  for (; r0 + R <= rows_pad; r0 += R) fast_pv_tile<L, R, C>(w, v, vs, dv, r0, x0, n);
  if constexpr (R > 4) {
    for (; r0 + 4 <= rows_pad; r0 += 4) fast_pv_tile<L, 4, C>(w, v, vs, dv, r0, x0, n);
  }
  if constexpr (R > 2) {
    for (; r0 + 2 <= rows_pad; r0 += 2) fast_pv_tile<L, 2, C>(w, v, vs, dv, r0, x0, n);
  }
}

// Query rows [i0, i0 + rows) of head (b, h), rows at most kAttentionFastItemRows: sub-blocks of 32
// rows, each with its own running max, sums and accumulators, against every key block in order;
// a key block's keys are packed (and its value rows gathered) once for all the sub-blocks. Each
// row's arithmetic is that of a 32-row item alone: the same bits for any grouping.
template <class L>
inline void work_item_fast(const AttentionArgs& a, const Scratch& w, std::size_t b, std::size_t h, std::size_t i0,
                           std::size_t rows) noexcept {
  using F = typename L::F;
  constexpr std::size_t W = static_cast<std::size_t>(L::kWidth);
  constexpr std::size_t NV = 64 / W;                 // vectors per key block
  // Accumulators a tile may hold: 24 of AVX-512's 32 registers (tiles of 6 rows by 4 vectors, then
  // tiles of 2 rows for the rest of a 4-row padding; with 16 the loads of keys and values were as
  // many as half the multiply-adds), 8 of AVX2's 16.
  constexpr std::size_t kAcc = W >= 16 ? 24 : 8;
  constexpr std::size_t SC = NV < 4 ? NV : 4;        // score tile: vectors of keys
  constexpr std::size_t SR = kAcc / SC;              // score tile: rows (6 or 2)
  static_assert(SR == 6 || SR == 2, "score tiles of 6 rows are followed by tiles of 2");
  constexpr std::size_t QB = kAttentionQueryBlock;
  const std::size_t d = a.d;
  const std::size_t dv = a.dv;
  const std::size_t subs = (rows + QB - 1) / QB;
  const std::size_t kvh = h / a.kv_group;
  const auto off = [](const AttentionStrides& s, std::size_t b_, std::size_t h_) {
    return static_cast<std::ptrdiff_t>(b_) * s.batch + static_cast<std::ptrdiff_t>(h_) * s.head;
  };
  const float* q = a.q + off(a.q_strides, b, h);
  const float* k = a.k + off(a.k_strides, b, kvh);
  const float* v = a.v + off(a.v_strides, b, kvh);
  const float* mask = a.mask != nullptr ? a.mask + off(a.mask_strides, b, h) : nullptr;
  // Sub-block `sb`: its first row, its rows, its rows padded to a multiple of 4, its view of the
  // scratch (query rows, accumulators, running max and lane sums; scores, mask, keys and values
  // are shared).
  const auto sub_rows = [&](std::size_t sb) { return rows - sb * QB < QB ? rows - sb * QB : QB; };
  const auto view = [&](std::size_t sb) {
    Scratch ws = w;
    ws.q = w.q + sb * QB * d;
    ws.acc = w.acc + sb * QB * dv;
    ws.m = w.m + sb * QB;
    ws.lv = w.lv + sb * QB * W;
    return ws;
  };
  for (std::size_t sb = 0; sb < subs; ++sb) {
    const Scratch ws = view(sb);
    const std::size_t first = i0 + sb * QB, count = sub_rows(sb), rows_pad = (count + 3) / 4 * 4;
    // The query rows times q_scale, padded to a multiple of 4 with copies of the last row.
    for (std::size_t r = 0; r < rows_pad; ++r) {
      const float* qr = q + static_cast<std::ptrdiff_t>(first + (r < count ? r : count - 1)) * a.q_strides.row;
      for (std::size_t x = 0; x < d; ++x) ws.q[r * d + x] = qr[x] * a.q_scale;
    }
    for (std::size_t r = 0; r < rows_pad; ++r) {
      ws.m[r] = -__builtin_inff();
      L::store(ws.lv + r * W, L::zero());
      for (std::size_t x = 0; x < dv; ++x) ws.acc[r * dv + x] = 0.0f;
    }
  }
  for (std::size_t kb = 0; kb < a.kv_len; kb += 64) {
    const std::size_t n = a.kv_len - kb < 64 ? a.kv_len - kb : 64;
    KeyPack<L>::pack(w.kt, k + static_cast<std::ptrdiff_t>(kb) * a.k_strides.row, a.k_strides.row, n, d, a.k_scale);
    // Value rows further apart than dv (heads interleaved, [b, s, h, d]) are first copied together:
    // a tile reads the block's rows once per 4 or 8 query rows, and rows 3 KB apart (12 heads of 64)
    // fall in a quarter of the first-level cache's sets, which they overflowed. The same values:
    // the same bits.
    const float* vb = v + static_cast<std::ptrdiff_t>(kb) * a.v_strides.row;
    std::ptrdiff_t vs = a.v_strides.row;
    if (vs != static_cast<std::ptrdiff_t>(dv)) {
      for (std::size_t j = 0; j < n; ++j) {
        std::memcpy(w.vb + j * dv, vb + static_cast<std::ptrdiff_t>(j) * vs, dv * sizeof(float));
      }
      vb = w.vb;
      vs = static_cast<std::ptrdiff_t>(dv);
    }
    // The block's nv key vectors: vectors past nv would hold only padding, whose weights are 0 and
    // whose sum changed nothing (l >= +0), so leaving them out keeps the bits.
    const std::size_t nv = (n + W - 1) / W;
    for (std::size_t sb = 0; sb < subs; ++sb) {
      const Scratch ws = view(sb);
      const std::size_t first = i0 + sb * QB, count = sub_rows(sb), rows_pad = (count + 3) / 4 * 4;
      const auto src_row = [&](std::size_t r) { return first + (r < count ? r : count - 1); };
      FastBlock fb;
      if (mask != nullptr) {
        fb.kind = a.mask_column_stride == 0 ? MaskKind::PerRow : MaskKind::Row;
        for (std::size_t r = 0; r < rows_pad; ++r) {
          const float* mr = mask + static_cast<std::ptrdiff_t>(src_row(r)) * a.mask_strides.row;
          if (fb.kind == MaskKind::PerRow) {
            fb.value[r] = mr[0];
          } else if (n == 64) {
            fb.row[r] = mr + kb;  // read in place
          } else {
            float* dst = ws.mask + r * 64;  // a partial block: padded copy
            for (std::size_t j = 0; j < 64; ++j) dst[j] = j < n ? mr[kb + j] : 0.0f;
            fb.row[r] = dst;
          }
        }
      }
      // Step 1 (fused), a tile at a time over the nv key vectors; padding keys in the last vector
      // then get -inf.
      std::size_t r0 = 0;
      for (; r0 + SR <= rows_pad; r0 += SR)
        for (std::size_t j0 = 0; j0 < nv * W; j0 += SC * W) fast_score_part<L, SR, SC>(ws, fb, d, a.scale, r0, j0, nv - j0 / W);
      for (; r0 < rows_pad; r0 += 2)  // rows_pad - r0 is even: 2-row tiles
        for (std::size_t j0 = 0; j0 < nv * W; j0 += SC * W) fast_score_part<L, 2, SC>(ws, fb, d, a.scale, r0, j0, nv - j0 / W);
      if (n < nv * W) {
        for (std::size_t r = 0; r < rows_pad; ++r)
          for (std::size_t j = n; j < nv * W; ++j) ws.s[r * 64 + j] = -__builtin_inff();
      }
      // Steps 2-5 per row; l stays a vector of lane partials.
      for (std::size_t r = 0; r < rows_pad; ++r) {
        float* s = ws.s + r * 64;
        F sv[NV];
        F best = L::set1(-__builtin_inff());
        for (std::size_t i = 0; i < nv; ++i) {
          sv[i] = L::load(s + i * W);
          best = L::select(L::gt(sv[i], best), sv[i], best);  // NaN ignored
        }
        const float bm = Horizontal<L>::max(best);
        const float m = ws.m[r];
        const float m_new = bm > m ? bm : m;
        const float shift = m_new == -__builtin_inff() ? 0.0f : m_new;
        const F shv = L::set1(shift);
        F sum = L::zero();
        for (std::size_t i = 0; i < nv; ++i) {
          const F p = vexp::fast_exp<L>(L::sub(sv[i], shv));
          L::store(s + i * W, p);
          sum = L::add(sum, p);
        }
        float alpha;
        if (m == -__builtin_inff()) alpha = 0.0f;
        else if (m == shift) alpha = 1.0f;
        else alpha = exp_scalar<L, true>(m - shift);
        const F lv = L::load(ws.lv + r * W);
        if (alpha == 1.0f) {
          L::store(ws.lv + r * W, L::add(lv, sum));
        } else {
          const F av = L::set1(alpha);
          L::store(ws.lv + r * W, L::fmadd(lv, av, sum));
          float* acc = ws.acc + r * dv;
          std::size_t x = 0;
          for (; x + W <= dv; x += W) L::store(acc + x, L::mul(L::load(acc + x), av));
          for (; x < dv; ++x) acc[x] = acc[x] * alpha;
        }
        ws.m[r] = m_new;
      }
      // Step 6: tiles over the value columns, 4, 2 or 1 vectors wide, then single columns.
      std::size_t x0 = 0;
      for (; x0 + 4 * W <= dv; x0 += 4 * W) fast_pv_columns<L, kAcc / 4, 4>(ws, vb, vs, dv, rows_pad, x0, n);
      for (; x0 + 2 * W <= dv; x0 += 2 * W) fast_pv_columns<L, kAcc / 2 >= 8 ? 8 : kAcc / 2, 2>(ws, vb, vs, dv, rows_pad, x0, n);
      for (; x0 + W <= dv; x0 += W) fast_pv_columns<L, 8, 1>(ws, vb, vs, dv, rows_pad, x0, n);
      for (; x0 < dv; ++x0) {
        for (std::size_t r = 0; r < rows_pad; ++r) {
          float acc = ws.acc[r * dv + x0];
          for (std::size_t j = 0; j < n; ++j)
            acc = __builtin_fmaf(ws.s[r * 64 + j], vb[static_cast<std::ptrdiff_t>(j) * vs + static_cast<std::ptrdiff_t>(x0)], acc);
          ws.acc[r * dv + x0] = acc;
        }
      }
    }
  }
  // out[x] = acc[x] * (1/l); NaN canonical.
  for (std::size_t sb = 0; sb < subs; ++sb) {
    const Scratch ws = view(sb);
    const std::size_t first = i0 + sb * QB, count = sub_rows(sb);
    for (std::size_t r = 0; r < count; ++r) {
      float l = Horizontal<L>::sum(L::load(ws.lv + r * W));
      if (a.divide_empty_rows_by_one && l == 0.0f) l = 1.0f;
      float* out = a.out + off(a.out_strides, b, h) + static_cast<std::ptrdiff_t>(first + r) * a.out_strides.row;
      const F inv = L::set1(1.0f / l);
      vexp::map_array<L>(ws.acc + r * dv, out, dv, [&](F x) { return vexp::canonical_nan<L>(L::mul(x, inv)); });
    }
  }
}

}  // namespace onemodel::opt::attention
