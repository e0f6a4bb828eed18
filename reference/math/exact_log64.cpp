// The exact binary64 natural logarithm: spec/exact-transcendentals.md section 15.3. Every line is
// one step of that section, evaluated as written (one rounding per operator, no fused multiply-add).
#include <cstdint>

#include "reference/math/exact64_series.hpp"
#include "reference/math/exact_math64.hpp"
#include "reference/math/float_bits.hpp"

namespace onemodel::exact {
namespace {

using detail::bits64_of;
using detail::double_from_bits;

constexpr std::uint64_t kCanonicalNan64 = 0x7FF8000000000000ull;
constexpr double kSmallestNormal = 2.2250738585072014e-308;  // 2^-1022
constexpr double kTwo54 = 18014398509481984.0;               // 2^54
constexpr double kSqrt2 = 1.4142135623730951;                // 0x3FF6A09E667F3BCD
constexpr double kLn2Hi = 6.93147180369123816490e-01;        // 0x3FE62E42FEE00000
constexpr double kLn2Lo = 1.90821492927058770002e-10;        // 0x3DEA39EF35793C76
constexpr double kMaxFinite = 1.7976931348623157e308;

}  // namespace

double log_f64(double x) noexcept {
  // Step 1: special inputs, in this order.
  if (x != x) return double_from_bits(kCanonicalNan64);
  if (x < 0.0) return double_from_bits(kCanonicalNan64);
  if (x == 0.0) return double_from_bits(0xFFF0000000000000ull);  // -inf, either zero
  if (x > kMaxFinite) return x;                                   // +inf
  // Step 2: x = m * 2^e with m in (sqrt(1/2), sqrt(2)]; a subnormal is first scaled by 2^54 (exact).
  double a = x;
  int correction = 0;
  if (a < kSmallestNormal) {
    a = a * kTwo54;
    correction = -54;
  }
  const std::uint64_t u = bits64_of(a);
  int e = static_cast<int>((u >> 52) & 0x7FFu) - 1023 + correction;
  double m = double_from_bits((u & 0x000FFFFFFFFFFFFFull) | 0x3FF0000000000000ull);
  if (m > kSqrt2) {
    m = m * 0.5;  // exact
    e = e + 1;
  }
  // Step 3: f = m - 1 (exact, proofs/exp64_range_reduction); s = f / (2 + f), so that
  // ln(1 + f) = 2 atanh(s) = f - hfsq + s * (hfsq + R) with hfsq = f^2/2 and
  // R = 2s^2/3 + 2s^4/5 + ... (|s| <= 0.1716: the first omitted term, 2s^26/27 in R, is below
  // 2^-66 relative to the result).
  const double f = m - 1.0;
  const double s = f / (2.0 + f);
  const double z = s * s;
  const double w = detail::log_atanh_series(z);
  const double big_r = z * w;
  const double hfsq = 0.5 * (f * f);
  // Step 4: e * ln2 in two parts (e * kLn2Hi exact for |e| <= 1075). t = e * ln2hi + f rounded and
  // tc its exact error (Fast2Sum: |e * ln2hi| >= 0.69 > |f| when e != 0; t = f when e = 0); the
  // small terms are added to tc, and the result rounds once more.
  const double ed = static_cast<double>(e);  // exact
  const double low = s * (hfsq + big_r) + ed * kLn2Lo;
  const double head = ed * kLn2Hi;
  const double t = head + f;
  const double tc = (head - t) + f;
  return t + (tc + (low - hfsq));
}

}  // namespace onemodel::exact
