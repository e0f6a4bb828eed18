// The double-precision steps of the exact Pow: spec/exact-transcendentals.md sections 10.1, 10.3
// and 10.4 (the style of the source's deterministic exp and ln, ctc.md). Only + - * /,
// comparisons, bit operations and exact conversions, each expression as the spec writes it.
#include <cstdint>
#include <cstring>

#include "reference/math/exact_pow.hpp"
#include "reference/math/float_bits.hpp"

namespace onemodel::exact::pow_detail {
namespace {

// The bit views of reference/math/float_bits.hpp.
inline std::uint64_t bits64(double x) noexcept { return detail::bits64_of(x); }
using detail::double_from_bits;

constexpr double kTwo52 = 4503599627370496.0;           // 2^52
constexpr double kTwo53 = 9007199254740992.0;           // 2^53
constexpr double kRoundMagic = 6755399441055744.0;      // 1.5 * 2^52 (section 10.4 step 2)
constexpr double kSmallestNormal = 2.2250738585072014e-308;  // 2^-1022
constexpr double kTwo54 = 18014398509481984.0;          // 2^54
constexpr double kSqrt2 = 1.4142135623730951;
// 0x3FE62E42FEE00000: 21 trailing zero bits, so k * kLn2Hi is exact for |k| < 2^20.
constexpr double kLn2Hi = 6.93147180369123816490e-01;
constexpr double kLn2Lo = 1.90821492927058770002e-10;  // 0x3DEA39EF35793C76
constexpr double kLog2E = 1.4426950408889634;

}  // namespace

// Section 10.1: integer(y) and odd(y). Adding and removing 2^52 rounds |y| < 2^52 to the nearest
// integer (one exact-rounding step); at 2^52 and above every double is an integer.
bool is_integer(double y) noexcept {
  const double a = y < 0 ? -y : y;
  if (!(a < kTwo52)) return a == a;  // NaN is no integer; infinities count as integers here
  return (a + kTwo52) - kTwo52 == a;
}

bool is_odd_integer(double y) noexcept {
  const double a = y < 0 ? -y : y;
  return is_integer(a) && a < kTwo53 && !is_integer(a * 0.5);
}

// Section 10.3.
double ln(double a) noexcept {
  // Step 1: a subnormal is scaled into the normal range exactly.
  int correction = 0;
  if (a < kSmallestNormal) {
    a = a * kTwo54;
    correction = -54;
  }
  // Step 2: a = m * 2^e with m in [sqrt(1/2), sqrt(2)].
  const std::uint64_t u = bits64(a);
  int e = static_cast<int>((u >> 52) & 0x7FFu) - 1023 + correction;
  double m = double_from_bits((u & 0x000FFFFFFFFFFFFFull) | 0x3FF0000000000000ull);
  if (m > kSqrt2) {
    m = m * 0.5;
    e = e + 1;
  }
  // Step 3: ln m = 2 atanh(s), s = (m - 1) / (m + 1); m - 1 is exact (Sterbenz).
  const double f = m - 1.0;
  const double s = f / (m + 1.0);
  const double z = s * s;
  double q = 1.0 / 21.0;
  q = q * z + 1.0 / 19.0;
  q = q * z + 1.0 / 17.0;
  q = q * z + 1.0 / 15.0;
  q = q * z + 1.0 / 13.0;
  q = q * z + 1.0 / 11.0;
  q = q * z + 1.0 / 9.0;
  q = q * z + 1.0 / 7.0;
  q = q * z + 1.0 / 5.0;
  q = q * z + 1.0 / 3.0;
  q = q * z + 1.0;
  const double lm = (s + s) * q;
  // Step 4: e * ln2 in two parts; the small terms are added first.
  const double ed = static_cast<double>(e);  // exact: |e| < 1100
  return ed * kLn2Hi + (ed * kLn2Lo + lm);
}

// Section 10.4 steps 2-4.
double exp_in_range(double t) noexcept {
  // Step 2: k = round(t / ln 2); r = t - k ln 2 in two parts (k * kLn2Hi exact).
  const double k = (t * kLog2E + kRoundMagic) - kRoundMagic;
  const double r = (t - k * kLn2Hi) - k * kLn2Lo;
  // Step 3: Taylor polynomial of degree 13, Horner from 1/13! down to 1/0!.
  double p = 1.0 / 6227020800.0;  // 1/13!
  p = p * r + 1.0 / 479001600.0;  // 1/12!
  p = p * r + 1.0 / 39916800.0;
  p = p * r + 1.0 / 3628800.0;
  p = p * r + 1.0 / 362880.0;
  p = p * r + 1.0 / 40320.0;
  p = p * r + 1.0 / 5040.0;
  p = p * r + 1.0 / 720.0;
  p = p * r + 1.0 / 120.0;
  p = p * r + 1.0 / 24.0;
  p = p * r + 1.0 / 6.0;
  p = p * r + 1.0 / 2.0;
  p = p * r + 1.0;
  p = p * r + 1.0;
  // Step 4: p * 2^k as two normal powers of two (|k| <= 1077 inside the limits).
  const int i = static_cast<int>(k);  // exact: k is an integer of magnitude below 1100
  const int a = i >> 1;               // arithmetic shift (C++20)
  const int b = i - a;
  const double scale_a = double_from_bits(static_cast<std::uint64_t>(a + 1023) << 52);
  const double scale_b = double_from_bits(static_cast<std::uint64_t>(b + 1023) << 52);
  return (p * scale_a) * scale_b;
}

}  // namespace onemodel::exact::pow_detail
