// The exact-mode Pow (spec/exact-transcendentals.md section 10): C's pow special cases, the
// exponents 1, 2 and 3 as rounded products, everything else through a double-precision logarithm
// and exponential built from + - * / and exact steps, rounded once. Same bits on every platform
// (no library math, no fused multiply-add: the build uses -ffp-contract=off). NaN results are
// returned as NaN; the caller stores them canonical (spec/ops/elementwise.md section 3).
#pragma once

#include <cstdint>

namespace onemodel::exact {

// x^y for a float32 base (section 10.2). The exponent is taken as a double.
float pow(float x, double y) noexcept;

// x^y for a double base (section 10.2, double limits of 10.4).
double pow(double x, double y) noexcept;

// The value of b^y for an integer base (section 10.5), before Cast's float-to-integer rule.
double pow_integer_base(std::int64_t b, double y) noexcept;

namespace pow_detail {

// Section 10.1: y is an integer / an odd integer.
bool is_integer(double y) noexcept;
bool is_odd_integer(double y) noexcept;

// Section 10.3: ln(a) for a finite double a > 0.
double ln(double a) noexcept;

// Section 10.4 steps 2-4: e^t for t in [-746, 710] (no limits applied).
double exp_in_range(double t) noexcept;

}  // namespace pow_detail

}  // namespace onemodel::exact
