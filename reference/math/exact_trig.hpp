// The exact-mode float32 trigonometric and hyperbolic functions (spec/exact-transcendentals.md
// sections 11 and 12): each is computed in IEEE binary64 from + - * / and sqrt (correctly rounded),
// comparisons and integer operations on bit patterns, in the order the spec states, and rounded
// once to float32. No fused multiply-add (the build uses -ffp-contract=off), no library math; the
// result depends on the input bits alone. Every NaN result is the canonical quiet NaN 0x7FC00000.
#pragma once

#include <cstdint>

namespace onemodel::exact {

// Section 11: sine, cosine and tangent of a float32 argument.
float sin(float x) noexcept;
float cos(float x) noexcept;
float tan(float x) noexcept;

// Section 12: hyperbolic functions and their inverses, from the double exp and ln of section 10.
float sinh(float x) noexcept;
float cosh(float x) noexcept;
float asinh(float x) noexcept;
float acosh(float x) noexcept;
float atanh(float x) noexcept;

// Section 13: inverse trigonometric functions (atan by argument halving; asin and acos through it).
float atan(float x) noexcept;
float asin(float x) noexcept;
float acos(float x) noexcept;

namespace trig_detail {

// Section 11.2: |x| = (n + f) * pi/2 with n an integer and |f| <= 1/2, for a finite float32 |x|
// of at least 0.78125. quadrant is n mod 4; f is f rounded to a double (relative error below
// 2^-51); exact integer reduction (Payne-Hanek) with 256 bits of 2/pi. Any other input (below
// 2^-1, infinite or NaN) gives quadrant 0 and f = 0.
struct Reduced {
  std::uint32_t quadrant;
  double f;
};
Reduced reduce_quarter_turns(float ax) noexcept;

// Section 11.3: the cores on [-pi/4, pi/4] (Taylor polynomials, Horner in r*r).
double sin_core(double r) noexcept;
double cos_core(double r) noexcept;

// Section 12.1: ln(1 + u) for a double u > -1 (u finite).
double log1p(double u) noexcept;

// Section 13.1: atan(a) for a double a >= 0 (+inf included).
double atan_non_negative(double a) noexcept;

}  // namespace trig_detail

}  // namespace onemodel::exact
