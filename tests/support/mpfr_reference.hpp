// The MPFR oracle for the exact transcendental functions (spec/exact-transcendentals.md section
// "Measured error"): the mathematical function evaluated at the float input in 64-bit precision
// (correctly rounded MPFR primitives, arranged so that nothing cancels), and the error of a float32
// result in units of the float32 spacing at the correctly rounded reference. Header-only, so that
// only the targets that link mpfr and gmp include it (tests/unit/exact_transcendentals_test.cpp,
// tools/ulp_table/main.cpp).
#pragma once

#include <mpfr.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

namespace onemodel::testing {

enum class MathFunction { exp, log, sigmoid, tanh, erf, one_plus_erf, gelu_erf, gelu_tanh };

// Working precision of the reference: 64 bits is 40 bits beyond float32, so the reference error is
// below 1e-11 float ulps, far below the three decimals reported.
inline constexpr mpfr_prec_t kReferencePrecision = 64;

class MpfrReference {
 public:
  MpfrReference() {
    mpfr_inits2(kReferencePrecision, x_, y_, t_, ref_, diff_, static_cast<mpfr_ptr>(nullptr));
  }
  ~MpfrReference() { mpfr_clears(x_, y_, t_, ref_, diff_, static_cast<mpfr_ptr>(nullptr)); }
  MpfrReference(const MpfrReference&) = delete;
  MpfrReference& operator=(const MpfrReference&) = delete;

  // Sets ref_ to f(x). x must be finite (and > 0 for log); special values are tested by bits.
  void evaluate(MathFunction f, float x) {
    mpfr_set_flt(x_, x, MPFR_RNDN);  // exact
    switch (f) {
      case MathFunction::exp: mpfr_exp(ref_, x_, MPFR_RNDN); break;
      case MathFunction::log: mpfr_log(ref_, x_, MPFR_RNDN); break;
      case MathFunction::tanh: mpfr_tanh(ref_, x_, MPFR_RNDN); break;
      case MathFunction::erf: mpfr_erf(ref_, x_, MPFR_RNDN); break;
      case MathFunction::one_plus_erf:  // erfc(-x), no cancellation for x < 0
        mpfr_neg(y_, x_, MPFR_RNDN);
        mpfr_erfc(ref_, y_, MPFR_RNDN);
        break;
      case MathFunction::sigmoid:  // 1 / (1 + e^-x)
        mpfr_neg(y_, x_, MPFR_RNDN);
        reciprocal_one_plus_exp(y_);
        break;
      case MathFunction::gelu_erf:  // x * Phi(x) = (x/2) * erfc(-x / sqrt 2)
        mpfr_set_ui(t_, 2, MPFR_RNDN);
        mpfr_sqrt(t_, t_, MPFR_RNDN);
        mpfr_div(y_, x_, t_, MPFR_RNDN);
        mpfr_neg(y_, y_, MPFR_RNDN);
        mpfr_erfc(ref_, y_, MPFR_RNDN);
        mpfr_mul(ref_, ref_, x_, MPFR_RNDN);
        mpfr_div_2ui(ref_, ref_, 1, MPFR_RNDN);
        break;
      case MathFunction::gelu_tanh: {  // 0.5 x (1 + tanh u) = x / (1 + e^{-2u}),
        // u = sqrt(2/pi) (x + 0.044715 x^3) with the exact constants.
        mpfr_pow_ui(y_, x_, 3, MPFR_RNDN);
        mpfr_set_str(t_, "0.044715", 10, MPFR_RNDN);
        mpfr_mul(y_, y_, t_, MPFR_RNDN);
        mpfr_add(y_, y_, x_, MPFR_RNDN);
        mpfr_const_pi(t_, MPFR_RNDN);
        mpfr_ui_div(t_, 2, t_, MPFR_RNDN);
        mpfr_sqrt(t_, t_, MPFR_RNDN);
        mpfr_mul(y_, y_, t_, MPFR_RNDN);   // u
        mpfr_mul_si(y_, y_, -2, MPFR_RNDN);  // -2u
        reciprocal_one_plus_exp(y_);
        mpfr_mul(ref_, ref_, x_, MPFR_RNDN);
        break;
      }
    }
  }

  // The correctly rounded float32 of the last reference (MPFR rounds subnormals correctly).
  float rounded() const { return mpfr_get_flt(ref_, MPFR_RNDN); }

  // The last reference rounded to double (for reporting).
  double value() const { return mpfr_get_d(ref_, MPFR_RNDN); }

  // |got - reference| / spacing, the spacing being that of float32 at the correctly rounded
  // reference: 2^(E-23) for a normal value with exponent E, 2^-149 for zero and subnormals,
  // 2^104 if the reference rounds to infinity. An infinite `got` with an infinite rounded
  // reference of the same sign counts as 0; any other non-finite `got` is an infinite error.
  double ulp_error(float got) {
    const float rounded_ref = rounded();
    if (std::isinf(got) || std::isnan(got)) {
      return (std::isinf(got) && got == rounded_ref) ? 0.0 : std::numeric_limits<double>::infinity();
    }
    mpfr_set_flt(diff_, got, MPFR_RNDN);
    mpfr_sub(diff_, diff_, ref_, MPFR_RNDN);
    mpfr_abs(diff_, diff_, MPFR_RNDN);
    return std::ldexp(mpfr_get_d(diff_, MPFR_RNDN), -spacing_exponent(rounded_ref));
  }

  // log2 of the float32 spacing at r (r finite or infinite).
  static int spacing_exponent(float r) {
    if (std::isinf(r)) return 104;
    const float a = std::fabs(r);
    if (a < std::numeric_limits<float>::min()) return -149;
    int e = 0;
    std::frexp(a, &e);  // a = m 2^e, m in [0.5, 1): spacing 2^(e-24)
    return e - 24;
  }

 private:
  // ref_ = 1 / (1 + e^v).
  void reciprocal_one_plus_exp(mpfr_ptr v) {
    mpfr_exp(t_, v, MPFR_RNDN);
    mpfr_add_ui(t_, t_, 1, MPFR_RNDN);
    mpfr_ui_div(ref_, 1, t_, MPFR_RNDN);
  }

  mpfr_t x_, y_, t_, ref_, diff_;
};

}  // namespace onemodel::testing
