// sigmoid, spec/exact-transcendentals.md section "sigmoid(x)".
#include "reference/math/exact_math.hpp"
#include "reference/math/float_bits.hpp"

namespace onemodel::exact {

float sigmoid(float x) noexcept {
  // s = e^-|x| never overflows, so both signs divide finite numbers: 1/(1+s) or s/(1+s).
  const float s = exact::exp(0.0f - detail::abs_bits(x));
  const float num = (x >= 0.0f) ? 1.0f : s;
  float result = num / (1.0f + s);
  if (x != x) result = detail::canonical_nan();
  return result;
}

}  // namespace onemodel::exact
