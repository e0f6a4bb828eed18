// Softmax and LogSoftmax rows on any lanes type (kernels-attention.md, section "Softmax";
// ops-norms.md, "Softmax, LogSoftmax, Hardmax"), the order of reference/ops/op_softmax.cpp and
// op_log_softmax.cpp:
//   m = max(x) with NaN ignored (-inf if none),
//   e[j] = ExpNonPositive(x[j] - m), l = Sum16(e) (lanes hold different partials),
//   softmax y[j] = e[j] / l (fast: e[j] * (1/l) with the fast exponential),
//   log-softmax y[j] = (x[j] - m) - log(l) with the library's log.
// Every NaN output is 0x7FC00000. Included by per-ISA kernel files only.
//
// The maximum is taken lane by lane, in four running maxima, and combined afterwards. Only the
// sign of a zero maximum can differ from a sequential scan; that never changes a bit of the
// output: x - (+0) and x - (-0) differ only for x = -0, where ExpNonPositive gives 1 either way,
// and a row whose maximum is zero with both zeros present has l >= 2, so log(l) != 0 absorbs the
// sign of d = +-0.
//
// Speed (a ViT-S/16 Softmax node's 6 x 197 rows of 197, one thread, Zen 3 AVX2, us, fast / exact):
// 211 / 268 with two vectors a step, two instructions a clamp or selection, the canonical NaN step
// on every output and the row's last 5 elements through buffers with scalar copies; 108 / 153 as
// below (ONNX Runtime 1.31.1: 132). Most of it is the exponential, whose chains are long (about 40
// cycles fast, 60 exact): four (fast) or eight (exact) vectors a step keep enough of them in
// flight; eight fast vectors spill and were slower (150 us).
#pragma once

#include <cstddef>
#include <functional>
#include <type_traits>

#include "optimized/kernels/reduce/sum16_body.hpp"
#include "optimized/kernels/vexp/exp_lanes.hpp"
#include "optimized/kernels/lanes/paired_lanes.hpp"

namespace onemodel::opt::softmax {

template <class L>
inline typename L::F max_ignoring_nan(typename L::F v, typename L::F best) noexcept {
  return vexp::greater_or_second<L>(v, best);  // v > best ? v : best; NaN never compares greater
}

// Four running maxima (one chain would wait for each comparison); a row of at least one vector
// ends with the row's last vector, overlapping elements already seen, which a maximum may see
// twice.
template <class L>
inline float row_max_ignoring_nan(const float* x, std::size_t n) noexcept {
  using F = typename L::F;
  constexpr std::size_t W = static_cast<std::size_t>(L::kWidth);
  F b0 = L::set1(-__builtin_inff()), b1 = b0, b2 = b0, b3 = b0;
  std::size_t j = 0;
  for (; j + 4 * W <= n; j += 4 * W) {
    b0 = max_ignoring_nan<L>(L::load(x + j), b0);
    b1 = max_ignoring_nan<L>(L::load(x + j + W), b1);
    b2 = max_ignoring_nan<L>(L::load(x + j + 2 * W), b2);
    b3 = max_ignoring_nan<L>(L::load(x + j + 3 * W), b3);
  }
  for (; j + W <= n; j += W) b0 = max_ignoring_nan<L>(L::load(x + j), b0);
  if (j < n && n >= W) {
    b1 = max_ignoring_nan<L>(L::load(x + n - W), b1);
    j = n;
  }
  if constexpr (requires { L::load_first_or(x, n, b0); }) {
    // The partial vector's missing lanes as -inf, which is never greater (lanes_avx512.hpp).
    if (j < n) {
      b1 = max_ignoring_nan<L>(L::load_first_or(x + j, n - j, L::set1(-__builtin_inff())), b1);
      j = n;
    }
  }
  b0 = max_ignoring_nan<L>(b1, b0);
  b2 = max_ignoring_nan<L>(b3, b2);
  b0 = max_ignoring_nan<L>(b2, b0);
  float lanes[W];
  L::store(lanes, b0);
  float m = -__builtin_inff();
  for (std::size_t k = 0; k < W; ++k) m = lanes[k] > m ? lanes[k] : m;
  for (; j < n; ++j) m = x[j] > m ? x[j] : m;
  return m;
}

// exp(v) for v = x - m <= 0 or NaN: the fast exponential needs no clamp at 88.3 there, and a NaN
// exponential needs no canonical payload, since it makes the row's sum NaN and the last pass then
// writes 0x7FC00000 everywhere (last_pass_without_nan, log_softmax_row).
template <class L, bool Fast>
inline typename L::F exponential(typename L::F v) noexcept {
  if constexpr (Fast) return vexp::fast_exp_below_overflow<L>(v);
  else return vexp::exp_non_positive_any_nan<L>(v);
}

// Adds the L vectors of v (P is L or a nesting of opt::PairedLanes over it; its vectors in
// element order, the first holding partials First * W and up of a whole group of 16) to their
// partials: vector k to acc[(First + k) % V], in increasing element order.
template <class L, class P, int First>
[[gnu::always_inline]] inline void add_vectors(reduce::Sum16<L>& sum, const typename P::F& v) noexcept {
  if constexpr (std::is_same_v<P, L>) {
    constexpr int k = First % reduce::Sum16<L>::kVectors;
    sum.acc[k] = L::add(sum.acc[k], v);
  } else {
    using H = typename P::Half;
    add_vectors<L, H, First>(sum, v.lo);
    add_vectors<L, H, First + H::kWidth / L::kWidth>(sum, v.hi);
  }
}

// Whole steps of P::kWidth elements (a multiple of 16) from j on, each one exponential over P.
template <class L, class P, bool Fast, class Side>
[[gnu::always_inline]] inline void exp_steps(const float* x, float* e, std::size_t n, float m, std::size_t& j,
                                             reduce::Sum16<L>& sum, Side& side) noexcept {
  const typename P::F mv = P::set1(m);
  for (; j + P::kWidth <= n; j += P::kWidth) {
    const typename P::F ev = exponential<P, Fast>(P::sub(P::load(x + j), mv));
    if (e != nullptr) P::store(e + j, ev);
    add_vectors<L, P, 0>(sum, ev);
    side(j, P::kWidth);
  }
}

// No work beside the exponentials.
struct NoSide {
  void operator()(std::size_t, std::size_t) const noexcept {}
};

// Writes e[j] = exp(x[j] - m) to e (when e is non-null) and returns Sum16(e).
template <class L, bool Fast, class Side = NoSide>
inline float exp_and_sum(const float* x, float* e, std::size_t n, float m, Side side = {}) noexcept {
  constexpr int W = L::kWidth;
  constexpr int V = 16 / W;
  const typename L::F mv = L::set1(m);
  reduce::Sum16<L> sum;
  // A row of at least one vector whose length is not a multiple of 16 ends with a partial
  // vector of r lanes: the exponentials of the row's last vector are taken first (read before any
  // is stored, so e may be x; computed before the steps below, whose chains then hide this one's),
  // stored after the steps over the row's end (the overlapped ones again, the same values), and
  // its last r lanes go to the first r lanes of their partials' vector through a buffer with +0
  // after them (the lanes past the row add +0, as Sum16's padding does).
  const std::size_t r = n % W;
  constexpr bool kMaskedTail = V == 1 && requires { L::load_first(x, n); };
  const bool overlap_tail = !kMaskedTail && r != 0 && n >= static_cast<std::size_t>(W);
  typename L::F ev_last = L::zero();
  float shifted[2 * W];
  if (overlap_tail) {
    ev_last = exponential<L, Fast>(L::sub(L::load(x + n - W), mv));
    L::store(shifted, ev_last);
    L::store(shifted + W, L::zero());
  }
  std::size_t j = 0;
  if constexpr (V <= 4) {
    // Several vectors a step over opt::PairedLanes (whole groups of 16 each).
    using P2 = opt::PairedLanes<L>;
    using P4 = opt::PairedLanes<P2>;
    if constexpr (!Fast) exp_steps<L, opt::PairedLanes<P4>, Fast>(x, e, n, m, j, sum, side);
    exp_steps<L, P4, Fast>(x, e, n, m, j, sum, side);
    if constexpr (V <= 2) exp_steps<L, P2, Fast>(x, e, n, m, j, sum, side);
  }
  // The whole vectors left (whole groups of 16, then those of the last group).
  for (; j + W <= n; j += W) {
    const typename L::F ev = exponential<L, Fast>(L::sub(L::load(x + j), mv));
    if (e != nullptr) L::store(e + j, ev);
    const std::size_t k = (j % 16) / W;
    sum.acc[k] = L::add(sum.acc[k], ev);
  }
  if (j == n) return sum.result();
  if (overlap_tail) {
    if (e != nullptr) L::store(e + n - W, ev_last);
    const std::size_t k = (j % 16) / W;
    sum.acc[k] = L::add(sum.acc[k], L::load(shifted + W - r));
    return sum.result();
  }
  if constexpr (kMaskedTail) {
    // One masked vector (lanes_avx512.hpp): the padding lanes read nothing and add +0, as the
    // buffer's do below.
    const std::size_t rest = n - j;
    const typename L::F ev = L::keep_first(exponential<L, Fast>(L::sub(L::load_first(x + j, rest), mv)), rest);
    if (e != nullptr) L::store_first(e + j, ev, rest);
    sum.acc[0] = L::add(sum.acc[0], ev);
    return sum.result();
  }
  // A row shorter than one vector: through a buffer.
  float buffer[16];
  for (std::size_t k = 0; k < 16; ++k) buffer[k] = k < n ? x[k] : 0.0f;
  for (int k = 0; k < V; ++k) L::store(buffer + k * W, exponential<L, Fast>(L::sub(L::load(buffer + k * W), mv)));
  for (std::size_t k = n; k < 16; ++k) buffer[k] = 0.0f;  // padding adds +0
  sum.add16(buffer);
  if (e != nullptr) {
    for (std::size_t k = 0; k < n; ++k) e[k] = buffer[k];
  }
  return sum.result();
}

// y[j] = canonical(op(y[j])) over n elements, tail through a buffer.
template <class L, class Op>
inline void map_in_place(float* y, std::size_t n, Op op) noexcept {
  vexp::map_array<L>(y, y, n, [&](typename L::F v) { return vexp::canonical_nan<L>(op(v)); });
}

// y[j] = op(y[j]) over n >= W elements, for an op that gives no NaN here: the last vector read
// first and stored last over the row's end (the overlapped elements get their same values again).
template <class L, class Op>
inline void map_in_place_without_nan(float* y, std::size_t n, Op op) noexcept {
  constexpr std::size_t W = static_cast<std::size_t>(L::kWidth);
  const typename L::F last = L::load(y + n - W);
  std::size_t i = 0;
  for (; i + 2 * W <= n; i += 2 * W) {
    const typename L::F a = op(L::load(y + i));
    const typename L::F b = op(L::load(y + i + W));
    L::store(y + i, a);
    L::store(y + i + W, b);
  }
  if (i + W <= n) {
    L::store(y + i, op(L::load(y + i)));
    i += W;
  }
  if (i < n) L::store(y + n - W, op(last));
}

// The last pass of softmax. A sum l in (0, FLT_MAX] (every row without NaN or +inf and not all
// -inf: the maximum's own term is 1) comes from exponentials in [0, 1], so neither e / l nor
// e * (1 / l) is NaN and the canonical NaN step can be left out; any other l is NaN, which makes
// every output NaN, written as 0x7FC00000 by that step. Rows shorter than a vector keep it too.
template <class L>
inline bool last_pass_without_nan(float l, std::size_t n) noexcept {
  return l > 0.0f && l <= __FLT_MAX__ && n >= static_cast<std::size_t>(L::kWidth);
}

template <class L, bool Fast>
inline void normalise_row(float* y, std::size_t n, float l) noexcept {
  if constexpr (Fast) {
    const typename L::F inv = L::set1(1.0f / l);
    const auto op = [&](typename L::F v) { return L::mul(v, inv); };
    if (last_pass_without_nan<L>(l, n)) map_in_place_without_nan<L>(y, n, op);
    else map_in_place<L>(y, n, op);
  } else {
    const typename L::F lv = L::set1(l);
    const auto op = [&](typename L::F v) { return L::div(v, lv); };
    if (last_pass_without_nan<L>(l, n)) map_in_place_without_nan<L>(y, n, op);
    else map_in_place<L>(y, n, op);
  }
}

// Exact mode: a row's divisions e / l done beside the next row's exponentials, in the steps of
// exp_and_sum (the divider works while the exponentials' chains wait): side(j, count) divides
// elements [j, j + count), finish() the rest. Only where last_pass_without_nan allows; the row's
// last vector is read at construction, before any store, as in map_in_place_without_nan.
template <class L>
struct DivideBeside {
  float* y;
  std::size_t n;
  typename L::F lv;
  typename L::F last;
  std::size_t done = 0;

  DivideBeside(float* row, std::size_t count, float l) noexcept
      : y(row), n(count), lv(L::set1(l)), last(L::load(row + count - L::kWidth)) {}
  [[gnu::always_inline]] void operator()(std::size_t j, std::size_t count) noexcept {
    for (std::size_t i = j; i < j + count; i += L::kWidth) L::store(y + i, L::div(L::load(y + i), lv));
    done = j + count;
  }
  void finish() noexcept {
    constexpr std::size_t W = static_cast<std::size_t>(L::kWidth);
    std::size_t i = done;
    for (; i + W <= n; i += W) L::store(y + i, L::div(L::load(y + i), lv));
    if (i < n) L::store(y + n - W, L::div(last, lv));
  }
};

// Rows [begin, end) of rows x cols, each row's values its own; only the order of independent work
// is chosen. A row's maximum is taken between the previous row's sum and its last pass, so that
// its loads and comparisons fill the wait for the sum's fold and reciprocal. In exact mode the
// previous row's divisions run beside this row's exponentials (DivideBeside; ViT-S/16 rows, us per
// node: 158 -> 151); the fast products beside them were slower (108 -> 112), so fast rows keep
// their own last pass. In place (x == y) too: a row is written only after its own reads, and the
// previous row's are done.
template <class L, bool Fast>
inline void softmax_rows(const float* x, float* y, std::size_t begin, std::size_t end, std::size_t cols) noexcept {
  if (begin >= end) return;
  float l = exp_and_sum<L, Fast>(x + begin * cols, y + begin * cols, cols, row_max_ignoring_nan<L>(x + begin * cols, cols));
  for (std::size_t r = begin + 1; r < end; ++r) {
    const float m = row_max_ignoring_nan<L>(x + r * cols, cols);
    float* previous = y + (r - 1) * cols;
    if constexpr (!Fast) {
      if (last_pass_without_nan<L>(l, cols)) {
        DivideBeside<L> side(previous, cols, l);
        l = exp_and_sum<L, Fast>(x + r * cols, y + r * cols, cols, m, std::ref(side));
        side.finish();
        continue;
      }
    }
    normalise_row<L, Fast>(previous, cols, l);
    l = exp_and_sum<L, Fast>(x + r * cols, y + r * cols, cols, m);
  }
  normalise_row<L, Fast>(y + (end - 1) * cols, cols, l);
}

// LogSoftmax: l is summed first (exponentials not stored), then y = (x - m) - log(l).
template <class L, bool Fast>
inline void log_softmax_row(const float* x, float* y, std::size_t n, float (*log_fn)(float)) noexcept {
  const float m = row_max_ignoring_nan<L>(x, n);
  const float l = exp_and_sum<L, Fast>(x, nullptr, n, m);
  const typename L::F log_l = L::set1(log_fn(l));
  const typename L::F mv = L::set1(m);
  vexp::map_array<L>(x, y, n,
                     [&](typename L::F v) { return vexp::canonical_nan<L>(L::sub(L::sub(v, mv), log_l)); });
}

}  // namespace onemodel::opt::softmax
