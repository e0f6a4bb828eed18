// The exact binary64 erf and 1 + erf: spec/exact-transcendentals.md section 17.5. Every line is one
// step of that section, evaluated as written (one rounding per operator, no fused multiply-add).
#include <cmath>
#include <cstdint>

#include "reference/math/double_double.hpp"
#include "reference/math/exact_exp64_parts.hpp"
#include "reference/math/exact_hyperbolic64.hpp"
#include "reference/math/float_bits.hpp"

namespace onemodel::exact {
namespace {

using detail::bits64_of;
using detail::double_from_bits;
using detail::DoubleDouble;
using detail::two_prod;
using detail::two_sum;

constexpr std::uint64_t kSignBit64 = 0x8000000000000000ull;

// 2/sqrt(pi) = C0H + C0L (C0H the nearest double, C0L the nearest double to the rest);
// 1/sqrt(pi) = C0H/2 + C0L/2 (exact halvings).
constexpr double kC0Hi = 0x1.20dd750429b6dp+0;   // 1.1283791670955126
constexpr double kC0Lo = 0x1.1ae3a914fed80p-56;  // 1.533545961316588e-17
constexpr double kInvSqrtPiHi = 0x1.20dd750429b6dp-1;
constexpr double kInvSqrtPiLo = 0x1.1ae3a914fed80p-57;

double abs64(double x) noexcept { return double_from_bits(bits64_of(x) & ~kSignBit64); }
double with_sign_of(double magnitude, double sign_source) noexcept {
  return double_from_bits(bits64_of(magnitude) | (bits64_of(sign_source) & kSignBit64));
}

// Section 17.5 step 1: erf(a) for 0 <= a < 1 by its Taylor series,
// erf a = a (2/sqrt(pi)) sum_n (-1)^n a^(2n) / (n! (2n + 1)); the coefficients c_n for n = 1..18 are
// the doubles nearest (2/sqrt(pi)) (-1)^n / (n! (2n + 1)); the first omitted term, n = 19, is below
// 2^-64 relative for a < 1.
DoubleDouble erf_small(double a) noexcept {
  if (a < 0x1p-1000) return {a * kC0Hi, 0.0};  // the other terms are far below the subnormal spacing
  // z = a^2 = zh + zl exactly (Dekker's product); q = c2 + c3 zh + ... + c18 zh^16 by Horner.
  const DoubleDouble z = two_prod(a, a);
  double q = 0x1.5f7919bc67b8cp-58;     // c18
  q = q * z.hi - 0x1.a2007af3447f6p-54;  // c17
  q = q * z.hi + 0x1.d70b3537f4765p-50;  // c16
  q = q * z.hi - 0x1.f56f071a885cfp-46;  // c15
  q = q * z.hi + 0x1.f683ae4a97007p-42;  // c14
  q = q * z.hi - 0x1.d8453cb0c46eap-38;  // c13
  q = q * z.hi + 0x1.9e6ad5e55a730p-34;  // c12
  q = q * z.hi - 0x1.51d7181c5d36dp-30;  // c11
  q = q * z.hi + 0x1.fcc5720624c1cp-27;  // c10
  q = q * z.hi - 0x1.5f742ec43e71ap-23;  // c9
  q = q * z.hi + 0x1.b9e6c9dc651a3p-20;  // c8
  q = q * z.hi - 0x1.f4d25c3e0c2ebp-17;  // c7
  q = q * z.hi + 0x1.f9a326f9b89b7p-14;  // c6
  q = q * z.hi - 0x1.c02db40040b86p-11;  // c5
  q = q * z.hi + 0x1.565bcd0e6a53fp-8;   // c4
  q = q * z.hi - 0x1.b82ce31288b51p-6;   // c3
  q = q * z.hi + 0x1.ce2f21a042be2p-4;   // c2
  // S = C0H + C1 z + (C0L + z^2 q): C1 zh exact (Dekker), C0H + C1 zh by TwoSum, the rest (C1 zl
  // and the higher terms, at most 0.13 of S) added to the low part.
  constexpr double kC1 = -0x1.812746b0379e7p-2;
  const DoubleDouble c1z = two_prod(kC1, z.hi);
  const DoubleDouble s = two_sum(kC0Hi, c1z.hi);
  const double s_lo = s.lo + (c1z.lo + (kC1 * z.lo + (kC0Lo + (z.hi * z.hi) * q)));
  // erf a = a S: a S.hi exact (Dekker), a s_lo added to its error (erf = hi + lo rounds once).
  const DoubleDouble p = two_prod(a, s.hi);
  return {p.hi, p.lo + a * s_lo};
}

// Section 17.5 step 2: F(a) = e^(a^2) erfc(a) on [1, 3) by its Taylor expansion about the centre c
// of each half-unit interval, t = a - c in [-1/4, 1/4): F(c + t) = sum_n A_n t^n with A_0 = F(c)
// and (n + 1) A_(n+1) = 2c A_n + 2 A_(n-1) (from F' = 2aF - 2/sqrt(pi)), computed at 800 bits and
// each rounded once to the nearest double; A_0 also carries the double nearest its rest (A0_LO).
// The first omitted term is below 2^-63 of F.
struct Expansion {
  double centre;
  double a0_lo;
  int count;                // A_0 .. A_(count-1)
  double a[19];
};
constexpr Expansion kExpansions[4] = {
    {1.25, 0x1.4797400f19192p-63, 19,
     {0x1.78a692138767ap-2, -0x1.abaacdbfa8b07p-3, 0x1.b56f45eef7e58p-4, -0x1.9b635ac624ad5p-5,
      0x1.68a25a6641f25p-6, -0x1.299636d6c5895p-7, 0x1.d1b695aabbf6bp-9, -0x1.5b8bc94c61d2dp-10,
      0x1.f0fe6fb5fda5ep-12, -0x1.55c07d22af371p-13, 0x1.c570359a19d26p-15, -0x1.22fc408f50364p-16,
      0x1.6a18bc560a40ap-18, -0x1.b5bc5ccfd1403p-20, 0x1.017d9185d3453p-21, -0x1.274201fbebf43p-23,
      0x1.4a71e1ce3311cp-25, -0x1.69666fd961df6p-27, 0x1.82adfdf5cf154p-29}},
    {1.75, 0x1.3b1040eb318c2p-57, 18,
     {0x1.23cfc2f1dc7e0p-2, -0x1.0c3d538446447p-3, 0x1.c8d0cef0f810dp-5, -0x1.6cb52fe48945fp-6,
      0x1.13648a11ffe73p-7, -0x1.8bf716a8eabedp-9, 0x1.106bd5c04334ap-10, -0x1.6838884ab6b8bp-12,
      0x1.cb4c687e4d0f2p-14, -0x1.1b2912cd41cadp-15, 0x1.5273f3445262bp-17, -0x1.88fb2fa110b91p-19,
      0x1.bc10267a482f5p-21, -0x1.e91dd5a65194ap-23, 0x1.06f141264e473p-24, -0x1.144fb8274128ep-26,
      0x1.1c1cc12a438aap-28, -0x1.1e2406dbca8f8p-30}},
    {2.25, -0x1.a8198a8216449p-58, 17,
     {0x1.d94446d627932p-3, -0x1.6a70d2bb37411p-4, 0x1.0615670e25a7bp-5, -0x1.6883f9919a17ap-7,
      0x1.da595561f7d33p-9, -0x1.2bd251bb2f029p-10, 0x1.6d7743d3b280dp-12, -0x1.aed7ebc99e2e3p-14,
      0x1.ec773cc9261b6p-16, -0x1.117a666464e16p-17, 0x1.27af428d20fc9p-19, -0x1.37b9a5b17b20ep-21,
      0x1.40e78e43749afp-23, -0x1.42fe841c663f4p-25, 0x1.3e37bfe3627e8p-27, -0x1.333166c552de1p-29,
      0x1.22d7ec28c7c33p-31}},
    {2.75, -0x1.bb4e763c64a35p-57, 17,
     {0x1.8c9eb68ff27d7p-3, -0x1.0305781330099p-4, 0x1.43b98bac83823p-6, -0x1.84e9ab30e6ab3p-8,
      0x1.c2c72fd72763ep-10, -0x1.f99e41ecb0904p-12, 0x1.131bb16125574p-13, -0x1.2312b259675c2p-15,
      0x1.2bfb5b0eb91fbp-17, -0x1.2da329c48e885p-19, 0x1.2856fab1e39fep-21, -0x1.1ccf9b63a8d87p-23,
      0x1.0c15ffa3a972dp-25, -0x1.eec74cfbc6a50p-28, 0x1.c006ce85179bcp-30, -0x1.8e6bfdde74154p-32,
      0x1.5c391ff84f9a5p-34}},
};

// F(a) for 1 <= a < 3 as a double-double: the expansion's Horner sum in t (exact: Sterbenz) above
// A_1, then A_0 + t p by Fast2Sum (|t p| < 0.15 A_0) with A0_LO added to the low part.
DoubleDouble scaled_erfc_near(double a) noexcept {
  const Expansion& e = kExpansions[a < 1.5 ? 0 : a < 2.0 ? 1 : a < 2.5 ? 2 : 3];
  const double t = a - e.centre;
  double p = e.a[e.count - 1];
  for (int n = e.count - 2; n >= 1; --n) p = p * t + e.a[n];
  const DoubleDouble s = detail::fast_two_sum(e.a[0], t * p);
  return {s.hi, s.lo + e.a0_lo};
}

// Section 17.5 step 2: erfc(a) for 1 <= a <= 27.3, as e^(-a^2) F(a); for a >= 3
// F(a) = e^(a^2) erfc(a) = (1/sqrt(pi)) / K, K the continued fraction
// a + (1/2) / (a + (2/2) / (a + (3/2) / (a + ...))) cut after n = N(a) levels and evaluated from
// the bottom (each level damps the error of the one below it). N(a) keeps the truncation below
// 2^-62 relative (measured against MPFR at the left end of each range).
int continued_fraction_depth(double a) noexcept {
  if (a < 4.0) return 41;
  if (a < 5.0) return 28;
  if (a < 6.0) return 22;
  return 19;
}

double erfc_large(double a) noexcept {
  double f, f_lo;
  if (a < 3.0) {
    const DoubleDouble near = scaled_erfc_near(a);
    f = near.hi;
    f_lo = near.lo;
  } else {
    double k = a;
    for (int n = continued_fraction_depth(a); n >= 1; --n) k = a + (0.5 * static_cast<double>(n)) / k;
    f = kInvSqrtPiHi / k;
    f_lo = kInvSqrtPiLo / k;
  }
  // a^2 = zh + zl exactly (Dekker's product, Veltkamp splitting); e^-zh = 2^k (hi + lo)
  // (section 15.2 steps 2-4; lo holds the Taylor tail, up to 0.06 hi);
  // e^-(zh + zl) = 2^k (hi + (lo - (hi + lo) zl)) to 2^-88 relative.
  const DoubleDouble z = two_prod(a, a);
  const detail::ExpParts e = detail::exp_parts(-z.hi);
  const double m = e.lo - (e.hi + e.lo) * z.lo;
  // 2^k (hi + m) (f + f_lo) with hi f exact by Dekker's product, rounded once into v, then
  // scaled by 2^k with one more rounding (section 15.2 step 5; also into the subnormal range).
  const DoubleDouble p = two_prod(e.hi, f);
  const double v = p.hi + (p.lo + (m * f + e.hi * f_lo));
  return detail::scale_by_power_of_two_f64(v, e.k);
}

}  // namespace

double erf_f64(double x) noexcept {
  if (x != x) return double_from_bits(0x7FF8000000000000ull);
  const double a = abs64(x);
  double v;
  if (a < 1.0) {
    const DoubleDouble e = erf_small(a);
    v = e.hi + e.lo;
  } else if (a < 6.0) {
    v = 1.0 - erfc_large(a);
  } else {
    v = 1.0;  // erfc(6) < 2^-54: 1 - erfc rounds to 1 (infinity included)
  }
  return with_sign_of(v, x);  // erf is odd; erf(-0) = -0
}

double one_plus_erf_f64(double x) noexcept {
  if (x != x) return double_from_bits(0x7FF8000000000000ull);
  const double a = abs64(x);
  // 1 +- erf(a) for a < 1: TwoSum of 1 and +-hi, the low parts added, one last rounding.
  if (a < 1.0) {
    const DoubleDouble e = erf_small(a);
    const double sign = x >= 0.0 ? 1.0 : -1.0;
    const DoubleDouble s = two_sum(1.0, sign * e.hi);
    return s.hi + (s.lo + sign * e.lo);
  }
  if (x >= 0.0) {
    if (a < 6.0) return 2.0 - erfc_large(a);
    return 2.0;
  }
  // x < 0: 1 + erf(x) = erfc(a), no cancellation once a >= 1.
  if (a <= 27.3) return erfc_large(a);
  return 0.0;  // erfc(27.3) < 2^-1075: rounds to +0 (-infinity included)
}

}  // namespace onemodel::exact
