// The MPFR oracle for the exact binary64 exp and log (spec/exact-transcendentals.md section 15):
// MPFR's correctly rounded exp and log at 128 bits evaluated at the double input, and the error of
// a binary64 result in units of the binary64 spacing at the correctly rounded reference (2^-1074
// in the subnormal range). Header-only: only the targets that link mpfr and gmp include it.
#pragma once

#include <mpfr.h>

#include <cmath>
#include <limits>

namespace onemodel::testing {

enum class F64Function { exp, log };

class MpfrF64 {
 public:
  MpfrF64() { mpfr_inits2(128, x_, ref_, diff_, static_cast<mpfr_ptr>(nullptr)); }
  ~MpfrF64() { mpfr_clears(x_, ref_, diff_, static_cast<mpfr_ptr>(nullptr)); }
  MpfrF64(const MpfrF64&) = delete;
  MpfrF64& operator=(const MpfrF64&) = delete;

  // ref_ = f(x) for a finite x (x > 0 for log).
  void evaluate(F64Function f, double x) {
    mpfr_set_d(x_, x, MPFR_RNDN);  // exact
    if (f == F64Function::exp) mpfr_exp(ref_, x_, MPFR_RNDN);
    else mpfr_log(ref_, x_, MPFR_RNDN);
  }

  // ref_ = fn(x) for any MPFR function of one argument (mpfr_sinh, mpfr_erf, ...; the functions of
  // spec/exact-transcendentals.md section 17), at a double x inside its domain.
  using Unary = int (*)(mpfr_ptr, mpfr_srcptr, mpfr_rnd_t);
  void evaluate_with(Unary fn, double x) {
    mpfr_set_d(x_, x, MPFR_RNDN);  // exact
    fn(ref_, x_, MPFR_RNDN);
  }

  // The binary64 value nearest the 128-bit reference (mpfr_get_d rounds subnormals too).
  double rounded() const { return mpfr_get_d(ref_, MPFR_RNDN); }

  // log2 of the binary64 spacing at r.
  static int spacing_exponent(double r) {
    if (std::isinf(r)) return 971;
    const double a = std::fabs(r);
    if (a < std::numeric_limits<double>::min()) return -1074;
    int e = 0;
    std::frexp(a, &e);  // a = m 2^e, m in [0.5, 1): spacing 2^(e-53)
    return e - 53;
  }

  // |got - f(x)| in binary64 spacings at the correctly rounded reference; an infinite got equal to
  // the rounded reference is 0, any other non-finite got an infinite error.
  double ulp_error(double got) {
    const double r = rounded();
    if (std::isinf(got) || std::isnan(got)) {
      return (std::isinf(got) && got == r) ? 0.0 : std::numeric_limits<double>::infinity();
    }
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
