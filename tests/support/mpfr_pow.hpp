// The MPFR oracle for the exact Pow (spec/exact-transcendentals.md section 10.6): x^y by MPFR's
// correctly rounded mpfr_pow at 128 bits, and the error of a float32 or double result in units of
// the spacing at the correctly rounded reference (as mpfr_reference.hpp does for the unary
// functions). Header-only: only targets that link mpfr and gmp include it
// (tests/unit/pow_exact_test.cpp, tools/pow_ulp/main.cpp).
#pragma once

#include <mpfr.h>

#include <cmath>
#include <limits>

#include "tests/support/mpfr_reference.hpp"

namespace onemodel::testing {

class MpfrPow {
 public:
  MpfrPow() { mpfr_inits2(128, x_, y_, ref_, diff_, static_cast<mpfr_ptr>(nullptr)); }
  ~MpfrPow() { mpfr_clears(x_, y_, ref_, diff_, static_cast<mpfr_ptr>(nullptr)); }
  MpfrPow(const MpfrPow&) = delete;
  MpfrPow& operator=(const MpfrPow&) = delete;

  // ref_ = x^y; x and y finite (a double holds every float32 exactly).
  void evaluate(double x, double y) {
    mpfr_set_d(x_, x, MPFR_RNDN);
    mpfr_set_d(y_, y, MPFR_RNDN);
    mpfr_pow(ref_, x_, y_, MPFR_RNDN);
  }

  float rounded_float() const { return mpfr_get_flt(ref_, MPFR_RNDN); }
  double rounded_double() const { return mpfr_get_d(ref_, MPFR_RNDN); }
  double value() const { return mpfr_get_d(ref_, MPFR_RNDN); }

  // |got - x^y| in float32 spacings at the correctly rounded reference; an infinite got equal to
  // the rounded reference is 0, any other non-finite got an infinite error.
  double float_ulp_error(float got) {
    const float r = rounded_float();
    if (!std::isfinite(got)) return (std::isinf(got) && got == r) ? 0.0 : kInfinity;
    return spacings_to(got, MpfrReference::spacing_exponent(r));
  }

  // The same in double spacings: 2^(E-52) for a normal double with exponent E, 2^-1074 below.
  double double_ulp_error(double got) {
    const double r = rounded_double();
    if (!std::isfinite(got)) return (std::isinf(got) && got == r) ? 0.0 : kInfinity;
    int spacing = -1074;
    if (std::isinf(r)) {
      spacing = 971;
    } else if (std::fabs(r) >= std::numeric_limits<double>::min()) {
      int e = 0;
      std::frexp(std::fabs(r), &e);  // |r| = m 2^e, m in [0.5, 1): spacing 2^(e-53)
      spacing = e - 53;
    }
    return spacings_to(got, spacing);
  }

 private:
  static constexpr double kInfinity = std::numeric_limits<double>::infinity();

  // |got - ref| / 2^spacing_exponent, scaled in MPFR so that no double underflows on the way.
  double spacings_to(double got, int spacing_exponent) {
    mpfr_set_d(diff_, got, MPFR_RNDN);
    mpfr_sub(diff_, diff_, ref_, MPFR_RNDN);
    mpfr_abs(diff_, diff_, MPFR_RNDN);
    mpfr_mul_2si(diff_, diff_, -spacing_exponent, MPFR_RNDN);
    return mpfr_get_d(diff_, MPFR_RNDN);
  }

  mpfr_t x_, y_, ref_, diff_;
};

}  // namespace onemodel::testing
