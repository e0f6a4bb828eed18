// The canonical 16-partial sum (spec/ops/norms.md section 2, from ops-norms.md "The canonical
// sum"): every sum the normalisation, softmax and row-layout reduction kernels compute is this one.
// Its order of additions is normative in exact mode, so it is written out literally here, once.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <span>

namespace onemodel {

// Accumulates terms t[0], t[1], ... one at a time in increasing j: term j is added to partial
// j mod 16, every partial starting from +0. result() then folds the partials by the fixed tree
// a[t] = P[t] + P[t+8] (t < 8), b[t] = a[t] + a[t+4] (t < 4), c[t] = b[t] + b[t+2] (t < 2),
// c[0] + c[1]. T is float or double (float64 follows the same order, spec/ops/norms.md section 6).
template <class T>
class CanonicalSum16 {
 public:
  void add(T term) noexcept {
    partial_[count_ % 16] = partial_[count_ % 16] + term;
    ++count_;
  }
  T result() const noexcept {
    std::array<T, 8> a{};
    for (std::size_t t = 0; t < 8; ++t) a[t] = partial_[t] + partial_[t + 8];
    std::array<T, 4> b{};
    for (std::size_t t = 0; t < 4; ++t) b[t] = a[t] + a[t + 4];
    std::array<T, 2> c{};
    for (std::size_t t = 0; t < 2; ++t) c[t] = b[t] + b[t + 2];
    return c[0] + c[1];
  }
  std::uint64_t count() const noexcept { return count_; }

 private:
  std::array<T, 16> partial_{};  // value-initialised: +0
  std::uint64_t count_ = 0;
};

// Sum16 of a whole array of terms, in the order above.
float canonical_sum16(std::span<const float> terms) noexcept;
double canonical_sum16(std::span<const double> terms) noexcept;

}  // namespace onemodel
