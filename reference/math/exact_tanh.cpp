// tanh, spec/exact-transcendentals.md section "tanh(x)".
#include "reference/math/exact_math.hpp"
#include "reference/math/float_bits.hpp"

namespace onemodel::exact {

float tanh(float x) noexcept {
  const float ax = detail::abs_bits(x);
  const float z = ax * ax;
  float magnitude;
  if (ax < 0.6f) {
    // Odd polynomial ax + ax*(z*P(z)); P by Horner from the highest coefficient.
    // The last coefficient is -0.333333 as the spec writes it (not the float nearest -1/3).
    float p = -0.0058951583f * z + 0.020795971f;
    p = p * z - 0.05378383f;
    p = p * z + 0.13331924f;
    p = p * z - 0.333333f;
    magnitude = ax + ax * (z * p);
  } else {
    // 1 - 2/(e^{2ax} + 1); e^{2ax} = +inf for large ax gives exactly 1.
    const float e = exact::exp(ax + ax);
    magnitude = 1.0f - 2.0f / (e + 1.0f);
  }
  // The sign bit of x is OR-ed in last, so tanh(-0) = -0.
  float result = detail::or_sign(magnitude, x);
  if (x != x) result = detail::canonical_nan();
  return result;
}

}  // namespace onemodel::exact
