// exp and ExpNonPositive, spec/exact-transcendentals.md section "exp(x)".
#include "reference/math/exact_math.hpp"

#include <cstdint>

#include "reference/math/float_bits.hpp"

namespace onemodel::exact {
namespace {

using detail::bits_of;
using detail::float_from_bits;
using detail::kRoundingMagic;

constexpr float kLog2e = 1.44269502f;                // 0x3FB8AA3B
constexpr float kLn2Hi = 0.693145751953125f;         // 0x3F317200 = 22713 / 2^15 (15 significant bits)
constexpr float kLn2Lo = 1.4286068e-6f;              // 0x35BFBE8E
constexpr float kExpOverflow = 88.72283172607422f;   // 0x42B17217
constexpr float kExpUnderflow = -103.97207641601562f;  // 0xC2CFF1B4
constexpr float kExpNonPositiveFlush = -87.33654f;   // 0xC2AEAC4F

// Steps 1-3, shared by exp and ExpNonPositive: n = round(x / ln 2), r = x - n ln 2, p ~ e^r.
struct Reduced {
  std::int32_t n_int;
  float p;
};

Reduced reduce_and_approximate(float x) noexcept {
  // Step 1: round to nearest integer with the 1.5*2^23 trick; the integer is read back from
  // the bit pattern (bits(t) - bits(M)), which wraps for lanes whose x is out of range.
  const float t = x * kLog2e + kRoundingMagic;
  const float n = t - kRoundingMagic;
  const std::int32_t n_int = static_cast<std::int32_t>(bits_of(t) - bits_of(kRoundingMagic));
  // Step 2: Cody-Waite reduction; n * kLn2Hi is exact for |n| < 256 (proofs/exp_range_reduction).
  const float r = (x - n * kLn2Hi) - n * kLn2Lo;
  // Step 3: q by Horner from the highest coefficient, each step a product rounding then a sum
  // rounding; p = 1 + (r + r^2 q).
  float q = 0.0013814613f * r + 0.00836871f;
  q = q * r + 0.04166839f;
  q = q * r + 0.16666521f;
  q = q * r + 0.49999994f;
  const float p = 1.0f + (r + (r * r) * q);
  return {n_int, p};
}

// 2^k as a float built in the exponent field: bits((k + 127) << 23). Meaningful for
// -126 <= k <= 127; other lanes produce garbage that the final selection hides.
float power_of_two(std::int32_t k) noexcept {
  return float_from_bits((static_cast<std::uint32_t>(k) + 127u) << 23);
}

}  // namespace

float exp(float x) noexcept {
  const Reduced red = reduce_and_approximate(x);
  // Step 4: two exact power-of-two scalings, a = n >> 1 (arithmetic), b = n - a, so that a
  // subnormal result is rounded once (by the second product) and 2^n never leaves the normal range.
  const std::int32_t a = detail::arithmetic_shift_right(static_cast<std::uint32_t>(red.n_int), 1);
  const std::int32_t b = static_cast<std::int32_t>(static_cast<std::uint32_t>(red.n_int) -
                                                   static_cast<std::uint32_t>(a));
  float result = (red.p * power_of_two(a)) * power_of_two(b);
  // Step 5: special values selected by comparisons at the end.
  if (x > kExpOverflow) result = float_from_bits(0x7F800000u);
  if (x < kExpUnderflow) result = 0.0f;
  if (x != x) result = detail::canonical_nan();
  return result;
}

float exp_non_positive(float x) noexcept {
  const Reduced red = reduce_and_approximate(x);
  // ExpNonPositive: one scaling by 2^n; +0 below -87.33654, where 2^n would leave the normal range.
  float result = red.p * power_of_two(red.n_int);
  if (x < kExpNonPositiveFlush) result = 0.0f;
  if (x != x) result = detail::canonical_nan();
  return result;
}

}  // namespace onemodel::exact
