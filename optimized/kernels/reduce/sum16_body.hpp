// The canonical 16-partial sum on any lanes type (ops-norms.md, "The canonical sum"; the same
// order as reference/ops/canonical_sum.hpp): term j goes to partial j mod 16, in increasing j,
// every partial from +0; then a[t] = P[t] + P[t+8], b[t] = a[t] + a[t+4], c[t] = b[t] + b[t+2],
// c[0] + c[1]. Vector lanes hold different partials (16 / width vectors), so the lane width
// does not change a bit. Padding positions add +0, which changes nothing: a partial that starts
// at +0 can never become -0 under round-to-nearest.
// Included by per-ISA kernel files only; everything is a template over the lanes type.
#pragma once

#include <cstddef>

namespace onemodel::opt::reduce {

// The fixed folding tree of the 16 partials.
template <class L>
inline float fold16(const float* p) noexcept {
  float a[8];
  for (int t = 0; t < 8; ++t) a[t] = p[t] + p[t + 8];
  float b[4];
  for (int t = 0; t < 4; ++t) b[t] = a[t] + a[t + 4];
  float c[2];
  for (int t = 0; t < 2; ++t) c[t] = b[t] + b[t + 2];
  return c[0] + c[1];
}

template <class L>
struct Sum16 {
  static constexpr int kVectors = 16 / L::kWidth;
  typename L::F acc[kVectors];

  Sum16() noexcept {
    for (int k = 0; k < kVectors; ++k) acc[k] = L::zero();
  }
  // Adds the 16 consecutive terms t[0..16) (a whole group of partials).
  void add16(const float* t) noexcept {
    for (int k = 0; k < kVectors; ++k) acc[k] = L::add(acc[k], L::load(t + k * L::kWidth));
  }
  float result() const noexcept {
    float partials[16];
    for (int k = 0; k < kVectors; ++k) L::store(partials + k * L::kWidth, acc[k]);
    return fold16<L>(partials);
  }
};

// Sum16 of term(t[j]) over j in [0, n): full groups of 16 straight from memory, the last group
// through a buffer whose padding terms are +0.
template <class L, class Term>
inline float sum16_terms(const float* t, std::size_t n, Term term) noexcept {
  constexpr int V = Sum16<L>::kVectors;
  constexpr int W = L::kWidth;
  Sum16<L> sum;
  std::size_t j = 0;
  for (; j + 16 <= n; j += 16) {
    for (int k = 0; k < V; ++k) sum.acc[k] = L::add(sum.acc[k], term(L::load(t + j + k * W)));
  }
  if (j < n) {
    float buffer[16];
    const std::size_t rest = n - j;
    for (std::size_t k = 0; k < 16; ++k) buffer[k] = k < rest ? t[j + k] : 0.0f;
    for (int k = 0; k < V; ++k) L::store(buffer + k * W, term(L::load(buffer + k * W)));
    for (std::size_t k = rest; k < 16; ++k) buffer[k] = 0.0f;
    sum.add16(buffer);
  }
  return sum.result();
}

template <class L>
inline float sum16_array(const float* t, std::size_t n) noexcept {
  return sum16_terms<L>(t, n, [](typename L::F v) { return v; });
}

}  // namespace onemodel::opt::reduce
