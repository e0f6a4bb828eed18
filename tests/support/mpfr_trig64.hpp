// The MPFR oracle for the exact binary64 trigonometric functions (spec/exact-transcendentals.md
// section 16): MPFR's correctly rounded sin, cos, tan, atan, asin, acos at 256 bits evaluated at
// the double input (MPFR reduces by its own pi, so a huge argument is reduced correctly), and the
// error of a binary64 result in units of the binary64 spacing at the correctly rounded reference
// (2^-1074 in the subnormal range). Header-only: only the targets that link mpfr and gmp include it.
#pragma once

#include <mpfr.h>

#include <cmath>
#include <limits>

namespace onemodel::testing {

enum class Trig64Function { sin, cos, tan, atan, asin, acos };

inline const char* trig64_name(Trig64Function f) {
  switch (f) {
    case Trig64Function::sin: return "sin";
    case Trig64Function::cos: return "cos";
    case Trig64Function::tan: return "tan";
    case Trig64Function::atan: return "atan";
    case Trig64Function::asin: return "asin";
    case Trig64Function::acos: return "acos";
  }
  return "?";
}

class MpfrTrig64 {
 public:
  MpfrTrig64() { mpfr_inits2(256, x_, ref_, diff_, static_cast<mpfr_ptr>(nullptr)); }
  ~MpfrTrig64() { mpfr_clears(x_, ref_, diff_, static_cast<mpfr_ptr>(nullptr)); }
  MpfrTrig64(const MpfrTrig64&) = delete;
  MpfrTrig64& operator=(const MpfrTrig64&) = delete;

  // ref_ = f(x) for a finite x in the function's domain.
  void evaluate(Trig64Function f, double x) {
    mpfr_set_d(x_, x, MPFR_RNDN);  // exact
    switch (f) {
      case Trig64Function::sin: mpfr_sin(ref_, x_, MPFR_RNDN); break;
      case Trig64Function::cos: mpfr_cos(ref_, x_, MPFR_RNDN); break;
      case Trig64Function::tan: mpfr_tan(ref_, x_, MPFR_RNDN); break;
      case Trig64Function::atan: mpfr_atan(ref_, x_, MPFR_RNDN); break;
      case Trig64Function::asin: mpfr_asin(ref_, x_, MPFR_RNDN); break;
      case Trig64Function::acos: mpfr_acos(ref_, x_, MPFR_RNDN); break;
    }
  }

  // The binary64 value nearest the reference (mpfr_get_d rounds subnormals too).
  double rounded() const { return mpfr_get_d(ref_, MPFR_RNDN); }

  // log2 of the binary64 spacing at r.
  static int spacing_exponent(double r) {
    const double a = std::fabs(r);
    if (a < std::numeric_limits<double>::min()) return -1074;
    int e = 0;
    std::frexp(a, &e);  // a = m 2^e, m in [0.5, 1): spacing 2^(e-53)
    return e - 53;
  }

  // |got - f(x)| in binary64 spacings at the correctly rounded reference; a non-finite got has an
  // infinite error (no function here reaches an infinity from a finite argument).
  double ulp_error(double got) {
    if (!std::isfinite(got)) return std::numeric_limits<double>::infinity();
    const double r = rounded();
    mpfr_set_d(diff_, got, MPFR_RNDN);
    mpfr_sub(diff_, diff_, ref_, MPFR_RNDN);
    mpfr_abs(diff_, diff_, MPFR_RNDN);
    mpfr_mul_2si(diff_, diff_, -spacing_exponent(r), MPFR_RNDN);
    return mpfr_get_d(diff_, MPFR_RNDN);
  }

 private:
  mpfr_t x_, ref_, diff_;
};

}  // namespace onemodel::testing
