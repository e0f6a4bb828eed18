// log, spec/exact-transcendentals.md section "log(x)".
#include <cstdint>

#include "reference/math/exact_math.hpp"
#include "reference/math/float_bits.hpp"

namespace onemodel::exact {
namespace {

constexpr float kFltMin = 1.17549435e-38f;          // 0x00800000, the smallest normal
constexpr float kFltMax = 3.40282347e+38f;          // 0x7F7FFFFF
constexpr float kTwoTo24 = 16777216.0f;
constexpr std::uint32_t kSqrtHalfBits = 0x3F3504F3u;  // ~sqrt(1/2): m lands in [sqrt(1/2), sqrt(2))
constexpr std::uint32_t kMagicBits = 0x4B400000u;    // bits of M = 1.5 * 2^23
constexpr float kLn2Hi = 0.693145751953125f;        // 0x3F317200
constexpr float kLn2Lo = 1.4286068e-6f;             // 0x35BFBE8E

}  // namespace

float log(float x) noexcept {
  using detail::bits_of;
  using detail::float_from_bits;
  // Step 1: subnormal (or zero) inputs are scaled by 2^24 exactly; the exponent is corrected by -24.
  const bool subnormal = x < kFltMin;
  const float xs = subnormal ? x * kTwoTo24 : x;
  // Step 2: split into exponent e and mantissa m in [sqrt(1/2), sqrt(2)) on the bit pattern.
  const std::uint32_t ix = bits_of(xs) - kSqrtHalfBits;
  const std::int32_t e = detail::arithmetic_shift_right(ix, 23);
  const float m = float_from_bits((ix & 0x007FFFFFu) + kSqrtHalfBits);
  // float(e) is formed as bits(e + 0x4B400000) - M (exact for |e| < 2^22).
  const float e_float =
      float_from_bits(static_cast<std::uint32_t>(e) + kMagicBits) - detail::kRoundingMagic;
  const float ef = subnormal ? e_float - 24.0f : e_float;
  // Step 3: log(m) = 2 atanh(s), s = f / (2 + f); f = m - 1 is exact (Sterbenz).
  const float f = m - 1.0f;
  const float s = f / (2.0f + f);
  const float z = s * s;
  float w = 0.0909090936f * z + 0.111111112f;
  w = w * z + 0.142857149f;
  w = w * z + 0.200000003f;
  w = w * z + 0.333333343f;
  const float s2 = s + s;
  const float logm = s2 + s2 * (z * w);
  // Step 4: ef*ln2Hi is exact (|ef| <= 149 < 256); the small terms are added first.
  float result = ef * kLn2Hi + (logm + ef * kLn2Lo);
  // Step 5: special values, selected last.
  if (x > kFltMax) result = float_from_bits(0x7F800000u);
  if (x < 0.0f) result = detail::canonical_nan();
  if (x == 0.0f) result = float_from_bits(0xFF800000u);  // either zero gives -inf
  if (x != x) result = detail::canonical_nan();
  return result;
}

}  // namespace onemodel::exact
