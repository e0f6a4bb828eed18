// Error-free transformations in binary64 without fused multiply-add (spec/exact-transcendentals.md
// section 17.1), for the exact binary64 functions of section 17. Each is a fixed sequence of
// binary64 + - * rounded to nearest even (-ffp-contract=off keeps every product rounded).
#pragma once

namespace onemodel::exact::detail {

// An unevaluated sum hi + lo.
struct DoubleDouble {
  double hi;
  double lo;
};

// Knuth's TwoSum: s + e == a + b exactly, s = fl(a + b); no condition on the operands (finite,
// no overflow).
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

// Veltkamp's splitting: a == hi + lo with hi holding the high 26 bits and lo the rest (each fits
// in 26 bits with its sign), for |a| below 2^995 (no overflow of 134217729 * a).
inline DoubleDouble split(double a) noexcept {
  const double c = 134217729.0 * a;  // 2^27 + 1
  const double hi = c - (c - a);
  const double lo = a - hi;
  return {hi, lo};
}

// Dekker's product: p + e == a * b exactly, p = fl(a * b), when neither a product of the parts
// underflows (|a*b| above about 2^-969) and |a|, |b| < 2^995.
inline DoubleDouble two_prod(double a, double b) noexcept {
  const double p = a * b;
  const DoubleDouble sa = split(a);
  const DoubleDouble sb = split(b);
  const double e = (((sa.hi * sb.hi - p) + sa.hi * sb.lo) + sa.lo * sb.hi) + sa.lo * sb.lo;
  return {p, e};
}

}  // namespace onemodel::exact::detail
