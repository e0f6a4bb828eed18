// erf and 1 + erf, spec/exact-transcendentals.md section "erf(x), and 1 + erf(x)".
#include "reference/math/exact_math.hpp"
#include "reference/math/float_bits.hpp"

namespace onemodel::exact {
namespace {

// |erf| and erfc(|x|) of the magnitude ax, one of which is exact-as-computed per branch.
struct ErfParts {
  bool small;       // ax < 0.5: only `erf` is meaningful
  float erf_abs;    // erf(ax)
  float erfc_abs;   // erfc(ax) = 1 - erf(ax), for ax >= 0.5
};

ErfParts erf_parts(float ax) noexcept {
  const float z = ax * ax;
  if (ax < 0.5f) {
    // erf(ax) = ax * P(z), P by Horner from the highest coefficient.
    float p = -0.0007692853f * z + 0.0052003083f;
    p = p * z - 0.02686312f;
    p = p * z + 0.11283774f;
    p = p * z - 0.37612638f;
    p = p * z + 1.1283792f;
    return {true, ax * p, 0.0f};
  }
  // erfc(ax) = e^{-ax^2} * t * G(t - 1), t = 1/ax; G of degree 16, highest coefficient first.
  const float t = 1.0f / ax;
  const float s = t - 1.0f;
  float g = -0.00057763467f * s + 0.0017893383f;
  g = g * s - 0.00010074016f;
  g = g * s - 0.004373198f;
  g = g * s + 0.0034639547f;
  g = g * s + 0.0015023724f;
  g = g * s - 0.0009413088f;
  g = g * s - 0.0018891813f;
  g = g * s - 0.0002586738f;
  g = g * s + 0.0052144383f;
  g = g * s - 0.0103428485f;
  g = g * s + 0.015788378f;
  g = g * s - 0.018338649f;
  g = g * s + 0.008167262f;
  g = g * s + 0.035529688f;
  g = g * s - 0.1543716f;
  g = g * s + 0.42758358f;
  // ax^2 = z + zLo exactly (Veltkamp split of ax with 4097 = 2^12 + 1, then Dekker's product);
  // zLo is 0 for ax >= 64, where the split could overflow and e^{-z} is 0 anyway.
  const float split = ax * 4097.0f;
  const float hi = split - (split - ax);
  const float lo = ax - hi;
  float z_lo = ((hi * hi - z) + 2.0f * (hi * lo)) + lo * lo;
  if (ax >= 64.0f) z_lo = 0.0f;
  // e^{-(z + zLo)} ~ e^{-z} * (1 - zLo).
  const float exp_neg_z = exact::exp(0.0f - z) * (1.0f - z_lo);
  const float erfc = exp_neg_z * (t * g);
  return {false, 1.0f - erfc, erfc};
}

}  // namespace

float erf(float x) noexcept {
  const ErfParts parts = erf_parts(detail::abs_bits(x));
  // The sign bit of x is OR-ed onto erf(|x|); erf(+-inf) = +-1 falls out (erfc = 0).
  float result = detail::or_sign(parts.erf_abs, x);
  if (x != x) result = detail::canonical_nan();
  return result;
}

float one_plus_erf(float x) noexcept {
  const ErfParts parts = erf_parts(detail::abs_bits(x));
  float result;
  if (parts.small) {
    result = 1.0f + detail::or_sign(parts.erf_abs, x);
  } else {
    // 1 + erf(x) = erfc(|x|) for x < 0 (no cancellation), 2 - erfc(|x|) otherwise.
    result = (x < 0.0f) ? parts.erfc_abs : 2.0f - parts.erfc_abs;
  }
  if (x != x) result = detail::canonical_nan();
  return result;
}

}  // namespace onemodel::exact
