// Two vectors of a lanes type L as one lanes type of twice the width, for the long dependent
// sequences: the element-wise functions of elementwise/lane_math.hpp (exponential, sigmoid, tanh,
// erf, GELU: 30 to 70 dependent operations a vector) and the exponentials of vexp/exp_lanes.hpp
// (about 20). One vector at a time the out-of-order window holds about three vectors' chains and
// the loop waits on their latency; over PairedLanes<L> every step is issued for both halves before
// the next step, so two chains (four, nested) advance side by side. Measured on Zen 3, one thread,
// ns per element: fast GELU 2.63 -> 1.91, exact GELU 4.15 -> 3.09, exact SiLU 1.17 -> 0.83 (the
// softmax rows' figures are in softmax/softmax_body.hpp).
//
// Each lane still sees exactly L's operations in the sequence's order: the halves never mix, so
// every value is the one L computes (the same bits; branches on all(), such as tanh's and fast
// erf's skipped branch, only decide which work is done, never a value).
//
// Two lanes interfaces use this: the element-wise one (elementwise/lanes_*.hpp: splat, add_i,
// srai, ...) and the exponential one (vexp/lanes_*.hpp: set1, iadd, shl23, ...). Every operation
// is present exactly when L has it (a requires-clause each), so a pair offers the interface of
// its half and the code over it picks the same sequence for both. The halves are named members,
// not an array, and every member is always inlined: GCC then keeps the halves in registers at
// -O2, where a pair passed to a call goes through memory.
#pragma once

#include <cstdint>

namespace onemodel::opt {

namespace paired_detail {
// The exponential interface's kHasFma, carried over when the half has one.
template <class L>
struct Flags {};
template <class L>
  requires requires { L::kHasFma; }
struct Flags<L> {
  static constexpr bool kHasFma = L::kHasFma;
};
}  // namespace paired_detail

template <class L>
struct PairedLanes : paired_detail::Flags<L> {
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
  // The half's own type: std::size_t in the element-wise interface, int in the exponential one.
  static constexpr auto kWidth = 2 * L::kWidth;

  // Common to both interfaces.
  [[gnu::always_inline]] static F load(const float* p) noexcept { return {L::load(p), L::load(p + L::kWidth)}; }
  [[gnu::always_inline]] static void store(float* p, F v) noexcept {
    L::store(p, v.lo);
    L::store(p + L::kWidth, v.hi);
  }
  [[gnu::always_inline]] static F add(F a, F b) noexcept { return {L::add(a.lo, b.lo), L::add(a.hi, b.hi)}; }
  [[gnu::always_inline]] static F sub(F a, F b) noexcept { return {L::sub(a.lo, b.lo), L::sub(a.hi, b.hi)}; }
  [[gnu::always_inline]] static F mul(F a, F b) noexcept { return {L::mul(a.lo, b.lo), L::mul(a.hi, b.hi)}; }
  [[gnu::always_inline]] static F div(F a, F b) noexcept { return {L::div(a.lo, b.lo), L::div(a.hi, b.hi)}; }
  [[gnu::always_inline]] static M lt(F a, F b) noexcept { return {L::lt(a.lo, b.lo), L::lt(a.hi, b.hi)}; }
  [[gnu::always_inline]] static M gt(F a, F b) noexcept { return {L::gt(a.lo, b.lo), L::gt(a.hi, b.hi)}; }
  [[gnu::always_inline]] static M is_nan(F a) noexcept { return {L::is_nan(a.lo), L::is_nan(a.hi)}; }
  [[gnu::always_inline]] static F select(M m, F t, F f) noexcept {
    return {L::select(m.lo, t.lo, f.lo), L::select(m.hi, t.hi, f.hi)};
  }
  [[gnu::always_inline]] static I bits(F a) noexcept { return {L::bits(a.lo), L::bits(a.hi)}; }
  [[gnu::always_inline]] static F from_bits(I u) noexcept { return {L::from_bits(u.lo), L::from_bits(u.hi)}; }

  // Element-wise interface.
  [[gnu::always_inline]] static F splat(float v) noexcept
    requires requires(float x) { L::splat(x); }
  {
    return {L::splat(v), L::splat(v)};
  }
  [[gnu::always_inline]] static I splat_i(std::uint32_t v) noexcept
    requires requires(std::uint32_t u) { L::splat_i(u); }
  {
    return {L::splat_i(v), L::splat_i(v)};
  }
  [[gnu::always_inline]] static F sqrt(F a) noexcept
    requires requires(typename L::F v) { L::sqrt(v); }
  {
    return {L::sqrt(a.lo), L::sqrt(a.hi)};
  }
  [[gnu::always_inline]] static M ge(F a, F b) noexcept
    requires requires(typename L::F v) { L::ge(v, v); }
  {
    return {L::ge(a.lo, b.lo), L::ge(a.hi, b.hi)};
  }
  [[gnu::always_inline]] static M eq(F a, F b) noexcept
    requires requires(typename L::F v) { L::eq(v, v); }
  {
    return {L::eq(a.lo, b.lo), L::eq(a.hi, b.hi)};
  }
  [[gnu::always_inline]] static bool all(M m) noexcept
    requires requires(typename L::M k) { L::all(k); }
  {
    return L::all(m.lo) && L::all(m.hi);
  }
  [[gnu::always_inline]] static I add_i(I a, I b) noexcept
    requires requires(typename L::I u) { L::add_i(u, u); }
  {
    return {L::add_i(a.lo, b.lo), L::add_i(a.hi, b.hi)};
  }
  [[gnu::always_inline]] static I sub_i(I a, I b) noexcept
    requires requires(typename L::I u) { L::sub_i(u, u); }
  {
    return {L::sub_i(a.lo, b.lo), L::sub_i(a.hi, b.hi)};
  }
  [[gnu::always_inline]] static I and_i(I a, I b) noexcept
    requires requires(typename L::I u) { L::and_i(u, u); }
  {
    return {L::and_i(a.lo, b.lo), L::and_i(a.hi, b.hi)};
  }
  [[gnu::always_inline]] static I or_i(I a, I b) noexcept
    requires requires(typename L::I u) { L::or_i(u, u); }
  {
    return {L::or_i(a.lo, b.lo), L::or_i(a.hi, b.hi)};
  }
  [[gnu::always_inline]] static I xor_i(I a, I b) noexcept
    requires requires(typename L::I u) { L::xor_i(u, u); }
  {
    return {L::xor_i(a.lo, b.lo), L::xor_i(a.hi, b.hi)};
  }
  template <int N>
  [[gnu::always_inline]] static I srai(I a) noexcept
    requires requires(typename L::I u) { L::template srai<N>(u); }
  {
    return {L::template srai<N>(a.lo), L::template srai<N>(a.hi)};
  }
  template <int N>
  [[gnu::always_inline]] static I slli(I a) noexcept
    requires requires(typename L::I u) { L::template slli<N>(u); }
  {
    return {L::template slli<N>(a.lo), L::template slli<N>(a.hi)};
  }

  // Exponential interface.
  [[gnu::always_inline]] static F set1(float v) noexcept
    requires requires(float x) { L::set1(x); }
  {
    return {L::set1(v), L::set1(v)};
  }
  [[gnu::always_inline]] static F zero() noexcept
    requires requires { L::zero(); }
  {
    return {L::zero(), L::zero()};
  }
  [[gnu::always_inline]] static I set1i(std::uint32_t v) noexcept
    requires requires(std::uint32_t u) { L::set1i(u); }
  {
    return {L::set1i(v), L::set1i(v)};
  }
  [[gnu::always_inline]] static I iadd(I a, I b) noexcept
    requires requires(typename L::I u) { L::iadd(u, u); }
  {
    return {L::iadd(a.lo, b.lo), L::iadd(a.hi, b.hi)};
  }
  [[gnu::always_inline]] static I isub(I a, I b) noexcept
    requires requires(typename L::I u) { L::isub(u, u); }
  {
    return {L::isub(a.lo, b.lo), L::isub(a.hi, b.hi)};
  }
  [[gnu::always_inline]] static I shl23(I a) noexcept
    requires requires(typename L::I u) { L::shl23(u); }
  {
    return {L::shl23(a.lo), L::shl23(a.hi)};
  }
  [[gnu::always_inline]] static F min(F a, F b) noexcept
    requires requires(typename L::F v) { L::min(v, v); }
  {
    return {L::min(a.lo, b.lo), L::min(a.hi, b.hi)};
  }
  [[gnu::always_inline]] static F zero_where(M m, F v) noexcept
    requires requires(typename L::M k, typename L::F u) { L::zero_where(k, u); }
  {
    return {L::zero_where(m.lo, v.lo), L::zero_where(m.hi, v.hi)};
  }

  // Optional in either interface (the code over L tests each with a requires-expression).
  [[gnu::always_inline]] static F max(F a, F b) noexcept
    requires requires(typename L::F v) { L::max(v, v); }
  {
    return {L::max(a.lo, b.lo), L::max(a.hi, b.hi)};
  }
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

}  // namespace onemodel::opt
