// Double-double arithmetic in binary64 without fused multiply-add (spec/exact-transcendentals.md
// sections 16.1 and 17.1): Knuth's TwoSum, Dekker's Fast2Sum, Veltkamp's split and Dekker's
// product (error-free), and the few double-double operations built on them. Every line is one
// step of those sections, evaluated as written (one rounding per operator; the build uses
// -ffp-contract=off). Shared by the exact binary64 trigonometric (exact_trig64.cpp,
// exact_inverse_trig64.cpp), hyperbolic (exact_hyperbolic64.cpp) and erf (exact_erf64.cpp) code.
#pragma once

#include <cmath>

namespace onemodel::exact::dd {

// An unevaluated sum hi + lo; after normalisation |lo| <= half an ulp of hi.
struct DoubleDouble {
  double hi;
  double lo;
};

// Knuth's TwoSum: s + e == a + b exactly, s = fl(a + b), for any finite a, b without overflow.
inline DoubleDouble two_sum(double a, double b) noexcept {
  const double s = a + b;
  const double bb = s - a;
  const double e = (a - (s - bb)) + (b - bb);
  return {s, e};
}

// Dekker's Fast2Sum: the same when a == 0 or the exponent of a is at least that of b
// (|a| >= |b| suffices).
inline DoubleDouble fast_two_sum(double a, double b) noexcept {
  const double s = a + b;
  const double e = b - (s - a);
  return {s, e};
}

// Veltkamp's splitting: a == hi + lo, each of at most 26 significant bits, for |a| below 2^995
// (no overflow of 134217729 * a).
inline DoubleDouble split(double a) noexcept {
  const double c = 134217729.0 * a;  // 2^27 + 1
  const double hi = c - (c - a);
  const double lo = a - hi;
  return {hi, lo};
}

// Dekker's product: p + e == a * b exactly, p = fl(a * b), when no partial product underflows
// (|a*b| above about 2^-969) and |a|, |b| < 2^995.
inline DoubleDouble two_prod(double a, double b) noexcept {
  const double p = a * b;
  const DoubleDouble sa = split(a);
  const DoubleDouble sb = split(b);
  const double e = (((sa.hi * sb.hi - p) + sa.hi * sb.lo) + sa.lo * sb.hi) + sa.lo * sb.lo;
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

}  // namespace onemodel::exact::dd

// The names each family's code uses.
namespace onemodel::exact::trig64_detail {
using dd::dd_add;
using dd::dd_div;
using dd::dd_mul;
using dd::dd_mul_d;
using dd::dd_neg;
using dd::dd_sqrt;
using dd::DoubleDouble;
using dd::fast_two_sum;
using dd::split;
using dd::two_prod;
using dd::two_sum;
}  // namespace onemodel::exact::trig64_detail

namespace onemodel::exact::detail {
using dd::DoubleDouble;
using dd::fast_two_sum;
using dd::split;
using dd::two_prod;
using dd::two_sum;
}  // namespace onemodel::exact::detail
