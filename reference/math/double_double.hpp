// Double-double steps of spec/exact-transcendentals.md section 16.1: error-free sums and products
// of binary64 values (Knuth's TwoSum, Fast2Sum, Dekker's product with Veltkamp's split, WITHOUT
// fused multiply-add) and the few double-double operations built on them. Every line is one step of
// that section, evaluated as written (one rounding per operator; the build uses -ffp-contract=off).
// Internal to reference/math/exact_trig64.cpp and exact_inverse_trig64.cpp.
#pragma once

#include <cmath>

#include "reference/math/exact_trig64.hpp"

namespace onemodel::exact::trig64_detail {

// s + e = a + b exactly, s = a + b rounded, when |a| >= |b| or a = 0 (Fast2Sum).
inline DoubleDouble fast_two_sum(double a, double b) noexcept {
  const double s = a + b;
  const double e = b - (s - a);
  return {s, e};
}

// s + e = a + b exactly for any finite a, b without overflow (TwoSum, six operations).
inline DoubleDouble two_sum(double a, double b) noexcept {
  const double s = a + b;
  const double bb = s - a;
  const double e = (a - (s - bb)) + (b - bb);
  return {s, e};
}

// a = hi + lo with hi and lo of at most 26 significant bits each (Veltkamp, 2^27 + 1); valid for
// |a| < 2^996, far above every value split here.
inline DoubleDouble split(double a) noexcept {
  const double c = 134217729.0 * a;
  const double hi = c - (c - a);
  const double lo = a - hi;
  return {hi, lo};
}

// p + e = a * b exactly, p = a * b rounded (Dekker), when no step underflows or overflows.
inline DoubleDouble two_prod(double a, double b) noexcept {
  const double p = a * b;
  const DoubleDouble as = split(a);
  const DoubleDouble bs = split(b);
  const double e = (((as.hi * bs.hi - p) + as.hi * bs.lo) + as.lo * bs.hi) + as.lo * bs.lo;
  return {p, e};
}

inline DoubleDouble dd_neg(DoubleDouble x) noexcept { return {-x.hi, -x.lo}; }

inline DoubleDouble dd_add(DoubleDouble x, DoubleDouble y) noexcept {
  const DoubleDouble s = two_sum(x.hi, y.hi);
  return fast_two_sum(s.hi, s.lo + (x.lo + y.lo));
}

inline DoubleDouble dd_mul(DoubleDouble x, DoubleDouble y) noexcept {
  const DoubleDouble p = two_prod(x.hi, y.hi);
  return fast_two_sum(p.hi, p.lo + (x.hi * y.lo + x.lo * y.hi));
}

inline DoubleDouble dd_mul_d(DoubleDouble x, double d) noexcept {
  const DoubleDouble p = two_prod(x.hi, d);
  return fast_two_sum(p.hi, p.lo + x.lo * d);
}

// x / y: the quotient of the high parts, corrected by the exact remainder.
inline DoubleDouble dd_div(DoubleDouble x, DoubleDouble y) noexcept {
  const double q = x.hi / y.hi;
  const DoubleDouble p = two_prod(q, y.hi);
  const double r = (((x.hi - p.hi) - p.lo) + x.lo) - q * y.lo;
  return fast_two_sum(q, r / y.hi);
}

// sqrt(x) for x.hi > 0: the correctly rounded root of the high part, corrected by one Newton step.
inline DoubleDouble dd_sqrt(DoubleDouble x) noexcept {
  const double s = std::sqrt(x.hi);
  const DoubleDouble p = two_prod(s, s);
  return fast_two_sum(s, (((x.hi - p.hi) - p.lo) + x.lo) / (s + s));
}

}  // namespace onemodel::exact::trig64_detail
