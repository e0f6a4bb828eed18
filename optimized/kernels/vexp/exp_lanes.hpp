// The exponentials of softmax and attention on any lanes type (lanes_<isa>.hpp), lanes holding
// different elements. Included by the per-ISA kernel files only; every function is a template
// over the lanes type so that code compiled with different instruction-set flags never merges.
//
// exp_non_positive: exact-transcendentals.md section "exp(x)", steps 1-3 then ExpNonPositive,
// the same operation sequence as reference/math/exact_exp.cpp (one rounding per operation, no
// fused multiply-add), so every lane gives that function's bits.
// fast_exp: exact-transcendentals.md section "Fast exponential" (fast mode only).
#pragma once

#include <cstddef>
#include <cstdint>

namespace onemodel::opt::vexp {

// exact-transcendentals.md, Rules and section "exp(x)": the constants as fp32 bit patterns.
struct ExpConstants {
  static constexpr float kRoundingMagic = 12582912.0f;  // M = 1.5 * 2^23
  static constexpr float kLog2e = 1.44269502f;          // 0x3FB8AA3B
  static constexpr float kLn2Hi = 0.693145751953125f;   // 0x3F317200
  static constexpr float kLn2Lo = 1.4286068e-6f;        // 0x35BFBE8E
  static constexpr float kNonPositiveFlush = -87.33654f;  // 0xC2AEAC4F
  // Fast exponential: clamp bounds and the degree-3 fit, highest coefficient first.
  static constexpr float kFastLow = -87.3f;
  static constexpr float kFastHigh = 88.3f;
  static constexpr float kFastC3 = 0.008312525f;
  static constexpr float kFastC2 = 0.041890115f;
  static constexpr float kFastC1 = 0.16667114f;
  static constexpr float kFastC0 = 0.4999923f;
  static constexpr std::uint32_t kCanonicalNan = 0x7FC00000u;
};

// Every NaN lane becomes 0x7FC00000 (exact-mode.md: canonical NaN).
template <class L>
inline typename L::F canonical_nan(typename L::F v) noexcept {
  return L::select(L::is_nan(v), L::from_bits(L::set1i(ExpConstants::kCanonicalNan)), v);
}

// select(gt(a, b), a, b), select(lt(a, b), a, b) and select(m, +0, v): one instruction where the
// lanes type has it (the x86 paths), else the comparison and the selection. The same value either
// way, NaN lanes included (b when either is NaN).
template <class L>
inline typename L::F greater_or_second(typename L::F a, typename L::F b) noexcept {
  if constexpr (requires { L::max(a, b); }) return L::max(a, b);
  else return L::select(L::gt(a, b), a, b);
}
template <class L>
inline typename L::F less_or_second(typename L::F a, typename L::F b) noexcept {
  if constexpr (requires { L::min(a, b); }) return L::min(a, b);
  else return L::select(L::lt(a, b), a, b);
}
template <class L>
inline typename L::F zero_where(typename L::M m, typename L::F v) noexcept {
  if constexpr (requires { L::zero_where(m, v); }) return L::zero_where(m, v);
  else return L::select(m, L::zero(), v);
}

// 2^n as bits((n + 127) << 23) from t = x log2e + M: n + 127 = bits(t) - bits(M) + 127 in 32-bit
// integers, one subtraction of the constant bits(M) - 127.
template <class L>
inline typename L::F power_of_two_from_rounding(typename L::F t) noexcept {
  // __builtin_bit_cast: emscripten's libc++ lacks std::bit_cast (DESIGN.md section 4).
  const std::uint32_t bias = __builtin_bit_cast(std::uint32_t, ExpConstants::kRoundingMagic) - 127u;
  return L::from_bits(L::shl23(L::isub(L::bits(t), L::set1i(bias))));
}

// exact-transcendentals.md "exp(x)" steps 1-3 and ExpNonPositive (argument <= 0 or NaN), without
// the canonical NaN: a NaN x gives a NaN of any payload (NaN passes through every step and the
// flush's comparison is false). For callers that make every NaN canonical afterwards (softmax,
// whose NaN exponentials make the row's sum NaN).
template <class L>
inline typename L::F exp_non_positive_any_nan(typename L::F x) noexcept {
  using C = ExpConstants;
  const typename L::F magic = L::set1(C::kRoundingMagic);
  // Step 1: n = round(x / ln 2) by the 1.5*2^23 trick; the integer read back from the bits.
  const typename L::F t = L::add(L::mul(x, L::set1(C::kLog2e)), magic);
  const typename L::F n = L::sub(t, magic);
  // Step 2: r = (x - n*ln2Hi) - n*ln2Lo.
  const typename L::F r = L::sub(L::sub(x, L::mul(n, L::set1(C::kLn2Hi))), L::mul(n, L::set1(C::kLn2Lo)));
  // Step 3: Horner from the highest coefficient, c + q*r per step; p = 1 + (r + (r*r)*q).
  typename L::F q = L::add(L::mul(L::set1(0.0013814613f), r), L::set1(0.00836871f));
  q = L::add(L::mul(q, r), L::set1(0.04166839f));
  q = L::add(L::mul(q, r), L::set1(0.16666521f));
  q = L::add(L::mul(q, r), L::set1(0.49999994f));
  const typename L::F p = L::add(L::set1(1.0f), L::add(r, L::mul(L::mul(r, r), q)));
  // ExpNonPositive: one scaling by 2^n built in the exponent field; +0 below the flush bound.
  const typename L::F result = L::mul(p, power_of_two_from_rounding<L>(t));
  return zero_where<L>(L::lt(x, L::set1(C::kNonPositiveFlush)), result);
}

// The same with the canonical NaN for a NaN x (exact-mode.md).
template <class L>
inline typename L::F exp_non_positive(typename L::F x) noexcept {
  const typename L::F result = exp_non_positive_any_nan<L>(x);
  return L::select(L::is_nan(x), L::from_bits(L::set1i(ExpConstants::kCanonicalNan)), result);
}

// exact-transcendentals.md "Fast exponential" for x <= 88.3 or NaN (a NaN lane stays NaN):
// t = fma(x, log2e, M), n = t - M, r = fma(n, -ln2Hi, x), r = fma(n, -ln2Lo, r), q by Horner on
// the degree-3 fit, p = 1 + fma(r*r, q, r), one 2^n scaling, +0 below -87.3. The clamp of x to
// -87.3 is not made: every lane below it is set to +0 at the end, whatever it computed, and the
// clamp changes no other lane. Paths without FMA multiply then add.
template <class L>
inline typename L::F fast_exp_below_overflow(typename L::F x) noexcept {
  using C = ExpConstants;
  const typename L::F magic = L::set1(C::kRoundingMagic);
  const typename L::F t = L::fmadd(x, L::set1(C::kLog2e), magic);
  const typename L::F n = L::sub(t, magic);
  typename L::F r = L::fmadd(n, L::set1(-C::kLn2Hi), x);
  r = L::fmadd(n, L::set1(-C::kLn2Lo), r);
  typename L::F q = L::fmadd(L::set1(C::kFastC3), r, L::set1(C::kFastC2));
  q = L::fmadd(q, r, L::set1(C::kFastC1));
  q = L::fmadd(q, r, L::set1(C::kFastC0));
  const typename L::F p = L::add(L::set1(1.0f), L::fmadd(L::mul(r, r), q, r));
  const typename L::F result = L::mul(p, power_of_two_from_rounding<L>(t));
  return zero_where<L>(L::lt(x, L::set1(C::kFastLow)), result);
}

// exact-transcendentals.md "Fast exponential": x clamped to 88.3 first (by comparison, so a NaN
// lane stays NaN), then the above.
template <class L>
inline typename L::F fast_exp(typename L::F x) noexcept {
  return fast_exp_below_overflow<L>(less_or_second<L>(L::set1(ExpConstants::kFastHigh), x));
}

// Applies `f` to n contiguous elements; the tail runs through a zero-padded lane buffer.
template <class L, class Fn>
inline void map_array(const float* x, float* y, std::size_t n, Fn f) noexcept {
  constexpr std::size_t W = static_cast<std::size_t>(L::kWidth);
  std::size_t i = 0;
  for (; i + W <= n; i += W) L::store(y + i, f(L::load(x + i)));
  if constexpr (requires { L::load_first(x, n); }) {
    // Masked partial vector (lanes_avx512.hpp): the buffer's values without its copies.
    if (i < n) L::store_first(y + i, f(L::load_first(x + i, n - i)), n - i);
    return;
  }
  if (i < n) {
    float buffer[W] = {};
    for (std::size_t k = 0; i + k < n; ++k) buffer[k] = x[i + k];
    L::store(buffer, f(L::load(buffer)));
    for (std::size_t k = 0; i + k < n; ++k) y[i + k] = buffer[k];
  }
}

}  // namespace onemodel::opt::vexp
