// atan, asin, acos in binary64: spec/exact-transcendentals.md section 16.5. Double-double steps
// (section 16.1) with breakpoints k/8 for atan, one final rounding of a double-double to a double.
#include <cmath>
#include <cstdint>

#include "reference/math/double_double.hpp"
#include "reference/math/exact_trig64.hpp"
#include "reference/math/float_bits.hpp"

namespace onemodel::exact {
namespace {

using trig64_detail::DoubleDouble;
using trig64_detail::dd_add;
using trig64_detail::dd_div;
using trig64_detail::dd_mul;
using trig64_detail::dd_mul_d;
using trig64_detail::dd_neg;
using trig64_detail::dd_sqrt;

constexpr std::uint64_t kCanonicalNan64 = 0x7FF8000000000000ull;
constexpr std::uint64_t kSign64 = 0x8000000000000000ull;

// pi/2 (0x3FF921FB54442D18 + 0x3C91A62633145C07); the double nearest pi (0x400921FB54442D18).
constexpr DoubleDouble kPiOver2 = {1.5707963267948966, 6.123233995736766e-17};
constexpr double kPi = 3.141592653589793;
constexpr DoubleDouble kOneThird = {0.3333333333333333, 1.850371707708594e-17};  // 1/3
constexpr DoubleDouble kOneFifth = {0.2, -1.1102230246251566e-17};               // 1/5
constexpr DoubleDouble kOneSeventh = {0.14285714285714285, 7.93016446160826e-18};  // 1/7
constexpr DoubleDouble kOneNinth = {0.1111111111111111, 6.1679056923619804e-18};   // 1/9
constexpr DoubleDouble kOneEleventh = {0.09090909090909091, -2.523234146875356e-18};  // 1/11

// atan(k/8) for k = 0..8 as double-doubles (mpmath at 300 bits, checked by the MPFR tests).
constexpr DoubleDouble kAtanOfEighths[9] = {
    {0.0, 0.0},
    {0.12435499454676144, -3.1253241424539383e-18},  // 0x3FBFD5BA9AAC2F6E 0xBC4CD37686760C17
    {0.24497866312686414, 1.0698755618734451e-17},   // 0x3FCF5B75F92C80DD 0x3C68AB6E3CF7AFBD
    {0.35877067027057225, -2.4623815582638635e-17},  // 0x3FD6F61941E4DEF1 0xBC7C63AAE6F6E918
    {0.4636476090008061, 2.2698777452961687e-17},    // 0x3FDDAC670561BB4F 0x3C7A2B7F222F65E2
    {0.5585993153435624, -5.4556305485916264e-18},   // 0x3FE1E00BABDEFEB4 0xBC5928DF287A668F
    {0.6435011087932844, 1.5834785051444286e-17},    // 0x3FE4978FA3269EE1 0x3C72419A87F2A458
    {0.7188299996216245, -2.1478388444456983e-17},   // 0x3FE700A7C5784634 0xBC78C34D25AADEF6
    {0.7853981633974483, 3.061616997868383e-17},     // 0x3FE921FB54442D18 0x3C81A62633145C07
};

// Above 2^60 (0x43B0000000000000) atan rounds to the double nearest pi/2; below 2^-27
// (0x3E40000000000000) atan x rounds to x; below 2^-26 (0x3E50000000000000) asin x rounds to x.
constexpr double kAtanHuge = 1152921504606846976.0;
constexpr double kAtanTiny = 7.4505805969238281e-09;
constexpr double kAsinTiny = 1.4901161193847656e-08;

bool is_nan(double x) noexcept { return (detail::bits64_of(x) & ~kSign64) > 0x7FF0000000000000ull; }
bool negative(double x) noexcept { return (detail::bits64_of(x) & kSign64) != 0; }
double abs64(double x) noexcept { return detail::double_from_bits(detail::bits64_of(x) & ~kSign64); }
double canonical_nan64() noexcept { return detail::double_from_bits(kCanonicalNan64); }

// Section 16.5 step 2: atan t for a double-double 0 <= t <= 1 (t.hi <= 1). k = nearest integer to
// 8 t.hi, c = k/8, u = (t - c) / (1 + t c) with |u| <= 1/16; atan t = atan c + atan u, and
// atan u = u + u w P(w), w = u^2, P = -1/3 + w (1/5 + w (-1/7 + w (1/9 + w (-1/11 + w Q(w))))),
// Q = 1/13 - w/15 (first omitted term w^8/17 below 2^-68 relative): Q in double (its rounding
// errors weigh below 2^-88 relative), the rest in double-double.
DoubleDouble atan_unit(DoubleDouble t) noexcept {
  const int k = static_cast<int>(t.hi * 8.0 + 0.5);  // 0..8, exact truncation of a value >= 0.5
  const double c = static_cast<double>(k) * 0.125;   // exact
  const DoubleDouble u = dd_div(dd_add(t, {-c, 0.0}), dd_add({1.0, 0.0}, dd_mul_d(t, c)));
  const DoubleDouble ww = dd_mul(u, u);
  const double w = ww.hi;
  double q = -1.0 / 15.0;
  q = q * w + 1.0 / 13.0;
  DoubleDouble p = dd_add(dd_neg(kOneEleventh), dd_mul_d(ww, q));
  p = dd_add(kOneNinth, dd_mul(ww, p));
  p = dd_add(dd_neg(kOneSeventh), dd_mul(ww, p));
  p = dd_add(kOneFifth, dd_mul(ww, p));
  p = dd_add(dd_neg(kOneThird), dd_mul(ww, p));
  const DoubleDouble atan_u = dd_add(u, dd_mul(dd_mul(u, ww), p));
  return dd_add(kAtanOfEighths[k], atan_u);
}

// Section 16.5 step 1: atan t for a double-double t >= 0 with t.hi <= 2^60; above 1,
// atan t = pi/2 - atan(1/t).
DoubleDouble atan_dd(DoubleDouble t) noexcept {
  if (t.hi > 1.0) return dd_add(kPiOver2, dd_neg(atan_unit(dd_div({1.0, 0.0}, t))));
  return atan_unit(t);
}

}  // namespace

double atan_f64(double x) noexcept {
  if (is_nan(x)) return canonical_nan64();
  const double a = abs64(x);
  if (a < kAtanTiny) return x;  // keeps -0 and subnormals
  const double v = a > kAtanHuge ? kPiOver2.hi : atan_dd({a, 0.0}).hi;  // +-inf included
  return negative(x) ? -v : v;
}

double asin_f64(double x) noexcept {
  if (is_nan(x)) return canonical_nan64();
  const double a = abs64(x);
  if (a > 1.0) return canonical_nan64();
  if (a < kAsinTiny) return x;
  // asin a = atan(a / sqrt((1 - a)(1 + a))), every step in double-double; a = 1: pi/2.
  double v = kPiOver2.hi;
  if (a < 1.0) {
    const DoubleDouble d = dd_mul(dd_add({1.0, 0.0}, {-a, 0.0}), dd_add({1.0, 0.0}, {a, 0.0}));
    v = atan_dd(dd_div({a, 0.0}, dd_sqrt(d))).hi;
  }
  return negative(x) ? -v : v;
}

double acos_f64(double x) noexcept {
  if (is_nan(x)) return canonical_nan64();
  if (abs64(x) > 1.0) return canonical_nan64();
  if (x == 1.0) return 0.0;
  if (x == -1.0) return kPi;
  // acos x = 2 atan(sqrt((1 - x) / (1 + x))), every step in double-double.
  const DoubleDouble ratio = dd_div(dd_add({1.0, 0.0}, {-x, 0.0}), dd_add({1.0, 0.0}, {x, 0.0}));
  return dd_mul_d(atan_dd(dd_sqrt(ratio)), 2.0).hi;
}

}  // namespace onemodel::exact
