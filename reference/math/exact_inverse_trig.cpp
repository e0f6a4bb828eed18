// atan, asin, acos: spec/exact-transcendentals.md section 13. Binary64 steps (+ - * / and the
// correctly rounded sqrt), one final rounding to float32.
#include <cmath>
#include <cstdint>

#include "reference/math/exact_trig.hpp"
#include "reference/math/float_bits.hpp"

namespace onemodel::exact {
namespace {

constexpr double kPiOver2 = 1.5707963267948966;  // 0x3FF921FB54442D18, the double nearest pi/2
constexpr double kPi = 3.141592653589793;        // 0x400921FB54442D18, the double nearest pi

bool is_nan(float x) noexcept { return (detail::bits_of(x) & 0x7FFFFFFFu) > 0x7F800000u; }

// Section 13.1 steps 2-3: atan t for 0 <= t <= 1. Three halvings t = t / (1 + sqrt(1 + t^2))
// (atan t = 2 atan t') bring t to at most tan(pi/32) < 0.0985; then the Taylor series
// t + (t z) P(z), z = t^2, to t^15/15 (first omitted term below 2^-57 relative: z^8/17 with
// z < 0.0097). Coefficients: the doubles nearest +-1/(2j+1).
double atan_unit(double t) noexcept {
  t = t / (1.0 + std::sqrt(1.0 + t * t));
  t = t / (1.0 + std::sqrt(1.0 + t * t));
  t = t / (1.0 + std::sqrt(1.0 + t * t));
  const double z = t * t;
  double p = -1.0 / 15.0;
  p = p * z + 1.0 / 13.0;
  p = p * z - 1.0 / 11.0;
  p = p * z + 1.0 / 9.0;
  p = p * z - 1.0 / 7.0;
  p = p * z + 1.0 / 5.0;
  p = p * z - 1.0 / 3.0;
  return 8.0 * (t + (t * z) * p);
}

}  // namespace

namespace trig_detail {

// Section 13.1 step 1: above 1, atan a = pi/2 - atan(1/a) (1/+inf = 0 gives pi/2).
double atan_non_negative(double a) noexcept {
  if (a > 1.0) return kPiOver2 - atan_unit(1.0 / a);
  return atan_unit(a);
}

}  // namespace trig_detail

float atan(float x) noexcept {
  if (is_nan(x)) return detail::canonical_nan();
  const double a = static_cast<double>(detail::abs_bits(x));
  return detail::or_sign(static_cast<float>(trig_detail::atan_non_negative(a)), x);
}

float asin(float x) noexcept {
  if (is_nan(x)) return detail::canonical_nan();
  const float ax = detail::abs_bits(x);
  if (ax > 1.0f) return detail::canonical_nan();
  // asin a = atan(a / sqrt((1 - a)(1 + a))); 1 - a and 1 + a are exact in double for
  // a >= 2^-29 (proofs/trig_exact_steps), within 2^-53 relative below. a = 1: pi/2.
  const double a = static_cast<double>(ax);
  const double v = ax == 1.0f ? kPiOver2
                              : trig_detail::atan_non_negative(a / std::sqrt((1.0 - a) * (1.0 + a)));
  return detail::or_sign(static_cast<float>(v), x);
}

float acos(float x) noexcept {
  if (is_nan(x)) return detail::canonical_nan();
  if (detail::abs_bits(x) > 1.0f) return detail::canonical_nan();
  // acos x = 2 atan(sqrt((1 - x) / (1 + x))); 1 - x and 1 + x are exact for |x| >= 2^-29
  // (proofs/trig_exact_steps). x = -1: pi.
  if (x == -1.0f) return static_cast<float>(kPi);
  const double d = static_cast<double>(x);
  return static_cast<float>(2.0 * trig_detail::atan_non_negative(std::sqrt((1.0 - d) / (1.0 + d))));
}

}  // namespace onemodel::exact
