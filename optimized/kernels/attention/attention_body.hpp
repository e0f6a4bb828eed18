// One attention work item (b, h, block of up to 32 query rows) on any lanes type: the online
// softmax of kernels-attention.md, "The exact definition", steps 1-6, then the final division.
// Layout (not part of the definition): keys of a block packed transposed (d x 64, zero padded) so
// a 4-row x 2-vector tile streams contiguous lanes of different keys; P V uses a 4-row x 2-vector
// tile over the value columns. Query blocks are padded to a multiple of 4 rows with duplicates of
// the last row, whose results are discarded. Included by per-ISA kernel files only.
#pragma once

#include <cstddef>

#include "optimized/kernels/attention/attention.hpp"
#include "optimized/kernels/reduce/sum16_body.hpp"
#include "optimized/kernels/vexp/exp_lanes.hpp"

namespace onemodel::opt::attention {

// Scratch of one work item, carved by the dispatcher from per-thread memory.
// The row counts below are of one 32-row block; the fast flavour's items of up to 128 rows
// (attention_fast_body.hpp) hold q, acc, m and lv for each of their blocks.
struct Scratch {
  float* q = nullptr;       // 32 x d (128 x d fast): the item's query rows times q_scale
  float* kt = nullptr;      // d x 64: the block's keys times k_scale, transposed
  float* s = nullptr;       // 32 x 64: scores, then weights p
  float* mask = nullptr;    // 32 x 64: the block's mask values (+0 without a mask)
  float* acc = nullptr;     // 32 x dv (128 x dv fast)
  float* m = nullptr;       // 32 (128 fast)
  float* l = nullptr;       // 32
  float* lv = nullptr;      // 128 x 16: the fast flavour's lane partials of l (attention_fast_body.hpp)
  float* vb = nullptr;      // 64 x dv: the fast flavour's contiguous copy of the block's value rows
};

// Floats of scratch one item needs (either flavour).
inline std::size_t scratch_floats(std::size_t d, std::size_t dv) noexcept {
  return 128 * d + d * 64 + 32 * 64 + 32 * 64 + 128 * dv + 128 + 32 + 128 * 16 + 64 * dv;
}

template <class L, bool Fast>
inline typename L::F madd(typename L::F acc, typename L::F a, typename L::F b) noexcept {
  if constexpr (Fast) return L::fmadd(a, b, acc);
  else return L::add(acc, L::mul(a, b));  // product rounded, then sum rounded
}

template <class L, bool Fast>
inline float exp_scalar(float x) noexcept {
  float lanes[L::kWidth];
  const typename L::F e = Fast ? vexp::fast_exp<L>(L::set1(x)) : vexp::exp_non_positive<L>(L::set1(x));
  L::store(lanes, e);
  return lanes[0];
}

// Step 1 for rows [0, rows4) and keys [0, 64): s = mask + dot * scale, padding keys set to -inf.
template <class L, bool Fast>
inline void scores(const AttentionArgs& a, const Scratch& w, std::size_t rows4, std::size_t n) noexcept {
  constexpr std::size_t W = static_cast<std::size_t>(L::kWidth);
  const std::size_t d = a.d;
  const typename L::F scale = L::set1(a.scale);
  const std::size_t n_tiles = (n + 2 * W - 1) / (2 * W);
  for (std::size_t r0 = 0; r0 < rows4; r0 += 4) {
    const float* q0 = w.q + r0 * d;
    for (std::size_t t = 0; t < n_tiles; ++t) {
      const std::size_t j0 = t * 2 * W;
      typename L::F s[4][2];
      for (int r = 0; r < 4; ++r) s[r][0] = s[r][1] = L::zero();
      const float* kt = w.kt + j0;
      for (std::size_t x = 0; x < d; ++x) {
        const typename L::F k0 = L::load(kt + x * 64);
        const typename L::F k1 = L::load(kt + x * 64 + W);
        for (int r = 0; r < 4; ++r) {
          const typename L::F qv = L::set1(q0[static_cast<std::size_t>(r) * d + x]);
          s[r][0] = madd<L, Fast>(s[r][0], qv, k0);
          s[r][1] = madd<L, Fast>(s[r][1], qv, k1);
        }
      }
      for (int r = 0; r < 4; ++r) {
        for (int c = 0; c < 2; ++c) {
          const std::size_t off = (r0 + static_cast<std::size_t>(r)) * 64 + j0 + static_cast<std::size_t>(c) * W;
          const typename L::F mv = L::load(w.mask + off);
          L::store(w.s + off, madd<L, Fast>(mv, s[r][c], scale));
        }
      }
    }
    for (std::size_t r = r0; r < r0 + 4; ++r) {
      for (std::size_t j = n; j < 64; ++j) w.s[r * 64 + j] = -__builtin_inff();
    }
  }
}

// Steps 2-5 for one row: block maximum, weights, block sum, rescale. Returns alpha.
template <class L, bool Fast>
inline float softmax_step(float* s, float& m, float& l) noexcept {
  constexpr int W = L::kWidth;
  typename L::F best = L::set1(-__builtin_inff());
  for (int j = 0; j < 64; j += W) {
    const typename L::F v = L::load(s + j);
    best = L::select(L::gt(v, best), v, best);  // NaN ignored
  }
  float lanes[W];
  L::store(lanes, best);
  float bm = -__builtin_inff();
  for (int k = 0; k < W; ++k) bm = lanes[k] > bm ? lanes[k] : bm;
  const float m_new = bm > m ? bm : m;
  const float shift = m_new == -__builtin_inff() ? 0.0f : m_new;
  const typename L::F sv = L::set1(shift);
  reduce::Sum16<L> sum;
  for (int g = 0; g < 64; g += 16) {
    for (int k = 0; k < 16 / W; ++k) {
      float* at = s + g + k * W;
      const typename L::F v = L::sub(L::load(at), sv);
      const typename L::F p = Fast ? vexp::fast_exp<L>(v) : vexp::exp_non_positive<L>(v);
      L::store(at, p);
      sum.acc[k] = L::add(sum.acc[k], p);
    }
  }
  const float bs = sum.result();
  float alpha;
  if (m == -__builtin_inff()) alpha = 0.0f;
  else if (m == shift) alpha = 1.0f;
  else alpha = exp_scalar<L, Fast>(m - shift);
  l = l * alpha + bs;
  m = m_new;
  return alpha;
}

// Step 6 for rows [0, rows4): acc[x] = acc[x] + p[j] * v[j][x], j increasing within the block.
template <class L, bool Fast>
inline void weighted_values(const AttentionArgs& a, const Scratch& w, const float* v, std::size_t rows4,
                            std::size_t n) noexcept {
  constexpr std::size_t W = static_cast<std::size_t>(L::kWidth);
  const std::size_t dv = a.dv;
  const std::ptrdiff_t vs = a.v_strides.row;
  for (std::size_t r0 = 0; r0 < rows4; r0 += 4) {
    const float* p0 = w.s + r0 * 64;
    float* acc0 = w.acc + r0 * dv;
    std::size_t x0 = 0;
    for (; x0 + 2 * W <= dv; x0 += 2 * W) {
      typename L::F acc[4][2];
      for (std::size_t r = 0; r < 4; ++r) {
        acc[r][0] = L::load(acc0 + r * dv + x0);
        acc[r][1] = L::load(acc0 + r * dv + x0 + W);
      }
      for (std::size_t j = 0; j < n; ++j) {
        const float* vrow = v + static_cast<std::ptrdiff_t>(j) * vs + static_cast<std::ptrdiff_t>(x0);
        const typename L::F v0 = L::load(vrow);
        const typename L::F v1 = L::load(vrow + W);
        for (std::size_t r = 0; r < 4; ++r) {
          const typename L::F pv = L::set1(p0[r * 64 + j]);
          acc[r][0] = madd<L, Fast>(acc[r][0], pv, v0);
          acc[r][1] = madd<L, Fast>(acc[r][1], pv, v1);
        }
      }
      for (std::size_t r = 0; r < 4; ++r) {
        L::store(acc0 + r * dv + x0, acc[r][0]);
        L::store(acc0 + r * dv + x0 + W, acc[r][1]);
      }
    }
    // Narrower tail: one vector, then single columns (same per-element operation sequence).
    for (; x0 + W <= dv; x0 += W) {
      typename L::F acc[4];
      for (std::size_t r = 0; r < 4; ++r) acc[r] = L::load(acc0 + r * dv + x0);
      for (std::size_t j = 0; j < n; ++j) {
        const typename L::F v0 = L::load(v + static_cast<std::ptrdiff_t>(j) * vs + static_cast<std::ptrdiff_t>(x0));
        for (std::size_t r = 0; r < 4; ++r) acc[r] = madd<L, Fast>(acc[r], L::set1(p0[r * 64 + j]), v0);
      }
      for (std::size_t r = 0; r < 4; ++r) L::store(acc0 + r * dv + x0, acc[r]);
    }
    for (; x0 < dv; ++x0) {
      for (std::size_t r = 0; r < 4; ++r) {
        float acc = acc0[r * dv + x0];
        for (std::size_t j = 0; j < n; ++j) {
          const float product = p0[r * 64 + j] * v[static_cast<std::ptrdiff_t>(j) * vs + static_cast<std::ptrdiff_t>(x0)];
          acc = acc + product;
        }
        acc0[r * dv + x0] = acc;
      }
    }
  }
}

// The whole work item: batch b, head h, query rows [i0, i0 + rows).
template <class L, bool Fast>
inline void work_item(const AttentionArgs& a, const Scratch& w, std::size_t b, std::size_t h, std::size_t i0,
                      std::size_t rows) noexcept {
  const std::size_t d = a.d;
  const std::size_t dv = a.dv;
  const std::size_t rows4 = (rows + 3) / 4 * 4;
  const std::size_t kvh = h / a.kv_group;
  const auto off = [](const AttentionStrides& s, std::size_t b_, std::size_t h_) {
    return static_cast<std::ptrdiff_t>(b_) * s.batch + static_cast<std::ptrdiff_t>(h_) * s.head;
  };
  const float* q = a.q + off(a.q_strides, b, h);
  const float* k = a.k + off(a.k_strides, b, kvh);
  const float* v = a.v + off(a.v_strides, b, kvh);
  const float* mask = a.mask != nullptr ? a.mask + off(a.mask_strides, b, h) : nullptr;
  // The query rows, padded to a multiple of 4 with copies of the last row.
  for (std::size_t r = 0; r < rows4; ++r) {
    const std::size_t src = i0 + (r < rows ? r : rows - 1);
    const float* qr = q + static_cast<std::ptrdiff_t>(src) * a.q_strides.row;
    for (std::size_t x = 0; x < d; ++x) w.q[r * d + x] = qr[x] * a.q_scale;
  }
  for (std::size_t r = 0; r < rows4; ++r) {
    w.m[r] = -__builtin_inff();
    w.l[r] = 0.0f;
    for (std::size_t x = 0; x < dv; ++x) w.acc[r * dv + x] = 0.0f;
  }
  for (std::size_t kb = 0; kb < a.kv_len; kb += 64) {
    const std::size_t n = a.kv_len - kb < 64 ? a.kv_len - kb : 64;
    // Pack the block's keys transposed, zero padded to 64.
    for (std::size_t j = 0; j < 64; ++j) {
      if (j < n) {
        const float* kr = k + static_cast<std::ptrdiff_t>(kb + j) * a.k_strides.row;
        for (std::size_t x = 0; x < d; ++x) w.kt[x * 64 + j] = kr[x] * a.k_scale;
      } else {
        for (std::size_t x = 0; x < d; ++x) w.kt[x * 64 + j] = 0.0f;
      }
    }
    // The block's mask values (+0 when there is no mask or past the block).
    for (std::size_t r = 0; r < rows4; ++r) {
      float* dst = w.mask + r * 64;
      if (mask == nullptr) {
        for (std::size_t j = 0; j < 64; ++j) dst[j] = 0.0f;
        continue;
      }
      const std::size_t src = i0 + (r < rows ? r : rows - 1);
      const float* mr = mask + static_cast<std::ptrdiff_t>(src) * a.mask_strides.row;
      for (std::size_t j = 0; j < 64; ++j) {
        dst[j] = j < n ? mr[static_cast<std::ptrdiff_t>(kb + j) * a.mask_column_stride] : 0.0f;
      }
    }
    scores<L, Fast>(a, w, rows4, n);
    for (std::size_t r = 0; r < rows4; ++r) {
      const float alpha = softmax_step<L, Fast>(w.s + r * 64, w.m[r], w.l[r]);
      if (alpha != 1.0f) {
        const typename L::F av = L::set1(alpha);
        vexp::map_array<L>(w.acc + r * dv, w.acc + r * dv, dv, [&](typename L::F x) { return L::mul(x, av); });
      }
    }
    weighted_values<L, Fast>(a, w, v + static_cast<std::ptrdiff_t>(kb) * a.v_strides.row, rows4, n);
  }
  // out[x] = acc[x] / l (fast: acc[x] * (1/l)); NaN canonical.
  for (std::size_t r = 0; r < rows; ++r) {
    float l = w.l[r];
    if (a.divide_empty_rows_by_one && l == 0.0f) l = 1.0f;
    float* out = a.out + off(a.out_strides, b, h) + static_cast<std::ptrdiff_t>(i0 + r) * a.out_strides.row;
    const float* acc = w.acc + r * dv;
    if constexpr (Fast) {
      const typename L::F inv = L::set1(1.0f / l);
      vexp::map_array<L>(acc, out, dv, [&](typename L::F x) { return vexp::canonical_nan<L>(L::mul(x, inv)); });
    } else {
      const typename L::F lv = L::set1(l);
      vexp::map_array<L>(acc, out, dv, [&](typename L::F x) { return vexp::canonical_nan<L>(L::div(x, lv)); });
    }
  }
}

}  // namespace onemodel::opt::attention
