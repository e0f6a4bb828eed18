// The exact binary64 exponential: spec/exact-transcendentals.md section 15.2. Every line is one
// step of that section, evaluated as written (one rounding per operator, no fused multiply-add).
#include <cstdint>

#include "reference/math/exact64_series.hpp"
#include "reference/math/exact_exp64_parts.hpp"
#include "reference/math/exact_math64.hpp"
#include "reference/math/float_bits.hpp"

namespace onemodel::exact {
namespace {

using detail::double_from_bits;

constexpr std::uint64_t kCanonicalNan64 = 0x7FF8000000000000ull;
constexpr double kRoundMagic = 6755399441055744.0;  // 1.5 * 2^52: round to nearest integer (15.1)
constexpr double kLog2E = 1.4426950408889634;       // 0x3FF71547652B82FE
// 0x3FE62E42FEE00000: 32 significant bits, so k * kLn2Hi is exact for |k| < 2^21 (section 15.2
// step 2; proofs/exp64_range_reduction).
constexpr double kLn2Hi = 6.93147180369123816490e-01;
constexpr double kLn2Lo = 1.90821492927058770002e-10;  // 0x3DEA39EF35793C76
// Above kOverflow e^x > 2^1024 (and the steps would leave the exponent range); below kUnderflow
// e^x < 2^-1075, half the smallest subnormal, so both give their limits before the steps.
constexpr double kOverflow = 710.0;
constexpr double kUnderflow = -746.0;

}  // namespace

namespace detail {

double power_of_two_f64(int n) noexcept { return double_from_bits(static_cast<std::uint64_t>(n + 1023) << 52); }

double scale_by_power_of_two_f64(double p, int k) noexcept {
  const int a = k >> 1;  // arithmetic shift (C++20)
  const int b = k - a;
  return (p * power_of_two_f64(a)) * power_of_two_f64(b);
}

ExpParts exp_parts(double x) noexcept {
  // Step 2: k = nearest integer to x / ln 2 (|x * kLog2E| < 1077, far inside the trick's 2^51);
  // hi = x - k * ln2hi is exact (proved), lo = k * ln2lo, r = hi - lo rounded and rc the part of
  // hi - lo that r misses (Fast2Sum; a correction far below r's own ulp).
  const double k = (x * kLog2E + kRoundMagic) - kRoundMagic;
  const double hi = x - k * kLn2Hi;
  const double lo = k * kLn2Lo;
  const double r = hi - lo;
  const double rc = (hi - r) - lo;
  // Step 3: q = (e^r - 1 - r - r^2/2) / r^3 by Taylor's series to 1/14!, Horner from the top
  // (|r| <= 0.3467: the first omitted term r^15/15! is below 2^-63).
  const double q = detail::exp_taylor_tail(r);
  // Step 4: p = e^(r + rc) = 1 + r + (rc + tail). 1 + r is split into its rounded sum s1 and the
  // exact error e1 (Fast2Sum: |1| >= |r|), so only the small terms and the last sum round.
  const double rr = r * r;
  const double tail = (rr * 0.5) + (rr * r) * q;
  const double s1 = 1.0 + r;
  const double e1 = (1.0 - s1) + r;
  return {static_cast<int>(k), s1, e1 + (rc + tail)};  // k: exact, an integer of magnitude <= 1076
}

}  // namespace detail

double exp_f64(double x) noexcept {
  // Step 1: special inputs and the limits (NaN compares false with everything).
  if (x != x) return double_from_bits(kCanonicalNan64);
  if (x > kOverflow) return double_from_bits(0x7FF0000000000000ull);  // +inf
  if (x < kUnderflow) return 0.0;
  // Steps 2-4 (detail::exp_parts): p = s1 + (e1 + (rc + tail)).
  const detail::ExpParts e = detail::exp_parts(x);
  const double p = e.hi + e.lo;
  // Step 5: p * 2^k as two normal powers of two (|k| <= 1076): the first product is exact, the
  // second rounds once, also when the result is subnormal.
  return detail::scale_by_power_of_two_f64(p, e.k);
}

}  // namespace onemodel::exact
