// sin, cos, tan: spec/exact-transcendentals.md section 11. Binary64 steps, one final rounding.
#include "reference/math/exact_trig.hpp"

#include <cstdint>

#include "reference/math/float_bits.hpp"

namespace onemodel::exact {
namespace trig_detail {

// Bits 1..256 after the binary point of 2/pi, most significant first (section 11.2; generated
// with mpmath at 400 bits and checked against MPFR's pi by tests/unit/exact_trig_test.cpp).
// Index 0 is 32 zero bits standing for b_-31..b_0, so that windows that start before the point
// (arguments below 2^26) need no special case.
constexpr std::uint32_t kTwoOverPi[9] = {0x00000000u, 0xA2F9836Eu, 0x4E441529u,
                                         0xFC2757D1u, 0xF534DDC0u, 0xDB629599u,
                                         0x3C439041u, 0xFE5163ABu, 0xDEBBC561u};

constexpr double kPiOver2 = 1.5707963267948966;  // 0x3FF921FB54442D18, the double nearest pi/2
constexpr double kTwoToMinus30 = 9.3132257461547852e-10;    // 2^-30
constexpr double kTwoToMinus32 = 2.3283064365386963e-10;    // 2^-32

Reduced reduce_quarter_turns(float ax) noexcept {
  // Step 1: ax = m * 2^s, m the 24-bit integer significand, s = E - 150 (E the biased exponent;
  // ax >= 0.78125 is normal, so E >= 126).
  const std::uint32_t u = detail::bits_of(ax);
  const std::uint32_t biased = (u >> 23) & 0xFFu;
  // Outside the precondition (finite, at least 0.78125) the table window would leave the table:
  // such a call gets quadrant 0 and f = 0 instead of reading out of bounds.
  if (biased < 126u || biased > 254u) return {0u, 0.0};
  const std::uint64_t m = (u & 0x007FFFFFu) | 0x00800000u;
  // Step 2: W = the 128 bits b_(s-1) .. b_(s+126) of 2/pi (b_i = 0 for i <= 0). Bits before
  // b_(s-1) contribute multiples of 4 to ax * 2/pi and are dropped. In the padded table b_i sits at
  // bit position i + 31, so the window starts at position s + 30 = E - 120, in [6, 134].
  const std::uint32_t pos = biased - 120u;
  const std::uint32_t word = pos >> 5;
  const std::uint32_t shift = pos & 31u;
  std::uint32_t w[4];
  for (std::uint32_t j = 0; j < 4; ++j) {
    const std::uint32_t a = kTwoOverPi[word + j];
    const std::uint32_t b = kTwoOverPi[word + j + 1];
    w[j] = shift == 0 ? a : (a << shift) | (b >> (32u - shift));
  }
  // Step 3: P = m * W (160 bits, p[0] most significant), exact integer arithmetic: each limb
  // product is below 2^56 and the carry below 2^24, so nothing overflows 64 bits.
  // ax * 2/pi = P / 2^126 (mod 4).
  std::uint32_t p[5];
  std::uint64_t carry = 0;
  for (int j = 3; j >= 0; --j) {
    const std::uint64_t t = m * w[j] + carry;
    p[j + 1] = static_cast<std::uint32_t>(t);
    carry = t >> 32;
  }
  p[0] = static_cast<std::uint32_t>(carry);
  // Step 4: n mod 4 is bits 126-127 of P; the fraction is bits 0-125, as four words F0 (30 bits)
  // and F1, F2, F3. A fraction of 1/2 or more rounds n up: the fraction becomes 2^126 - F, negative.
  std::uint32_t quadrant = (p[1] >> 30) & 3u;
  std::uint32_t frac[4] = {p[1] & 0x3FFFFFFFu, p[2], p[3], p[4]};
  const bool round_up = (frac[0] & 0x20000000u) != 0;
  if (round_up) {
    quadrant = (quadrant + 1u) & 3u;
    // 2^126 - F as (NOT F) + 1 on 126 bits (F > 0 here).
    frac[0] = ~frac[0] & 0x3FFFFFFFu;
    for (int j = 1; j < 4; ++j) frac[j] = ~frac[j];
    std::uint64_t carry_in = 1;
    for (int j = 3; j >= 0; --j) {
      const std::uint64_t t = static_cast<std::uint64_t>(frac[j]) + carry_in;
      frac[j] = static_cast<std::uint32_t>(t);
      carry_in = t >> 32;
    }
  }
  // Step 5: f = F0 2^-30 + F1 2^-62 + F2 2^-94 + F3 2^-126, summed from the largest term: every
  // term is exact (a 32-bit integer times a power of two) and all are non-negative, so the three
  // additions give f within 3 * 2^-53 relative.
  double f = static_cast<double>(frac[0]) * kTwoToMinus30;
  f = f + static_cast<double>(frac[1]) * (kTwoToMinus30 * kTwoToMinus32);
  f = f + static_cast<double>(frac[2]) * (kTwoToMinus30 * kTwoToMinus32 * kTwoToMinus32);
  f = f + static_cast<double>(frac[3]) *
              (kTwoToMinus30 * kTwoToMinus32 * kTwoToMinus32 * kTwoToMinus32);
  return {quadrant, round_up ? -f : f};
}

// Section 11.3: Taylor polynomials; on |r| <= pi/4 the first omitted term is below 2^-63 (sine)
// and 2^-58 (cosine) relative. Coefficients: the doubles nearest +-1/n!.
double sin_core(double r) noexcept {
  const double z = r * r;
  double s = 2.8114572543455206e-15;  // 1/17!
  s = s * z - 7.647163731819816e-13;  // 1/15!
  s = s * z + 1.6059043836821613e-10;  // 1/13!
  s = s * z - 2.505210838544172e-08;  // 1/11!
  s = s * z + 2.7557319223985893e-06;  // 1/9!
  s = s * z - 0.0001984126984126984;  // 1/7!
  s = s * z + 0.008333333333333333;  // 1/5!
  s = s * z - 0.16666666666666666;  // 1/3!
  return r + (r * z) * s;
}

double cos_core(double r) noexcept {
  const double z = r * r;
  double c = 4.779477332387385e-14;  // 1/16!
  c = c * z - 1.1470745597729725e-11;  // 1/14!
  c = c * z + 2.08767569878681e-09;  // 1/12!
  c = c * z - 2.755731922398589e-07;  // 1/10!
  c = c * z + 2.48015873015873e-05;  // 1/8!
  c = c * z - 0.001388888888888889;  // 1/6!
  c = c * z + 0.041666666666666664;  // 1/4!
  c = c * z - 0.5;  // 1/2!
  return 1.0 + z * c;
}

}  // namespace trig_detail

namespace {

using trig_detail::cos_core;
using trig_detail::sin_core;

constexpr float kNoReductionBelow = 0.78125f;  // 0x3F480000, below pi/4: r = x, quadrant 0

// Section 11.1: r and the quadrant for |x|.
struct Quarter {
  std::uint32_t quadrant;
  double r;
};

Quarter quarter_of(float ax) noexcept {
  if (ax < kNoReductionBelow) return {0u, static_cast<double>(ax)};
  const trig_detail::Reduced red = trig_detail::reduce_quarter_turns(ax);
  return {red.quadrant, red.f * trig_detail::kPiOver2};
}

bool finite(float x) noexcept { return (detail::bits_of(x) & 0x7F800000u) != 0x7F800000u; }

}  // namespace

float sin(float x) noexcept {
  const float ax = detail::abs_bits(x);
  if (!finite(x)) return detail::canonical_nan();
  const Quarter q = quarter_of(ax);
  // sin(|x|) by quadrant: sin r, cos r, -sin r, -cos r.
  double v = (q.quadrant & 1u) ? cos_core(q.r) : sin_core(q.r);
  if (q.quadrant & 2u) v = -v;
  if (detail::bits_of(x) & detail::kSignBit) v = -v;
  return static_cast<float>(v);
}

float cos(float x) noexcept {
  const float ax = detail::abs_bits(x);
  if (!finite(x)) return detail::canonical_nan();
  const Quarter q = quarter_of(ax);
  // cos(|x|) by quadrant: cos r, -sin r, -cos r, sin r.
  double v = (q.quadrant & 1u) ? sin_core(q.r) : cos_core(q.r);
  if (((q.quadrant + 1u) & 2u) != 0) v = -v;
  return static_cast<float>(v);
}

float tan(float x) noexcept {
  const float ax = detail::abs_bits(x);
  if (!finite(x)) return detail::canonical_nan();
  const Quarter q = quarter_of(ax);
  // tan(|x|): sin r / cos r in even quadrants, -cos r / sin r in odd ones (one division).
  const double s = sin_core(q.r);
  const double c = cos_core(q.r);
  double v = (q.quadrant & 1u) ? -(c / s) : s / c;
  if (detail::bits_of(x) & detail::kSignBit) v = -v;
  return static_cast<float>(v);
}

}  // namespace onemodel::exact
