// The two series that the exact binary64 functions share (spec/exact-transcendentals.md section
// 15): the exponential's Taylor tail of section 15.2 step 3 and the logarithm's atanh series of
// section 15.3 step 3, each a fixed Horner evaluation (one rounding per operation, the build uses
// -ffp-contract=off), so every caller gets the same bits. Used by exact_exp64.cpp, exact_log64.cpp
// and exact_hyperbolic64.cpp (expm1 and the log core of section 17).
#pragma once

namespace onemodel::exact::detail {

// Section 15.2 step 3: q = (e^r - 1 - r - r^2/2) / r^3 by Taylor's series to 1/14!, Horner from
// the top (|r| <= 0.3467: the first omitted term r^15/15! is below 2^-63).
inline double exp_taylor_tail(double r) noexcept {
  double q = 1.0 / 87178291200.0;  // 1/14!
  q = q * r + 1.0 / 6227020800.0;  // 1/13!
  q = q * r + 1.0 / 479001600.0;   // 1/12!
  q = q * r + 1.0 / 39916800.0;    // 1/11!
  q = q * r + 1.0 / 3628800.0;     // 1/10!
  q = q * r + 1.0 / 362880.0;      // 1/9!
  q = q * r + 1.0 / 40320.0;       // 1/8!
  q = q * r + 1.0 / 5040.0;        // 1/7!
  q = q * r + 1.0 / 720.0;         // 1/6!
  q = q * r + 1.0 / 120.0;         // 1/5!
  q = q * r + 1.0 / 24.0;          // 1/4!
  q = q * r + 1.0 / 6.0;           // 1/3!
  return q;
}

// Section 15.3 step 3: w = 2/25, then w = w * z + 2/(2j+1) for j = 11 down to 1 (the last constant
// 2/3); R = z * w is 2s^2/3 + 2s^4/5 + ... for z = s^2.
inline double log_atanh_series(double z) noexcept {
  double w = 2.0 / 25.0;
  w = w * z + 2.0 / 23.0;
  w = w * z + 2.0 / 21.0;
  w = w * z + 2.0 / 19.0;
  w = w * z + 2.0 / 17.0;
  w = w * z + 2.0 / 15.0;
  w = w * z + 2.0 / 13.0;
  w = w * z + 2.0 / 11.0;
  w = w * z + 2.0 / 9.0;
  w = w * z + 2.0 / 7.0;
  w = w * z + 2.0 / 5.0;
  w = w * z + 2.0 / 3.0;
  return w;
}

}  // namespace onemodel::exact::detail
