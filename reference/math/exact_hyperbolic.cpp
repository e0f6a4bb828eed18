// sinh, cosh, asinh, acosh, atanh: spec/exact-transcendentals.md section 12. Binary64 steps built
// on the double exp and ln of exact Pow (section 10.3, 10.4), one final rounding to float32.
#include <cmath>
#include <cstdint>

#include "reference/math/exact_pow.hpp"
#include "reference/math/exact_trig.hpp"
#include "reference/math/float_bits.hpp"

namespace onemodel::exact {
namespace {

using pow_detail::exp_in_range;
using pow_detail::ln;
using trig_detail::log1p;

// float32 sinh and cosh overflow from |x| = 89.416; above 90, e^|x| / 2 > FLT_MAX, so +inf is the
// rounding of the formula's value and exp_in_range (valid up to 710) is not called.
constexpr double kHyperbolicOverflow = 90.0;
constexpr double kSmallSinh = 0.5;  // below: the Taylor polynomial (no cancellation in e^a - e^-a)

bool is_nan(float x) noexcept { return (detail::bits_of(x) & 0x7FFFFFFFu) > 0x7F800000u; }

float infinity() noexcept { return detail::float_from_bits(0x7F800000u); }

float with_sign_of(double magnitude, float x) noexcept {
  return detail::or_sign(static_cast<float>(magnitude), x);
}

}  // namespace

namespace trig_detail {

// Section 12.1: w = 1 + u; u itself when w == 1, else ln(w) * (u / (w - 1)): the quotient
// corrects for the rounding of 1 + u, so the relative error stays a few double ulps near u = 0.
double log1p(double u) noexcept {
  const double w = 1.0 + u;
  if (w == 1.0) return u;
  return ln(w) * (u / (w - 1.0));
}

}  // namespace trig_detail

float sinh(float x) noexcept {
  if (is_nan(x)) return detail::canonical_nan();
  const double a = static_cast<double>(detail::abs_bits(x));
  double v;
  if (a > kHyperbolicOverflow) {
    return detail::or_sign(infinity(), x);
  } else if (a < kSmallSinh) {
    // a + (a z) S(z), z = a^2, S by Horner: the Taylor series to a^15/15! (first omitted term
    // below 2^-64 relative on a < 1/2). Coefficients: the doubles nearest 1/n!.
    const double z = a * a;
    double s = 7.647163731819816e-13;  // 1/15!
    s = s * z + 1.6059043836821613e-10;  // 1/13!
    s = s * z + 2.505210838544172e-08;  // 1/11!
    s = s * z + 2.7557319223985893e-06;  // 1/9!
    s = s * z + 0.0001984126984126984;  // 1/7!
    s = s * z + 0.008333333333333333;  // 1/5!
    s = s * z + 0.16666666666666666;  // 1/3!
    v = a + (a * z) * s;
  } else {
    const double e = exp_in_range(a);
    v = 0.5 * (e - 1.0 / e);
  }
  return with_sign_of(v, x);
}

float cosh(float x) noexcept {
  if (is_nan(x)) return detail::canonical_nan();
  const double a = static_cast<double>(detail::abs_bits(x));
  if (a > kHyperbolicOverflow) return infinity();
  const double e = exp_in_range(a);
  return static_cast<float>(0.5 * (e + 1.0 / e));
}

float asinh(float x) noexcept {
  if (is_nan(x)) return detail::canonical_nan();
  const double a = static_cast<double>(detail::abs_bits(x));
  if (a > 3.4028234663852886e+38) return detail::or_sign(infinity(), x);
  // asinh a = log1p(a + a^2 / (1 + sqrt(1 + a^2))); a^2 <= 2^256 stays finite in double.
  const double z = a * a;
  const double v = log1p(a + z / (1.0 + std::sqrt(1.0 + z)));
  return with_sign_of(v, x);
}

float acosh(float x) noexcept {
  if (is_nan(x) || x < 1.0f) return detail::canonical_nan();
  if (x > 3.40282347e+38f) return infinity();
  // acosh x = log1p(t + sqrt(t (t + 2))), t = x - 1: exact in double for x <= 2^53
  // (proofs/trig_exact_steps), within 2^-53 relative above, where acosh x is ln 2x.
  const double t = static_cast<double>(x) - 1.0;
  return static_cast<float>(log1p(t + std::sqrt(t * (t + 2.0))));
}

float atanh(float x) noexcept {
  if (is_nan(x)) return detail::canonical_nan();
  const float ax = detail::abs_bits(x);
  if (ax > 1.0f) return detail::canonical_nan();
  if (ax == 1.0f) return detail::or_sign(infinity(), x);
  // atanh a = log1p(2a / (1 - a)) / 2; 1 - a is exact in double for a >= 2^-30
  // (proofs/trig_exact_steps), where it matters (near a = 1).
  const double a = static_cast<double>(ax);
  return with_sign_of(0.5 * log1p((a + a) / (1.0 - a)), x);
}

}  // namespace onemodel::exact
