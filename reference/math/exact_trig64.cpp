// sin, cos, tan in binary64: spec/exact-transcendentals.md sections 16.2-16.4. An exact integer
// (Payne-Hanek) reduction by pi/2 for every finite double, double-double kernels, one final
// rounding of a double-double to a double.
#include "reference/math/exact_trig64.hpp"

#include <cstdint>

#include "reference/math/double_double.hpp"
#include "reference/math/float_bits.hpp"

namespace onemodel::exact {
namespace trig64_detail {
namespace {

// Bits 1..1280 after the binary point of 2/pi, most significant first, behind two zero words
// that stand for b_-63..b_0 (section 16.2; generated with mpmath at 1600 bits and checked against
// MPFR's pi by tests/unit/exact_trig64_test.cpp, ReductionMatchesMpfrPi). b_i sits at bit position
// i + 63 counted from the top of word 0.
constexpr std::uint32_t kTwoOverPi[42] = {
    0x00000000u, 0x00000000u, 0xA2F9836Eu, 0x4E441529u, 0xFC2757D1u, 0xF534DDC0u, 0xDB629599u,
    0x3C439041u, 0xFE5163ABu, 0xDEBBC561u, 0xB7246E3Au, 0x424DD2E0u, 0x06492EEAu, 0x09D1921Cu,
    0xFE1DEB1Cu, 0xB129A73Eu, 0xE88235F5u, 0x2EBB4484u, 0xE99C7026u, 0xB45F7E41u, 0x3991D639u,
    0x835339F4u, 0x9C845F8Bu, 0xBDF9283Bu, 0x1FF897FFu, 0xDE05980Fu, 0xEF2F118Bu, 0x5A0A6D1Fu,
    0x6D367ECFu, 0x27CB09B7u, 0x4F463F66u, 0x9E5FEA2Du, 0x7527BAC7u, 0xEBE5F17Bu, 0x3D0739F7u,
    0x8A5292EAu, 0x6BFB5FB1u, 0x1F8D5D08u, 0x56033046u, 0xFC7B6BABu, 0xF0CFBC20u, 0x9AF4361Du};

// pi/2 as a double-double: 0x3FF921FB54442D18 + 0x3C91A62633145C07.
constexpr DoubleDouble kPiOver2 = {1.5707963267948966, 6.123233995736766e-17};

// 2^-32, the weight step between two 32-bit words of the fraction.
constexpr double kTwoToMinus32 = 2.3283064365386963e-10;

}  // namespace

Reduced reduce_quarter_turns(double a) noexcept {
  const std::uint64_t u = detail::bits64_of(a);
  const std::uint32_t biased = static_cast<std::uint32_t>(u >> 52) & 0x7FFu;
  // Outside the precondition (finite, at least 0.5) the table window would leave the table: such a
  // call gets quadrant 0 and f = 0 instead of reading out of bounds. The sign bit is not read.
  if (biased < 1022u || biased > 2046u) return {0u, {0.0, 0.0}};
  // Step 1: a = m * 2^s, m the 53-bit integer significand, s = E - 1075 in [-53, 971].
  const std::uint64_t m = (u & 0x000FFFFFFFFFFFFFull) | 0x0010000000000000ull;
  const std::uint64_t m_lo = m & 0xFFFFFFFFull;
  const std::uint64_t m_hi = m >> 32;  // below 2^21
  // Step 2: W = the 256 bits b_(s-1) .. b_(s+254), at table position s + 62 = E - 1013 in [9, 1033].
  const std::uint32_t pos = biased - 1013u;
  const std::uint32_t word = pos >> 5;
  const std::uint32_t shift = pos & 31u;
  std::uint64_t w[8];  // w[0] least significant
  for (std::uint32_t j = 0; j < 8; ++j) {
    const std::uint32_t hi = kTwoOverPi[word + 7 - j];
    const std::uint32_t lo = kTwoOverPi[word + 8 - j];
    w[j] = shift == 0 ? hi : static_cast<std::uint32_t>((hi << shift) | (lo >> (32u - shift)));
  }
  // Step 3: P = m * W exactly (at most 309 bits, ten 32-bit limbs, acc[0] least significant).
  // Each limb collects at most four 32-bit pieces before the carry pass, so nothing overflows.
  std::uint64_t acc[10] = {};
  for (int j = 0; j < 8; ++j) {
    const std::uint64_t low_product = m_lo * w[j];
    const std::uint64_t high_product = m_hi * w[j];
    acc[j] += low_product & 0xFFFFFFFFull;
    acc[j + 1] += (low_product >> 32) + (high_product & 0xFFFFFFFFull);
    acc[j + 2] += high_product >> 32;
  }
  for (int j = 0; j < 9; ++j) {
    acc[j + 1] += acc[j] >> 32;
    acc[j] &= 0xFFFFFFFFull;
  }
  // Step 4: a * 2/pi = P / 2^254 + (a multiple of 4) + e, 0 <= e < 2^-201. n mod 4 is bits
  // 254-255 of P; the fraction F is bits 0-253. F >= 2^253 (fraction >= 1/2) rounds n up: the
  // fraction becomes 2^254 - F, negative.
  std::uint32_t quadrant = static_cast<std::uint32_t>(acc[7] >> 30) & 3u;
  std::uint32_t frac[8];  // frac[0] most significant (30 bits), frac[7] least
  frac[0] = static_cast<std::uint32_t>(acc[7]) & 0x3FFFFFFFu;
  for (int j = 1; j < 8; ++j) frac[j] = static_cast<std::uint32_t>(acc[7 - j]);
  const bool round_up = (frac[0] & 0x20000000u) != 0;
  if (round_up) {
    quadrant = (quadrant + 1u) & 3u;
    // 2^254 - F as (NOT F) + 1 on 254 bits (F > 0 here).
    frac[0] = ~frac[0] & 0x3FFFFFFFu;
    for (int j = 1; j < 8; ++j) frac[j] = ~frac[j];
    std::uint64_t carry = 1;
    for (int j = 7; j >= 0; --j) {
      const std::uint64_t t = static_cast<std::uint64_t>(frac[j]) + carry;
      frac[j] = static_cast<std::uint32_t>(t);
      carry = t >> 32;
    }
  }
  // Step 5: f = sum of frac[j] * 2^(-30 - 32j), largest first, each term exact, accumulated as a
  // double-double: every TwoSum is exact, only the low parts round (relative error below 2^-103).
  DoubleDouble f = {0.0, 0.0};
  double weight = 9.3132257461547852e-10;  // 2^-30
  for (int j = 0; j < 8; ++j) {
    const DoubleDouble s = two_sum(f.hi, static_cast<double>(frac[j]) * weight);
    f = fast_two_sum(s.hi, s.lo + f.lo);
    weight = weight * kTwoToMinus32;  // exact: a power of two, at least 2^-254
  }
  if (round_up) f = dd_neg(f);
  return {quadrant, f};
}

namespace {

// Section 16.3: sin(x) for a double-double x with |x| <= pi/4 + 2^-60: x + x z P(z), z = x^2,
// P = -1/3! + z (1/5! + z (-1/7! + z (1/9! + z (-1/11! + z Q(z))))), Q = 1/13! - z/15! + z^2/17!
// - z^3/19!: Q in double (Horner; its rounding errors weigh below 2^-90 relative), the rest in
// double-double. First omitted term below 2^-72 relative.
constexpr DoubleDouble kInvFact3 = {0.16666666666666666, 9.25185853854297e-18};       // 1/6
constexpr DoubleDouble kInvFact5 = {0.008333333333333333, 1.1564823173178714e-19};    // 1/120
constexpr DoubleDouble kInvFact4 = {0.041666666666666664, 2.3129646346357427e-18};    // 1/24
constexpr DoubleDouble kInvFact6 = {0.001388888888888889, -5.300543954373577e-20};    // 1/720
constexpr DoubleDouble kInvFact7 = {0.0001984126984126984, 1.7209558293420705e-22};   // 1/5040
constexpr DoubleDouble kInvFact8 = {2.48015873015873e-05, 2.1511947866775882e-23};     // 1/8!
constexpr DoubleDouble kInvFact9 = {2.7557319223985893e-06, -1.858393274046472e-22};   // 1/9!
constexpr DoubleDouble kInvFact10 = {2.755731922398589e-07, 2.3767714622250297e-23};   // 1/10!
constexpr DoubleDouble kInvFact11 = {2.505210838544172e-08, -1.448814070935912e-24};   // 1/11!

DoubleDouble sin_kernel(DoubleDouble x) noexcept {
  const DoubleDouble zz = dd_mul(x, x);
  const double z = zz.hi;
  double q = -1.0 / 121645100408832000.0;  // 1/19!
  q = q * z + 1.0 / 355687428096000.0;     // 1/17!
  q = q * z - 1.0 / 1307674368000.0;       // 1/15!
  q = q * z + 1.0 / 6227020800.0;          // 1/13!
  DoubleDouble p = dd_add(dd_neg(kInvFact11), dd_mul_d(zz, q));
  p = dd_add(kInvFact9, dd_mul(zz, p));
  p = dd_add(dd_neg(kInvFact7), dd_mul(zz, p));
  p = dd_add(kInvFact5, dd_mul(zz, p));
  p = dd_add(dd_neg(kInvFact3), dd_mul(zz, p));
  return dd_add(x, dd_mul(dd_mul(x, zz), p));
}

// cos(x) = 1 + z (-1/2 + z (1/4! + z (-1/6! + z (1/8! + z (-1/10! + z Q(z)))))),
// Q = 1/12! - z/14! + ... + z^4/20!: Q in double (Horner; its rounding errors weigh below 2^-88
// relative), the rest in double-double. First omitted term below 2^-77.
DoubleDouble cos_kernel(DoubleDouble x) noexcept {
  const DoubleDouble zz = dd_mul(x, x);
  const double z = zz.hi;
  double q = 1.0 / 2432902008176640000.0;  // 1/20!
  q = q * z - 1.0 / 6402373705728000.0;    // 1/18!
  q = q * z + 1.0 / 20922789888000.0;      // 1/16!
  q = q * z - 1.0 / 87178291200.0;         // 1/14!
  q = q * z + 1.0 / 479001600.0;           // 1/12!
  DoubleDouble p = dd_add(dd_neg(kInvFact10), dd_mul_d(zz, q));
  p = dd_add(kInvFact8, dd_mul(zz, p));
  p = dd_add(dd_neg(kInvFact6), dd_mul(zz, p));
  p = dd_add(kInvFact4, dd_mul(zz, p));
  p = dd_add({-0.5, 0.0}, dd_mul(zz, p));
  return dd_add({1.0, 0.0}, dd_mul(zz, p));
}

}  // namespace
}  // namespace trig64_detail

namespace {

using trig64_detail::DoubleDouble;

constexpr std::uint64_t kCanonicalNan64 = 0x7FF8000000000000ull;
constexpr std::uint64_t kSign64 = 0x8000000000000000ull;
// Below 2^-27 (0x3E40000000000000) sin x and tan x round to x and cos x to 1 (section 16.3).
constexpr double kTiny = 7.4505805969238281e-09;
// Below 0.78125 (0x3FE9000000000000, under pi/4) no reduction: r = |x|, quadrant 0.
constexpr double kNoReductionBelow = 0.78125;

struct Quarter {
  std::uint32_t quadrant;
  DoubleDouble r;
};

// Section 16.3 step 2: |x| = n pi/2 + r, r a double-double with |r| <= pi/4 (a >= 2^-27 finite).
Quarter quarter_of(double a) noexcept {
  if (a < kNoReductionBelow) return {0u, {a, 0.0}};
  const trig64_detail::Reduced red = trig64_detail::reduce_quarter_turns(a);
  return {red.quadrant, trig64_detail::dd_mul(red.f, trig64_detail::kPiOver2)};
}

bool is_finite(double x) noexcept {
  return (detail::bits64_of(x) & 0x7FF0000000000000ull) != 0x7FF0000000000000ull;
}

bool negative(double x) noexcept { return (detail::bits64_of(x) & kSign64) != 0; }

double abs64(double x) noexcept { return detail::double_from_bits(detail::bits64_of(x) & ~kSign64); }

}  // namespace

double sin_f64(double x) noexcept {
  if (!is_finite(x)) return detail::double_from_bits(kCanonicalNan64);
  const double a = abs64(x);
  if (a < kTiny) return x;  // keeps -0 and subnormals
  const Quarter q = quarter_of(a);
  // sin(|x|) by quadrant: sin r, cos r, -sin r, -cos r.
  double v = (q.quadrant & 1u) ? trig64_detail::cos_kernel(q.r).hi : trig64_detail::sin_kernel(q.r).hi;
  if (q.quadrant & 2u) v = -v;
  return negative(x) ? -v : v;
}

double cos_f64(double x) noexcept {
  if (!is_finite(x)) return detail::double_from_bits(kCanonicalNan64);
  const double a = abs64(x);
  if (a < kTiny) return 1.0;
  const Quarter q = quarter_of(a);
  // cos(|x|) by quadrant: cos r, -sin r, -cos r, sin r.
  double v = (q.quadrant & 1u) ? trig64_detail::sin_kernel(q.r).hi : trig64_detail::cos_kernel(q.r).hi;
  if (((q.quadrant + 1u) & 2u) != 0) v = -v;
  return v;
}

double tan_f64(double x) noexcept {
  if (!is_finite(x)) return detail::double_from_bits(kCanonicalNan64);
  const double a = abs64(x);
  if (a < kTiny) return x;
  const Quarter q = quarter_of(a);
  // tan(|x|): sin r / cos r in even quadrants, -(cos r / sin r) in odd ones, a double-double
  // quotient (sin r is not 0 for odd quadrants: no non-zero double is a multiple of pi/2).
  const DoubleDouble s = trig64_detail::sin_kernel(q.r);
  const DoubleDouble c = trig64_detail::cos_kernel(q.r);
  const double v = (q.quadrant & 1u) ? -trig64_detail::dd_div(c, s).hi : trig64_detail::dd_div(s, c).hi;
  return negative(x) ? -v : v;
}

}  // namespace onemodel::exact
