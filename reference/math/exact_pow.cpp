// The cases of the exact Pow: spec/exact-transcendentals.md sections 10.2 (float32 and double
// bases) and 10.5 (integer bases). The double logarithm and exponential are in
// exact_pow_double.cpp.
#include <cmath>
#include <cstdint>
#include <limits>

#include "reference/math/exact_pow.hpp"

namespace onemodel::exact {
namespace {

using pow_detail::is_integer;
using pow_detail::is_odd_integer;

template <class T>
constexpr T kInf = std::numeric_limits<T>::infinity();
template <class T>
constexpr T kNan = std::numeric_limits<T>::quiet_NaN();

// Section 10.4 step 1: the limits beyond which e^t rounds to +inf or +0 in the result type.
template <class T>
struct Limits;
template <>
struct Limits<float> {
  static constexpr double over = 89.0;
  static constexpr double under = -104.0;
};
template <>
struct Limits<double> {
  static constexpr double over = 710.0;
  static constexpr double under = -746.0;
};

// Section 10.2 steps 1-9 for T = float or double; x widened to double where step 9 needs it.
template <class T>
T pow_float(T x, double y) noexcept {
  if (y == 0) return T(1);                                // step 1
  if (x == T(1)) return T(1);                             // step 2
  if (x != x || y != y) return kNan<T>;                   // step 3
  if (y == 1) return x;                                   // step 4: the product path
  if (y == 2) return x * x;
  if (y == 3) return (x * x) * x;
  const T ax = x < 0 ? -x : x;
  if (y == kInf<double> || y == -kInf<double>) {          // step 5
    if (x == T(-1)) return T(1);
    const bool grows = ax > T(1);
    return (grows == (y > 0)) ? kInf<T> : T(0);
  }
  const bool odd = is_odd_integer(y);
  if (x == 0) {                                           // step 6
    if (y > 0) return odd ? x : T(0);
    return odd && std::signbit(x) ? -kInf<T> : kInf<T>;  // the sign bit: a bit operation
  }
  if (ax == kInf<T>) {                                    // step 7
    const bool negative = x < 0 && odd;
    if (y > 0) return negative ? -kInf<T> : kInf<T>;
    return negative ? -T(0) : T(0);
  }
  if (x < 0 && !is_integer(y)) return kNan<T>;            // step 8
  // Step 9: e^(y ln|x|) in double, rounded once to T; the sign by parity.
  const double t = y * pow_detail::ln(static_cast<double>(ax));
  T r;
  if (t > Limits<T>::over) r = kInf<T>;
  else if (t < Limits<T>::under) r = T(0);
  else r = static_cast<T>(pow_detail::exp_in_range(t));
  return (x < 0 && odd) ? -r : r;
}

}  // namespace

float pow(float x, double y) noexcept { return pow_float<float>(x, y); }

double pow(double x, double y) noexcept { return pow_float<double>(x, y); }

// Section 10.5.
double pow_integer_base(std::int64_t b, double y) noexcept {
  if (y == 0 || b == 1) return 1;                         // step 1
  if (y != y) return kNan<double>;
  const bool odd = is_odd_integer(y);
  const bool negative_result = b < 0 && odd;
  if (is_integer(y)) {                                    // step 2 (infinities included)
    if (b == 0) return y > 0 ? 0.0 : kInf<double>;
    if (b == -1) return negative_result ? -1.0 : 1.0;
    if (y < 0) return 0.0;
    const double overflow = negative_result ? -kInf<double> : kInf<double>;
    if (y >= 64) return overflow;
    // |b| as unsigned: well defined for INT64_MIN too (modulo 2^64).
    const std::uint64_t base = b < 0 ? 0 - static_cast<std::uint64_t>(b) : static_cast<std::uint64_t>(b);
    const int n = static_cast<int>(y);  // exact: an integer in [1, 63]
    std::uint64_t power = base;
    for (int i = 1; i < n; ++i) {
      if (power > std::numeric_limits<std::uint64_t>::max() / base) return overflow;
      power = power * base;
    }
    const double v = static_cast<double>(power);  // rounded once to nearest even
    return negative_result ? -v : v;
  }
  // Step 3: a non-integer exponent.
  if (b < 0) return kNan<double>;
  if (b == 0) return y > 0 ? 0.0 : kInf<double>;
  const double v = pow(static_cast<double>(b), y);
  if (!(v < kInf<double>)) return v;
  constexpr double kTwo52 = 4503599627370496.0;
  const double n = v < kTwo52 ? (v + kTwo52) - kTwo52 : v;
  const double gap = v < n ? n - v : v - n;
  return gap <= n * 0x1p-42 ? n : v;
}

}  // namespace onemodel::exact
