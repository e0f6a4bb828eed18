// Softmax and LogSoftmax rows on any lanes type (kernels-attention.md, section "Softmax";
// ops-norms.md, "Softmax, LogSoftmax, Hardmax"), the order of reference/ops/op_softmax.cpp and
// op_log_softmax.cpp:
//   m = max(x) with NaN ignored (-inf if none),
//   e[j] = ExpNonPositive(x[j] - m), l = Sum16(e) (lanes hold different partials),
//   softmax y[j] = e[j] / l (fast: e[j] * (1/l) with the fast exponential),
//   log-softmax y[j] = (x[j] - m) - log(l) with the library's log.
// Every NaN output is 0x7FC00000. Included by per-ISA kernel files only.
//
// The maximum is taken lane by lane and the lanes combined afterwards. Only the sign of a zero
// maximum can differ from a sequential scan; that never changes a bit of the output: x - (+0) and
// x - (-0) differ only for x = -0, where ExpNonPositive gives 1 either way, and a row whose maximum
// is zero with both zeros present has l >= 2, so log(l) != 0 absorbs the sign of d = +-0.
#pragma once

#include <cstddef>

#include "optimized/kernels/reduce/sum16_body.hpp"
#include "optimized/kernels/vexp/exp_lanes.hpp"

namespace onemodel::opt::softmax {

template <class L>
inline float row_max_ignoring_nan(const float* x, std::size_t n) noexcept {
  constexpr std::size_t W = static_cast<std::size_t>(L::kWidth);
  typename L::F best = L::set1(-__builtin_inff());
  std::size_t j = 0;
  for (; j + W <= n; j += W) {
    const typename L::F v = L::load(x + j);
    best = L::select(L::gt(v, best), v, best);  // NaN never compares greater: ignored
  }
  if constexpr (requires { L::load_first(x, n); }) {
    // The partial vector's missing lanes as -inf, which is never greater (lanes_avx512.hpp).
    if (j < n) {
      const typename L::F v = L::load_first_or(x + j, n - j, L::set1(-__builtin_inff()));
      best = L::select(L::gt(v, best), v, best);
      j = n;
    }
  }
  float lanes[W];
  L::store(lanes, best);
  float m = -__builtin_inff();
  for (std::size_t k = 0; k < W; ++k) m = lanes[k] > m ? lanes[k] : m;
  for (; j < n; ++j) m = x[j] > m ? x[j] : m;
  return m;
}

template <class L, bool Fast>
inline typename L::F exponential(typename L::F v) noexcept {
  if constexpr (Fast) return vexp::fast_exp<L>(v);
  else return vexp::exp_non_positive<L>(v);
}

// Writes e[j] = exp(x[j] - m) to e (when e is non-null) and returns Sum16(e).
template <class L, bool Fast>
inline float exp_and_sum(const float* x, float* e, std::size_t n, float m) noexcept {
  constexpr int W = L::kWidth;
  constexpr int V = 16 / W;
  const typename L::F mv = L::set1(m);
  reduce::Sum16<L> sum;
  std::size_t j = 0;
  for (; j + 16 <= n; j += 16) {
    for (int k = 0; k < V; ++k) {
      const typename L::F ev = exponential<L, Fast>(L::sub(L::load(x + j + k * W), mv));
      if (e != nullptr) L::store(e + j + k * W, ev);
      sum.acc[k] = L::add(sum.acc[k], ev);
    }
  }
  if constexpr (V == 1 && requires { L::load_first(x, n); }) {
    if (j < n) {
      // One masked vector (lanes_avx512.hpp): the padding lanes read nothing and add +0, as the
      // buffer's do below.
      const std::size_t rest = n - j;
      const typename L::F ev = L::keep_first(exponential<L, Fast>(L::sub(L::load_first(x + j, rest), mv)), rest);
      if (e != nullptr) L::store_first(e + j, ev, rest);
      sum.acc[0] = L::add(sum.acc[0], ev);
      return sum.result();
    }
  }
  if (j < n) {
    const std::size_t rest = n - j;
    float buffer[16];
    for (std::size_t k = 0; k < 16; ++k) buffer[k] = k < rest ? x[j + k] : 0.0f;
    for (int k = 0; k < V; ++k) L::store(buffer + k * W, exponential<L, Fast>(L::sub(L::load(buffer + k * W), mv)));
    for (std::size_t k = rest; k < 16; ++k) buffer[k] = 0.0f;  // padding adds +0
    sum.add16(buffer);
    if (e != nullptr) {
      for (std::size_t k = 0; k < rest; ++k) e[j + k] = buffer[k];
    }
  }
  return sum.result();
}

// y[j] = canonical(op(y[j])) over n elements, tail through a buffer.
template <class L, class Op>
inline void map_in_place(float* y, std::size_t n, Op op) noexcept {
  vexp::map_array<L>(y, y, n, [&](typename L::F v) { return vexp::canonical_nan<L>(op(v)); });
}

template <class L, bool Fast>
inline void softmax_row(const float* x, float* y, std::size_t n) noexcept {
  const float m = row_max_ignoring_nan<L>(x, n);
  const float l = exp_and_sum<L, Fast>(x, y, n, m);
  if constexpr (Fast) {
    const typename L::F inv = L::set1(1.0f / l);
    map_in_place<L>(y, n, [&](typename L::F v) { return L::mul(v, inv); });
  } else {
    const typename L::F lv = L::set1(l);
    map_in_place<L>(y, n, [&](typename L::F v) { return L::div(v, lv); });
  }
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
