// The exact-mode binary64 exponential and logarithm (spec/exact-transcendentals.md section 15):
// IEEE binary64 + - * / rounded to nearest even, comparisons and integer operations on the 64-bit
// pattern, in the order the spec states; no fused multiply-add (the build uses -ffp-contract=off),
// no library math. The result depends on the input bits alone, so every platform gives the same
// bits. Every NaN result is the canonical quiet NaN 0x7FF8000000000000.
#pragma once

namespace onemodel::exact {

// e^x for a double x (section 15.2).
double exp_f64(double x) noexcept;

// Natural logarithm of a double x (section 15.3).
double log_f64(double x) noexcept;

}  // namespace onemodel::exact
