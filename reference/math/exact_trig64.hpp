// The exact binary64 trigonometric functions and their inverses (spec/exact-transcendentals.md
// section 16): binary64 in and out, computed from IEEE binary64 + - * / (rounded to nearest even,
// one rounding per operator, evaluated in the order written), the correctly rounded sqrt,
// comparisons and integer operations on bit patterns. No fused multiply-add (the build uses
// -ffp-contract=off), no library math: the result depends on the input bits alone, so every
// platform gives the same bits. Every NaN result is the canonical quiet NaN 0x7FF8000000000000.
#pragma once

#include <cstdint>

#include "reference/math/double_double.hpp"

namespace onemodel::exact {

// Section 16.3: sine, cosine and tangent of a double.
double sin_f64(double x) noexcept;
double cos_f64(double x) noexcept;
double tan_f64(double x) noexcept;

// Section 16.5: arctangent, arcsine and arccosine of a double.
double atan_f64(double x) noexcept;
double asin_f64(double x) noexcept;
double acos_f64(double x) noexcept;

namespace trig64_detail {

// Section 16.2: a = (n + f) * pi/2 for a finite double a >= 0.5, n an integer, |f| <= 1/2.
// quadrant = n mod 4; f as a double-double with relative error below 2^-103, from an exact
// integer product with 1280 bits of 2/pi. Any other input gives quadrant 0 and f = 0.
struct Reduced {
  std::uint32_t quadrant;
  DoubleDouble f;
};
Reduced reduce_quarter_turns(double a) noexcept;

}  // namespace trig64_detail

}  // namespace onemodel::exact
