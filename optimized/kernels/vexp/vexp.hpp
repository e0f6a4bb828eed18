// Vectorized exponentials over arrays (exact-transcendentals.md): exp_non_positive with the
// reference operation sequence (bit-identical to onemodel::exact::exp_non_positive on every
// path) and the fast exponential of fast-mode softmax and attention.
#pragma once

#include <cstddef>

#include "optimized/frame/isa.hpp"

namespace onemodel::opt {

// y[i] = ExpNonPositive(x[i]) (exact; meant for x <= 0 or NaN). x and y may be the same array.
void exp_non_positive_f32(Isa isa, const float* x, float* y, std::size_t n) noexcept;

// y[i] = FastMath.Exp(x[i]) (fast mode; about 2.3 ulp, +0 below -87.3).
void fast_exp_f32(Isa isa, const float* x, float* y, std::size_t n) noexcept;

}  // namespace onemodel::opt
