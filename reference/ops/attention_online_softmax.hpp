// The stated order of an attention output row (spec/ops/attention.md section 5, from
// kernels-attention.md "The exact definition" steps 2-6 and the final division): the online
// softmax over blocks of 64 keys, shared by Attention and FlexAttention (reference/ops/
// op_attention.cpp, op_flex_attention.cpp). The optimized fused kernel (optimized/kernels/
// attention/attention_body.hpp) computes the same operations per row, so in exact mode both
// engines give the same bits. Scalar and literal: one row at a time, one block at a time.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <limits>

#include "reference/ops/canonical_sum.hpp"

namespace onemodel::attention_order {

// kernels-attention.md, "Work items and constants": KB = 64 keys per block. Part of the exact
// definition (it fixes where the running sum is rescaled); never derived from a CPU or thread count.
inline constexpr std::int64_t kKeyBlock = 64;

// out[x] (x < dv) from the scores s[0..n) of one query row and the value rows value_row(j)
// (dv elements each). T is float (exact_exp = exact::exp_non_positive) or double (fast mode only,
// std::exp). With n = 0 the row is +0 / 1 = +0.
//   state m = -inf, l = +0, acc = +0; for each block of keys [kb, kb + nb), nb <= 64, in order:
//   bm = max s[j] (NaN ignored), m_new = max(m, bm), shift = (m_new == -inf) ? 0 : m_new;
//   p[j] = exp(s[j] - shift); bs = the 16-partial sum of p over the block (canonical_sum.hpp);
//   alpha = 0 if m == -inf, 1 if m == shift, else exp(m - shift); l = l*alpha + bs;
//   acc[x] = acc[x]*alpha (not done when alpha == 1, which changes nothing); m = m_new;
//   acc[x] = acc[x] + p[j]*v[j][x] for j increasing in the block.
//   Finally out[x] = acc[x] / l, where l == 0 (every score -inf) is replaced by 1 when
//   `empty_row_divides_by_one` (the ONNX Attention rule) and kept (giving NaN) otherwise.
// Every operation is rounded on its own (no fused multiply-add: the project builds with
// -ffp-contract=off). NaN is not made canonical here; the caller stores it.
template <class T, class Exp, class ValueRow>
void online_softmax_row(const T* s, std::int64_t n, ValueRow value_row, std::int64_t dv, T* out,
                        bool empty_row_divides_by_one, Exp exp_non_positive) {
  constexpr T kNegInf = -std::numeric_limits<T>::infinity();
  T m = kNegInf;
  T l = T(0);
  for (std::int64_t x = 0; x < dv; ++x) out[x] = T(0);  // out holds acc until the division
  std::array<T, static_cast<std::size_t>(kKeyBlock)> p{};
  for (std::int64_t kb = 0; kb < n; kb += kKeyBlock) {
    const std::int64_t nb = n - kb < kKeyBlock ? n - kb : kKeyBlock;
    // Step 2: the block maximum, NaN ignored (a NaN never compares greater).
    T bm = kNegInf;
    for (std::int64_t j = 0; j < nb; ++j) bm = s[kb + j] > bm ? s[kb + j] : bm;
    const T m_new = bm > m ? bm : m;
    const T shift = m_new == kNegInf ? T(0) : m_new;
    // Steps 3 and 4: the weights and their 16-partial sum.
    CanonicalSum16<T> sum;
    for (std::int64_t j = 0; j < nb; ++j) {
      p[static_cast<std::size_t>(j)] = exp_non_positive(s[kb + j] - shift);
      sum.add(p[static_cast<std::size_t>(j)]);
    }
    const T bs = sum.result();
    // Step 5: rescale what the earlier blocks left.
    T alpha;
    if (m == kNegInf) alpha = T(0);
    else if (m == shift) alpha = T(1);
    else alpha = exp_non_positive(m - shift);
    const T scaled = l * alpha;
    l = scaled + bs;
    if (alpha != T(1)) {
      for (std::int64_t x = 0; x < dv; ++x) out[x] = out[x] * alpha;
    }
    m = m_new;
    // Step 6: the weighted values, j increasing within the block.
    for (std::int64_t j = 0; j < nb; ++j) {
      const T* v = value_row(kb + j);
      const T w = p[static_cast<std::size_t>(j)];
      for (std::int64_t x = 0; x < dv; ++x) {
        const T product = w * v[x];
        out[x] = out[x] + product;
      }
    }
  }
  if (empty_row_divides_by_one && l == T(0)) l = T(1);
  for (std::int64_t x = 0; x < dv; ++x) out[x] = out[x] / l;
}

}  // namespace onemodel::attention_order
