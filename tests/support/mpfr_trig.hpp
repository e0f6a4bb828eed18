// The MPFR oracle for the exact trigonometric and hyperbolic functions (spec/exact-transcendentals.md
// sections 11-14): MPFR's correctly rounded functions at 64 bits evaluated at the float input (MPFR
// reduces large arguments itself), and the error of a float32 result in units of the float32 spacing
// at the correctly rounded reference (as tests/support/mpfr_reference.hpp defines it). Header-only:
// only the targets that link mpfr and gmp include it.
#pragma once

#include <mpfr.h>

#include <cmath>
#include <limits>

#include "tests/support/mpfr_reference.hpp"

namespace onemodel::testing {

enum class TrigFunction { sin, cos, tan, sinh, cosh, asinh, acosh, atanh, atan, asin, acos };

class MpfrTrig {
 public:
  MpfrTrig() { mpfr_inits2(kReferencePrecision, x_, ref_, diff_, static_cast<mpfr_ptr>(nullptr)); }
  ~MpfrTrig() { mpfr_clears(x_, ref_, diff_, static_cast<mpfr_ptr>(nullptr)); }
  MpfrTrig(const MpfrTrig&) = delete;
  MpfrTrig& operator=(const MpfrTrig&) = delete;

  // ref_ = f(x) for a finite x inside f's domain.
  void evaluate(TrigFunction f, float x) {
    mpfr_set_flt(x_, x, MPFR_RNDN);  // exact
    switch (f) {
      case TrigFunction::sin: mpfr_sin(ref_, x_, MPFR_RNDN); break;
      case TrigFunction::cos: mpfr_cos(ref_, x_, MPFR_RNDN); break;
      case TrigFunction::tan: mpfr_tan(ref_, x_, MPFR_RNDN); break;
      case TrigFunction::sinh: mpfr_sinh(ref_, x_, MPFR_RNDN); break;
      case TrigFunction::cosh: mpfr_cosh(ref_, x_, MPFR_RNDN); break;
      case TrigFunction::asinh: mpfr_asinh(ref_, x_, MPFR_RNDN); break;
      case TrigFunction::acosh: mpfr_acosh(ref_, x_, MPFR_RNDN); break;
      case TrigFunction::atanh: mpfr_atanh(ref_, x_, MPFR_RNDN); break;
      case TrigFunction::atan: mpfr_atan(ref_, x_, MPFR_RNDN); break;
      case TrigFunction::asin: mpfr_asin(ref_, x_, MPFR_RNDN); break;
      case TrigFunction::acos: mpfr_acos(ref_, x_, MPFR_RNDN); break;
    }
  }

  float rounded() const { return mpfr_get_flt(ref_, MPFR_RNDN); }
  double value() const { return mpfr_get_d(ref_, MPFR_RNDN); }

  // |got - f(x)| in float32 spacings at the correctly rounded reference; an infinite got equal to
  // the rounded reference is 0, any other non-finite got an infinite error.
  double ulp_error(float got) {
    const float r = rounded();
    if (std::isinf(got) || std::isnan(got)) {
      return (std::isinf(got) && got == r) ? 0.0 : std::numeric_limits<double>::infinity();
    }
    mpfr_set_flt(diff_, got, MPFR_RNDN);
    mpfr_sub(diff_, diff_, ref_, MPFR_RNDN);
    mpfr_abs(diff_, diff_, MPFR_RNDN);
    mpfr_mul_2si(diff_, diff_, -MpfrReference::spacing_exponent(r), MPFR_RNDN);
    return mpfr_get_d(diff_, MPFR_RNDN);
  }

 private:
  mpfr_t x_, ref_, diff_;
};

// The domain each function is measured on: finite inputs, and for the inverse functions the
// inputs where the value is real and finite.
inline bool in_trig_domain(TrigFunction f, float x) {
  if (!std::isfinite(x)) return false;
  switch (f) {
    case TrigFunction::acosh: return x >= 1.0f;
    case TrigFunction::atanh: return std::fabs(x) < 1.0f;
    case TrigFunction::asin:
    case TrigFunction::acos: return std::fabs(x) <= 1.0f;
    default: return true;
  }
}

}  // namespace onemodel::testing
