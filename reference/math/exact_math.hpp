// The exact-mode float32 transcendental functions (spec/exact-transcendentals.md).
// Each function is evaluated as the spec writes it: IEEE binary32, round to nearest even, one
// rounding per operation, no fused multiply-add (the build uses -ffp-contract=off), no library
// math, subnormals computed. The results are therefore the same bits on every platform, and
// every NaN result is the canonical quiet NaN 0x7FC00000.
#pragma once

namespace onemodel::exact {

// e^x. spec/exact-transcendentals.md section "exp(x)".
float exp(float x) noexcept;

// e^x for x <= 0 (softmax, attention): flushes to +0 below -87.33654 instead of producing
// subnormals; equal to exp bit for bit on [-87.33654, 0]. Spec section "exp(x)", ExpNonPositive.
float exp_non_positive(float x) noexcept;

// Natural logarithm. Spec section "log(x)".
float log(float x) noexcept;

// 1 / (1 + e^-x). Spec section "sigmoid(x)".
float sigmoid(float x) noexcept;

// Hyperbolic tangent. Spec section "tanh(x)".
float tanh(float x) noexcept;

// Error function, and 1 + erf(x) computed without cancellation for negative x.
// Spec section "erf(x), and 1 + erf(x)".
float erf(float x) noexcept;
float one_plus_erf(float x) noexcept;

// GELU, x * Phi(x): erf form and tanh approximation. Spec section "GELU".
float gelu_erf(float x) noexcept;
float gelu_tanh(float x) noexcept;

}  // namespace onemodel::exact
