// Two vectors of a lanes type L as one lanes type of twice the width, for the long element-wise
// sequences (lane_math.hpp: the exponential, sigmoid, tanh, erf and GELU). Each of those is a
// chain of 30 to 70 dependent operations; one vector at a time, the out-of-order window holds
// about three vectors' chains and the loop waits on their latency (fast GELU, erf form: 66
// cycles a vector on Zen 3 against about 25 of issue). Over PairedLanes<L> every step is issued
// for both halves before the next step, so two chains advance side by side (measured on Zen 3,
// one thread, ns per element: fast GELU 2.63 -> 1.91, exact GELU 4.15 -> 3.09, exact SiLU
// 1.17 -> 0.83).
//
// Each lane still sees exactly L's operations in the sequence's order: the halves never mix, so
// every value is the one L computes (the same bits; the branches on L::all, such as tanh's and
// fast erf's skipped branch, only decide which work is done, never a value). The optional
// operations of L (fused steps, scalef, rcp14, mul_unless, masked first lanes) exist here exactly
// when L has them, so lane_math.hpp chooses the same sequence for both. The halves are named
// members, not an array, so that GCC keeps them in registers at -O2.
#pragma once

#include <cstddef>
#include <cstdint>

namespace onemodel::opt::ew {

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
  static constexpr std::size_t kWidth = 2 * L::kWidth;

  [[gnu::always_inline]] static F load(const float* p) noexcept { return {L::load(p), L::load(p + L::kWidth)}; }
  [[gnu::always_inline]] static void store(float* p, F v) noexcept {
    L::store(p, v.lo);
    L::store(p + L::kWidth, v.hi);
  }
  [[gnu::always_inline]] static F splat(float v) noexcept { return {L::splat(v), L::splat(v)}; }
  [[gnu::always_inline]] static I splat_i(std::uint32_t v) noexcept { return {L::splat_i(v), L::splat_i(v)}; }

  [[gnu::always_inline]] static F add(F a, F b) noexcept { return {L::add(a.lo, b.lo), L::add(a.hi, b.hi)}; }
  [[gnu::always_inline]] static F sub(F a, F b) noexcept { return {L::sub(a.lo, b.lo), L::sub(a.hi, b.hi)}; }
  [[gnu::always_inline]] static F mul(F a, F b) noexcept { return {L::mul(a.lo, b.lo), L::mul(a.hi, b.hi)}; }
  [[gnu::always_inline]] static F div(F a, F b) noexcept { return {L::div(a.lo, b.lo), L::div(a.hi, b.hi)}; }
  [[gnu::always_inline]] static F sqrt(F a) noexcept { return {L::sqrt(a.lo), L::sqrt(a.hi)}; }

  [[gnu::always_inline]] static M lt(F a, F b) noexcept { return {L::lt(a.lo, b.lo), L::lt(a.hi, b.hi)}; }
  [[gnu::always_inline]] static M gt(F a, F b) noexcept { return {L::gt(a.lo, b.lo), L::gt(a.hi, b.hi)}; }
  [[gnu::always_inline]] static M ge(F a, F b) noexcept { return {L::ge(a.lo, b.lo), L::ge(a.hi, b.hi)}; }
  [[gnu::always_inline]] static M eq(F a, F b) noexcept { return {L::eq(a.lo, b.lo), L::eq(a.hi, b.hi)}; }
  [[gnu::always_inline]] static M is_nan(F a) noexcept { return {L::is_nan(a.lo), L::is_nan(a.hi)}; }
  [[gnu::always_inline]] static bool all(M m) noexcept { return L::all(m.lo) && L::all(m.hi); }
  [[gnu::always_inline]] static F select(M m, F t, F f) noexcept {
    return {L::select(m.lo, t.lo, f.lo), L::select(m.hi, t.hi, f.hi)};
  }

  [[gnu::always_inline]] static I bits(F a) noexcept { return {L::bits(a.lo), L::bits(a.hi)}; }
  [[gnu::always_inline]] static F from_bits(I u) noexcept { return {L::from_bits(u.lo), L::from_bits(u.hi)}; }
  [[gnu::always_inline]] static I add_i(I a, I b) noexcept { return {L::add_i(a.lo, b.lo), L::add_i(a.hi, b.hi)}; }
  [[gnu::always_inline]] static I sub_i(I a, I b) noexcept { return {L::sub_i(a.lo, b.lo), L::sub_i(a.hi, b.hi)}; }
  [[gnu::always_inline]] static I and_i(I a, I b) noexcept { return {L::and_i(a.lo, b.lo), L::and_i(a.hi, b.hi)}; }
  [[gnu::always_inline]] static I or_i(I a, I b) noexcept { return {L::or_i(a.lo, b.lo), L::or_i(a.hi, b.hi)}; }
  [[gnu::always_inline]] static I xor_i(I a, I b) noexcept { return {L::xor_i(a.lo, b.lo), L::xor_i(a.hi, b.hi)}; }
  template <int N>
  [[gnu::always_inline]] static I srai(I a) noexcept {
    return {L::template srai<N>(a.lo), L::template srai<N>(a.hi)};
  }
  template <int N>
  [[gnu::always_inline]] static I slli(I a) noexcept {
    return {L::template slli<N>(a.lo), L::template slli<N>(a.hi)};
  }

  // The optional operations, present exactly when L has them (lane_math.hpp tests each with a
  // requires-expression).
  [[gnu::always_inline]] static F fmadd(F a, F b, F c) noexcept
    requires requires(typename L::F v) { L::fmadd(v, v, v); }
  {
    return {L::fmadd(a.lo, b.lo, c.lo), L::fmadd(a.hi, b.hi, c.hi)};
  }
  [[gnu::always_inline]] static F fnmadd(F a, F b, F c) noexcept
    requires requires(typename L::F v) { L::fnmadd(v, v, v); }
  {
    return {L::fnmadd(a.lo, b.lo, c.lo), L::fnmadd(a.hi, b.hi, c.hi)};
  }
  [[gnu::always_inline]] static F max(F a, F b) noexcept
    requires requires(typename L::F v) { L::max(v, v); }
  {
    return {L::max(a.lo, b.lo), L::max(a.hi, b.hi)};
  }
  [[gnu::always_inline]] static F scalef(F a, F b) noexcept
    requires requires(typename L::F v) { L::scalef(v, v); }
  {
    return {L::scalef(a.lo, b.lo), L::scalef(a.hi, b.hi)};
  }
  [[gnu::always_inline]] static F rcp14(F a) noexcept
    requires requires(typename L::F v) { L::rcp14(v); }
  {
    return {L::rcp14(a.lo), L::rcp14(a.hi)};
  }
  [[gnu::always_inline]] static F mul_unless(M m, F src, F a, F b) noexcept
    requires requires(typename L::M k, typename L::F v) { L::mul_unless(k, v, v, v); }
  {
    return {L::mul_unless(m.lo, src.lo, a.lo, b.lo), L::mul_unless(m.hi, src.hi, a.hi, b.hi)};
  }
};

}  // namespace onemodel::opt::ew
