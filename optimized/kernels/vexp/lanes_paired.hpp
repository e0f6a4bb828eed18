// Two vectors of a lanes type L (the interface of lanes_scalar.hpp) as one lanes type of twice the
// width, so that the exponentials of exp_lanes.hpp run two (or, nested, four) independent chains
// side by side: every step is issued for both halves before the next step. The exponential is a
// chain of about 20 dependent operations; one or two vectors at a time the out-of-order window
// holds too few chains to cover its latency (the element-wise kernels' measurement, and this
// one's, are in elementwise/lanes_paired.hpp and softmax_body.hpp).
//
// Each lane sees exactly L's operations in the same order: the halves never mix, so every value is
// the one L computes. The halves are named members, not an array, so that GCC keeps them in
// registers; the members are always inlined, since a pair passed to a call goes through memory.
#pragma once

#include <cstdint>

namespace onemodel::opt::vexp {

template <class L>
struct PairedLanes {
  struct F {
    typename L::F lo, hi;
  };
  struct M {
    typename L::M lo, hi;
  };
  struct I {
    typename L::I lo, hi;
  };
  using Half = L;
  static constexpr int kWidth = 2 * L::kWidth;
  static constexpr bool kHasFma = L::kHasFma;

  [[gnu::always_inline]] static F load(const float* p) noexcept { return {L::load(p), L::load(p + L::kWidth)}; }
  [[gnu::always_inline]] static void store(float* p, F v) noexcept {
    L::store(p, v.lo);
    L::store(p + L::kWidth, v.hi);
  }
  [[gnu::always_inline]] static F set1(float v) noexcept { return {L::set1(v), L::set1(v)}; }
  [[gnu::always_inline]] static F zero() noexcept { return {L::zero(), L::zero()}; }
  [[gnu::always_inline]] static F add(F a, F b) noexcept { return {L::add(a.lo, b.lo), L::add(a.hi, b.hi)}; }
  [[gnu::always_inline]] static F sub(F a, F b) noexcept { return {L::sub(a.lo, b.lo), L::sub(a.hi, b.hi)}; }
  [[gnu::always_inline]] static F mul(F a, F b) noexcept { return {L::mul(a.lo, b.lo), L::mul(a.hi, b.hi)}; }
  [[gnu::always_inline]] static F div(F a, F b) noexcept { return {L::div(a.lo, b.lo), L::div(a.hi, b.hi)}; }
  [[gnu::always_inline]] static F fmadd(F a, F b, F c) noexcept {
    return {L::fmadd(a.lo, b.lo, c.lo), L::fmadd(a.hi, b.hi, c.hi)};
  }
  [[gnu::always_inline]] static M gt(F a, F b) noexcept { return {L::gt(a.lo, b.lo), L::gt(a.hi, b.hi)}; }
  [[gnu::always_inline]] static M lt(F a, F b) noexcept { return {L::lt(a.lo, b.lo), L::lt(a.hi, b.hi)}; }
  [[gnu::always_inline]] static M is_nan(F a) noexcept { return {L::is_nan(a.lo), L::is_nan(a.hi)}; }
  [[gnu::always_inline]] static F select(M m, F a, F b) noexcept {
    return {L::select(m.lo, a.lo, b.lo), L::select(m.hi, a.hi, b.hi)};
  }
  [[gnu::always_inline]] static I bits(F v) noexcept { return {L::bits(v.lo), L::bits(v.hi)}; }
  [[gnu::always_inline]] static F from_bits(I v) noexcept { return {L::from_bits(v.lo), L::from_bits(v.hi)}; }
  [[gnu::always_inline]] static I set1i(std::uint32_t v) noexcept { return {L::set1i(v), L::set1i(v)}; }
  [[gnu::always_inline]] static I iadd(I a, I b) noexcept { return {L::iadd(a.lo, b.lo), L::iadd(a.hi, b.hi)}; }
  [[gnu::always_inline]] static I isub(I a, I b) noexcept { return {L::isub(a.lo, b.lo), L::isub(a.hi, b.hi)}; }
  [[gnu::always_inline]] static I shl23(I a) noexcept { return {L::shl23(a.lo), L::shl23(a.hi)}; }

  // The optional operations (exp_lanes.hpp), present exactly when L has them.
  [[gnu::always_inline]] static F max(F a, F b) noexcept
    requires requires(typename L::F v) { L::max(v, v); }
  {
    return {L::max(a.lo, b.lo), L::max(a.hi, b.hi)};
  }
  [[gnu::always_inline]] static F min(F a, F b) noexcept
    requires requires(typename L::F v) { L::min(v, v); }
  {
    return {L::min(a.lo, b.lo), L::min(a.hi, b.hi)};
  }
  [[gnu::always_inline]] static F zero_where(M m, F v) noexcept
    requires requires(typename L::M k, typename L::F v) { L::zero_where(k, v); }
  {
    return {L::zero_where(m.lo, v.lo), L::zero_where(m.hi, v.hi)};
  }
};

}  // namespace onemodel::opt::vexp
