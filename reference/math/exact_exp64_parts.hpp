// Steps 2-4 of the exact binary64 exponential (spec/exact-transcendentals.md section 15.2) with
// their result kept unrounded, for the functions of section 17 that need e^x to more than one
// binary64's precision (expm1, sinh, cosh, erf). exp_f64 itself is built on it (one definition).
#pragma once

namespace onemodel::exact::detail {

// e^x = 2^k * (hi + lo) to about 2^-62 relative: hi = s1 = fl(1 + r) and lo = e1 + (rc + tail)
// of section 15.2 step 4 (p = hi + lo there). For a finite x with |x| <= 746 (the range of
// proofs/exp64_range_reduction query C; sinh and cosh use it up to 711).
struct ExpParts {
  int k;
  double hi;
  double lo;
};
ExpParts exp_parts(double x) noexcept;

// 2^n as a double for -1022 <= n <= 1023, from its exponent field.
double power_of_two_f64(int n) noexcept;

// p * 2^k with one rounding (section 15.2 step 5: two normal powers of two, the first product
// exact), for -1076 <= k <= 1077.
double scale_by_power_of_two_f64(double p, int k) noexcept;

}  // namespace onemodel::exact::detail
