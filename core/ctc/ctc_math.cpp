// The deterministic double-precision exp, ln and logadd of the beam search (spec/ctc.md section 4,
// from the source's ctc.md "Deterministic exp and ln"): only + - * /, comparisons, an exact floor
// and exponent-bit arithmetic, each in the order written, so every platform gives the same bits.
// The build compiles this file with -ffp-contract=off like all exact code: a fused multiply-add
// in the Horner steps would change the results.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

#include "onemodel/ctc.hpp"
#include "reference/math/float_bits.hpp"

namespace onemodel::ctc {
namespace {

using exact::detail::bits64_of;
double from_bits(std::uint64_t u) noexcept { return exact::detail::double_from_bits(u); }

// 1/n! for n = 0..13: n! is an integer below 2^53, so one correctly rounded division gives the
// double nearest 1/n!, the coefficient the page names.
constexpr double inverse_factorial(int n) {
  double f = 1.0;
  for (int i = 2; i <= n; ++i) f *= i;
  return 1.0 / f;
}

// 2^k for the k the exponential can reach (|k| <= 1010): a normal double built from its bits.
double power_of_two(std::int64_t k) noexcept {
  return from_bits(static_cast<std::uint64_t>(k + 1023) << 52);
}

constexpr double kSqrt2 = 1.4142135623730951;
constexpr double kLn2 = 0.6931471805599453;

}  // namespace

double deterministic_exp(double x) noexcept {
  // x <= -700 or NaN gives 0 (the comparison is false for NaN, hence the negated form).
  if (!(x > -700.0)) return 0.0;
  if (x > 700.0) x = 700.0;
  const double k = std::floor(x * 1.4426950408889634 + 0.5);  // floor is exact
  const double r = (x - k * 6.93147180369123816490e-01) - k * 1.90821492927058770002e-10;
  double p = inverse_factorial(13);
  for (int n = 12; n >= 0; --n) p = p * r + inverse_factorial(n);
  return p * power_of_two(static_cast<std::int64_t>(k));
}

double deterministic_ln(double x) noexcept {
  if (x == 0.0) return -std::numeric_limits<double>::infinity();
  // Outside the page's domain: a negative argument or NaN has no logarithm, +inf stays +inf.
  if (!(x > 0.0)) return std::numeric_limits<double>::quiet_NaN();
  if (x == std::numeric_limits<double>::infinity()) return x;
  std::int64_t e = 0;
  if (x < std::numeric_limits<double>::min()) {
    x = x * 18014398509481984.0;  // 2^54: a subnormal becomes normal, exactly
    e = -54;
  }
  const std::uint64_t u = bits64_of(x);
  e += static_cast<std::int64_t>((u >> 52) & 0x7FF) - 1023;
  double m = from_bits((u & 0x000FFFFFFFFFFFFFull) | 0x3FF0000000000000ull);  // [1, 2)
  if (m > kSqrt2) {
    m = m * 0.5;  // exact
    e += 1;
  }
  const double s = (m - 1.0) / (m + 1.0);
  const double z = s * s;
  // q = 1 + z/3 + z^2/5 + ... + z^9/19 in Horner form, coefficients 1/(2j+1).
  double q = 1.0 / 19.0;
  for (int j = 8; j >= 0; --j) q = q * z + 1.0 / static_cast<double>(2 * j + 1);
  return static_cast<double>(e) * kLn2 + 2.0 * s * q;
}

double logadd(double a, double b) noexcept {
  if (a < b) {
    const double t = a;
    a = b;
    b = t;
  }
  if (b == -std::numeric_limits<double>::infinity() || b - a < -40.0) return a;
  return a + deterministic_ln(1.0 + deterministic_exp(b - a));
}

}  // namespace onemodel::ctc
