// The exact-mode binary64 hyperbolic functions, their inverses, erf and the small pieces built on
// them (spec/exact-transcendentals.md section 17): IEEE binary64 + - * / and square root rounded
// to nearest even, comparisons and bit operations on the 64-bit pattern, in the order the spec
// states; no fused multiply-add (-ffp-contract=off), no library math. The result depends on the
// input bits alone, so every platform gives the same bits. Every NaN result is the canonical quiet
// NaN 0x7FF8000000000000.
#pragma once

namespace onemodel::exact {

// e^x - 1 and ln(1 + x), accurate for small x (section 17.2, 17.3).
double expm1_f64(double x) noexcept;
double log1p_f64(double x) noexcept;

// Section 17.4.
double sinh_f64(double x) noexcept;
double cosh_f64(double x) noexcept;
double tanh_f64(double x) noexcept;
double asinh_f64(double x) noexcept;
double acosh_f64(double x) noexcept;
double atanh_f64(double x) noexcept;

// erf(x) and 1 + erf(x) (the latter without cancellation for x < 0; used by the float64 Gelu),
// section 17.5.
double erf_f64(double x) noexcept;
double one_plus_erf_f64(double x) noexcept;

// The float64 sigmoid of section 15.4 (s = exp_f64(0 - |x|), num = (x >= 0) ? 1 : s,
// num / (1 + s)), one definition for Sigmoid, Swish and the tanh form of Gelu.
double sigmoid_f64(double x) noexcept;

}  // namespace onemodel::exact
