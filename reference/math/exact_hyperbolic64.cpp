// The exact binary64 expm1, log1p, sinh, cosh, tanh, asinh, acosh, atanh and sigmoid:
// spec/exact-transcendentals.md section 17. Every line is one step of that section, evaluated as
// written (one rounding per operator, no fused multiply-add); the double-double steps are the
// error-free transformations of reference/math/double_double.hpp.
#include <cmath>
#include <cstdint>

#include "reference/math/exact64_series.hpp"
#include "reference/math/double_double.hpp"
#include "reference/math/exact_exp64_parts.hpp"
#include "reference/math/exact_hyperbolic64.hpp"
#include "reference/math/exact_math64.hpp"
#include "reference/math/float_bits.hpp"

namespace onemodel::exact {
namespace {

using detail::bits64_of;
using detail::double_from_bits;
using detail::DoubleDouble;
using detail::fast_two_sum;
using detail::two_prod;
using detail::two_sum;

constexpr std::uint64_t kCanonicalNan64 = 0x7FF8000000000000ull;
constexpr std::uint64_t kSignBit64 = 0x8000000000000000ull;
constexpr double kInfinity = HUGE_VAL;
constexpr double kSqrt2 = 1.4142135623730951;          // 0x3FF6A09E667F3BCD
constexpr double kLn2Hi = 6.93147180369123816490e-01;  // 0x3FE62E42FEE00000
constexpr double kLn2Lo = 1.90821492927058770002e-10;  // 0x3DEA39EF35793C76

double canonical_nan64() noexcept { return double_from_bits(kCanonicalNan64); }

// |x| by clearing the sign bit; magnitude with the sign bit of sign_source.
double abs64(double x) noexcept { return double_from_bits(bits64_of(x) & ~kSignBit64); }
double with_sign_of(double magnitude, double sign_source) noexcept {
  return double_from_bits(bits64_of(magnitude) | (bits64_of(sign_source) & kSignBit64));
}

// Section 17.2: e^x - 1 as a double-double, for a finite x with 2^-54 <= |x| <= 40.
DoubleDouble expm1_dd(double x) noexcept {
  const double ax = abs64(x);
  if (ax < 0.3) {
    // No reduction: e^x - 1 = x + x^2/2 + x^3 q, q the Taylor series of section 15.2 step 3.
    const double r = x;
    const double q = detail::exp_taylor_tail(r);
    const double rr = r * r;
    const double tail = (rr * 0.5) + (rr * r) * q;
    return fast_two_sum(r, tail);  // |tail| < 0.2 |r|
  }
  // e^x = 2^k (hi + lo) (section 15.2 steps 2-4, |k| <= 58 here; lo holds the Taylor tail, up to
  // 0.06 hi); t = 2^k hi and tl = 2^k lo are exact (normal powers of two, no underflow); t - 1 by
  // TwoSum, then the sum with tl renormalised by TwoSum so that the low part is below half an ulp
  // of the high part.
  const detail::ExpParts e = detail::exp_parts(x);
  const double scale = detail::power_of_two_f64(e.k);
  const double t = e.hi * scale;
  const double tl = e.lo * scale;
  const DoubleDouble d = two_sum(t, -1.0);
  const DoubleDouble s = two_sum(d.hi, tl);
  return {s.hi, s.lo + d.lo};
}

// Section 17.3: ln(w + c) + n ln 2 for a normal w > 0 and |c| <= 2^-52 w, by the steps of log_f64
// (section 15.3 steps 2-4) on w with the exponent raised by n, and c/w added for the part c that
// w misses (ln(w + c) = ln w + c/w - ..., the next term below 2^-105).
double log_core(double w, double c, int n) noexcept {
  const std::uint64_t u = bits64_of(w);  // w >= 2^-53: normal
  int e = static_cast<int>((u >> 52) & 0x7FFu) - 1023 + n;
  double m = double_from_bits((u & 0x000FFFFFFFFFFFFFull) | 0x3FF0000000000000ull);
  if (m > kSqrt2) {
    m = m * 0.5;
    e = e + 1;
  }
  const double f = m - 1.0;  // exact (proofs/exp64_range_reduction, query D)
  const double s = f / (2.0 + f);
  const double z = s * s;
  const double wz = detail::log_atanh_series(z);
  const double big_r = z * wz;
  const double hfsq = 0.5 * (f * f);
  const double ed = static_cast<double>(e);  // exact
  const double low = (s * (hfsq + big_r) + ed * kLn2Lo) + c / w;
  const double head = ed * kLn2Hi;  // exact
  const double t = head + f;
  const double tc = (head - t) + f;  // Fast2Sum (|head| > |f| when e != 0; t = f when e = 0)
  return t + (tc + (low - hfsq));
}

// ln(1 + u) for u = uh + ul with uh finite, |ul| <= ulp(uh) and uh > -1: w = fl(1 + uh) and its
// error (TwoSum) plus ul as c (w >= 2^-53 is normal).
double log1p_dd(double uh, double ul) noexcept {
  const DoubleDouble w = two_sum(1.0, uh);
  return log_core(w.hi, w.lo + ul, 0);
}

// q = (nh + nl) / (dh + dl) as a double-double: qh = fl(nh / dh), and the remainder
// nh - qh*dh computed exactly (Dekker's product; nh - p is exact, Sterbenz) plus nl - qh*dl.
DoubleDouble divide_dd(double nh, double nl, double dh, double dl) noexcept {
  const double qh = nh / dh;
  const DoubleDouble p = two_prod(qh, dh);
  const double rem = ((nh - p.hi) - p.lo) + (nl - qh * dl);
  return {qh, rem / dh};
}

// sqrt(h + l) as a double-double for h > 0: sh = sqrt(h) (correctly rounded), and the correction
// (h - sh^2 + l) / (2 sh) with sh^2 by Dekker's product.
DoubleDouble sqrt_dd(double h, double l) noexcept {
  const double sh = std::sqrt(h);
  const DoubleDouble p = two_prod(sh, sh);
  return {sh, (((h - p.hi) - p.lo) + l) / (sh + sh)};
}

// e^a / 2 for 22 <= a <= 711 (e^-a / 2 is below 2^-63 of it): 2^(k-1) (hi + lo), one rounding.
double half_exp(double a) noexcept {
  const detail::ExpParts e = detail::exp_parts(a);
  return detail::scale_by_power_of_two_f64(e.hi + e.lo, e.k - 1);
}

// ln(2a) for a finite a >= 2^28: the log steps with the exponent raised by one (no overflow).
double log_twice(double a) noexcept { return log_core(a, 0.0, 1); }

}  // namespace

double expm1_f64(double x) noexcept {
  if (x != x) return canonical_nan64();
  if (x > 40.0) return exp_f64(x);  // e^x > 2^57: the -1 is below 1/16 ulp (inf above 710)
  if (x < -40.0) return -1.0;       // e^x < 2^-57: -1 + e^x rounds to -1
  if (abs64(x) < 0x1p-54) return x;  // x^2/2 < 2^-55 |x|: keeps -0 and subnormals
  const DoubleDouble d = expm1_dd(x);
  return d.hi + d.lo;
}

double log1p_f64(double x) noexcept {
  if (x != x) return canonical_nan64();
  if (x < -1.0) return canonical_nan64();
  if (x == -1.0) return -kInfinity;
  if (x == kInfinity) return x;
  if (abs64(x) < 0x1p-54) return x;  // x^2/2 < 2^-55 |x|: keeps -0 and subnormals
  return log1p_dd(x, 0.0);
}

double sinh_f64(double x) noexcept {
  if (x != x) return canonical_nan64();
  const double a = abs64(x);
  if (a < 0x1p-26) return x;                        // a^3/6 < 2^-54 a
  if (a > 711.0) return with_sign_of(kInfinity, x);  // sinh(711) > DBL_MAX
  if (a >= 22.0) return with_sign_of(half_exp(a), x);
  // sinh a = (t + t / (1 + t)) / 2, t = e^a - 1 as a double-double.
  const DoubleDouble t = expm1_dd(a);
  const DoubleDouble den = two_sum(1.0, t.hi);
  const DoubleDouble q = divide_dd(t.hi, t.lo, den.hi, den.lo + t.lo);
  const DoubleDouble s = two_sum(t.hi, q.hi);
  return with_sign_of((s.hi + (s.lo + (t.lo + q.lo))) * 0.5, x);
}

double cosh_f64(double x) noexcept {
  if (x != x) return canonical_nan64();
  const double a = abs64(x);
  if (a < 0x1p-27) return 1.0;  // a^2/2 < 2^-55
  if (a > 711.0) return kInfinity;
  if (a >= 22.0) return half_exp(a);
  // cosh a = 1 + t^2 / (2 (1 + t)), t = e^a - 1 as a double-double.
  const DoubleDouble t = expm1_dd(a);
  const DoubleDouble t2 = two_prod(t.hi, t.hi);
  const double t2l = t2.lo + (t.hi + t.hi) * t.lo;
  const DoubleDouble one_t = two_sum(1.0, t.hi);
  const DoubleDouble w = divide_dd(t2.hi, t2l, one_t.hi + one_t.hi, (one_t.lo + t.lo) * 2.0);
  const DoubleDouble s = two_sum(1.0, w.hi);
  return s.hi + (s.lo + w.lo);
}

double tanh_f64(double x) noexcept {
  if (x != x) return canonical_nan64();
  const double a = abs64(x);
  if (a < 0x1p-27) return x;                  // a^3/3 < 2^-54 a
  if (a > 22.0) return with_sign_of(1.0, x);  // 1 - tanh a < 2e^-44 < 2^-54 (inf included)
  // tanh a = t / (t + 2), t = e^(2a) - 1 as a double-double (2a exact).
  const DoubleDouble t = expm1_dd(a + a);
  const DoubleDouble den = two_sum(t.hi, 2.0);
  const DoubleDouble q = divide_dd(t.hi, t.lo, den.hi, den.lo + t.lo);
  return with_sign_of(q.hi + q.lo, x);
}

double asinh_f64(double x) noexcept {
  if (x != x) return canonical_nan64();
  const double a = abs64(x);
  if (a < 0x1p-26) return x;  // a^3/6 < 2^-54 a; keeps -0 and subnormals
  if (a > 0x1p28) {           // a^2 + 1 rounds to a^2: ln(2a) within 2^-58 relative (inf: inf)
    if (a == kInfinity) return x;
    return with_sign_of(log_twice(a), x);
  }
  // asinh a = log1p(a + a^2 / (1 + sqrt(1 + a^2))), the argument as a double-double.
  const DoubleDouble z = two_prod(a, a);
  const DoubleDouble one_z = two_sum(1.0, z.hi);
  const DoubleDouble r = sqrt_dd(one_z.hi, one_z.lo + z.lo);
  const DoubleDouble den = two_sum(1.0, r.hi);
  const DoubleDouble q = divide_dd(z.hi, z.lo, den.hi, den.lo + r.lo);
  const DoubleDouble u = fast_two_sum(a, q.hi);  // q < a
  return with_sign_of(log1p_dd(u.hi, u.lo + q.lo), x);
}

double acosh_f64(double x) noexcept {
  if (x != x) return canonical_nan64();
  if (x < 1.0) return canonical_nan64();
  if (x == 1.0) return 0.0;
  if (x > 0x1p28) {
    if (x == kInfinity) return x;
    return log_twice(x);
  }
  // acosh x = log1p(t + sqrt(t^2 + 2t)), t = x - 1 (exact: 1 <= x < 2^53), the argument and the
  // radicand as double-doubles (2t exact).
  const double t = x - 1.0;
  const DoubleDouble tt = two_prod(t, t);
  const DoubleDouble rad = two_sum(t + t, tt.hi);
  const DoubleDouble r = sqrt_dd(rad.hi, rad.lo + tt.lo);
  const DoubleDouble u = two_sum(t, r.hi);
  return log1p_dd(u.hi, u.lo + r.lo);
}

double atanh_f64(double x) noexcept {
  if (x != x) return canonical_nan64();
  const double a = abs64(x);
  if (a > 1.0) return canonical_nan64();
  if (a == 1.0) return with_sign_of(kInfinity, x);
  if (a < 0x1p-27) return x;  // a^3/3 < 2^-54 a
  // atanh a = log1p(2a / (1 - a)) / 2, the quotient as a double-double (2a exact).
  const DoubleDouble d = two_sum(1.0, -a);
  const DoubleDouble q = divide_dd(a + a, 0.0, d.hi, d.lo);
  return with_sign_of(0.5 * log1p_dd(q.hi, q.lo), x);
}

double sigmoid_f64(double x) noexcept {
  // Section 15.4: s = e^-|x| (0 - |x|: a NaN stays NaN and exp_f64 makes it canonical);
  // num = 1 for x >= 0 (-0 included), else s; the result is num / (1 + s).
  const double ax = x < 0.0 ? -x : x;
  const double s = exp_f64(0.0 - ax);
  const double num = x >= 0.0 ? 1.0 : s;
  return num / (1.0 + s);
}

}  // namespace onemodel::exact
