// GELU in erf form and tanh form, spec/exact-transcendentals.md section "GELU".
#include <limits>

#include "reference/math/exact_math.hpp"
#include "reference/math/float_bits.hpp"

namespace onemodel::exact {
namespace {

constexpr float kNegativeInfinity = -std::numeric_limits<float>::infinity();

// Both forms: gelu(-inf) = -0 (the formulas give -inf * 0 = NaN there), gelu(+inf) = +inf
// (falls out), NaN gives the canonical NaN.
float select_special(float x, float value) noexcept {
  if (x == kNegativeInfinity) value = -0.0f;
  if (x != x) value = detail::canonical_nan();
  return value;
}

}  // namespace

float gelu_erf(float x) noexcept {
  // (0.5 x) * (1 + erf(x / sqrt 2)), with 1 + erf from one_plus_erf (no cancellation for x < 0).
  const float y = x * 0.70710677f;
  return select_special(x, (0.5f * x) * one_plus_erf(y));
}

float gelu_tanh(float x) noexcept {
  // 0.5 x (1 + tanh u) = x * sigmoid(2u), u = sqrt(2/pi) * (x + 0.044715 x^3).
  const float u = 0.79788456f * (x + 0.044715f * ((x * x) * x));
  return select_special(x, x * sigmoid(u + u));
}

}  // namespace onemodel::exact
