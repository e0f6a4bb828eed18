// Float32 reductions on any lanes type (ops-norms.md, section "Reductions").
// Row layout (the last run reduced): each output is Sum16 over its contiguous terms, lanes holding
// different partials. Column layout (the last run kept): each output is a sequential sum from +0
// over the reduced index in increasing order, lanes holding neighbouring outputs.
// Maxima and minima: the result of a sequential scan that starts at the first element and is
// replaced only by a strictly better one (NaN ignored unless first).
// Included by per-ISA kernel files only.
#pragma once

#include <cstddef>

#include "optimized/kernels/reduce/reduce.hpp"
#include "optimized/kernels/reduce/sum16_body.hpp"

namespace onemodel::opt::reduce {

template <class L>
inline typename L::F apply_term(ReduceTerm term, typename L::F v) noexcept {
  if (term == ReduceTerm::Square) return L::mul(v, v);
  if (term == ReduceTerm::Abs) return L::abs(v);
  return v;
}

template <class L>
inline float sum_row(ReduceTerm term, const float* x, std::size_t n) noexcept {
  switch (term) {
    case ReduceTerm::Square:
      return sum16_terms<L>(x, n, [](typename L::F v) { return L::mul(v, v); });
    case ReduceTerm::Abs:
      return sum16_terms<L>(x, n, [](typename L::F v) { return L::abs(v); });
    case ReduceTerm::Identity:
      break;
  }
  return sum16_array<L>(x, n);
}

// Sequential scan semantics (ops-norms.md, "Maximum and minimum and NaN") with lanes holding
// strided subsequences: every lane keeps the best non-NaN value it has seen (strictly better
// replaces), then the lanes are combined. The value equals the scan's except for the sign of a
// zero maximum, so a zero result is replaced by the first element of the row equal to it; a NaN
// first element gives NaN; an empty row gives -inf (max) or +inf (min).
template <class L, bool IsMax>
inline float extreme_row(const float* x, std::size_t n) noexcept {
  constexpr std::size_t W = static_cast<std::size_t>(L::kWidth);
  const float start = IsMax ? -__builtin_inff() : __builtin_inff();
  if (n == 0) return start;
  if (x[0] != x[0]) return x[0];
  typename L::F best = L::set1(start);
  std::size_t j = 0;
  for (; j + W <= n; j += W) {
    const typename L::F v = L::load(x + j);
    best = L::select(IsMax ? L::gt(v, best) : L::lt(v, best), v, best);
  }
  float lanes[W];
  L::store(lanes, best);
  float result = start;
  for (std::size_t k = 0; k < W; ++k) {
    if (IsMax ? lanes[k] > result : lanes[k] < result) result = lanes[k];
  }
  for (; j < n; ++j) {
    if (IsMax ? x[j] > result : x[j] < result) result = x[j];
  }
  if (result == 0.0f) {
    for (std::size_t k = 0; k < n; ++k) {
      if (x[k] == 0.0f) return x[k];
    }
  }
  return result;
}

// Column layout over `count` neighbouring outputs starting at column c0 of an (reduced x inner)
// block: out[c] = term sums (or scan extremes) over k in increasing order.
template <class L>
inline void columns(ReduceKind kind, ReduceTerm term, const float* x, float* out, std::size_t reduced,
                    std::size_t inner, std::size_t c0, std::size_t count) noexcept {
  constexpr std::size_t W = static_cast<std::size_t>(L::kWidth);
  std::size_t c = c0;
  const std::size_t end = c0 + count;
  for (; c + W <= end; c += W) {
    typename L::F acc;
    if (kind == ReduceKind::Sum) {
      acc = L::zero();
      for (std::size_t k = 0; k < reduced; ++k) acc = L::add(acc, apply_term<L>(term, L::load(x + k * inner + c)));
    } else {
      acc = L::set1(kind == ReduceKind::Max ? -__builtin_inff() : __builtin_inff());
      for (std::size_t k = 0; k < reduced; ++k) {
        const typename L::F v = L::load(x + k * inner + c);
        // The first element always replaces (even NaN); later ones only when strictly better.
        if (k == 0) acc = v;
        else acc = L::select(kind == ReduceKind::Max ? L::gt(v, acc) : L::lt(v, acc), v, acc);
      }
    }
    L::store(out + c, acc);
  }
  for (; c < end; ++c) {
    float acc;
    if (kind == ReduceKind::Sum) {
      acc = 0.0f;
      for (std::size_t k = 0; k < reduced; ++k) {
        const float v = x[k * inner + c];
        const float t = term == ReduceTerm::Square ? v * v : term == ReduceTerm::Abs ? __builtin_fabsf(v) : v;
        acc = acc + t;
      }
    } else {
      acc = kind == ReduceKind::Max ? -__builtin_inff() : __builtin_inff();
      for (std::size_t k = 0; k < reduced; ++k) {
        const float v = x[k * inner + c];
        if (k == 0 || (kind == ReduceKind::Max ? v > acc : v < acc)) acc = v;
      }
    }
    out[c] = acc;
  }
}

template <class L>
inline void rows(ReduceKind kind, ReduceTerm term, const float* x, float* out, std::size_t row_begin,
                 std::size_t row_end, std::size_t terms) noexcept {
  for (std::size_t r = row_begin; r < row_end; ++r) {
    const float* row = x + r * terms;
    if (kind == ReduceKind::Sum) out[r] = sum_row<L>(term, row, terms);
    else if (kind == ReduceKind::Max) out[r] = extreme_row<L, true>(row, terms);
    else out[r] = extreme_row<L, false>(row, terms);
  }
}

}  // namespace onemodel::opt::reduce
