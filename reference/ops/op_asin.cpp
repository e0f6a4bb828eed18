// Asin: the exact binary32 arcsine (spec/exact-transcendentals.md section 13), in both modes;
// float64 (spec/ops/elementwise.md section 10): the platform's std::asin, refused in exact mode.
#include <cmath>

#include "reference/math/exact_trig.hpp"
#include "reference/ops/elementwise_kernels.hpp"

namespace onemodel {
namespace {

struct AsinFn {
  float operator()(float x) const noexcept { return exact::asin(x); }
  double operator()(double x) const noexcept { return std::asin(x); }
};

}  // namespace

std::unique_ptr<OpKernel> make_asin(const NodeInfo&) { return ew::make_unary_f64_inexact<ew::F32F64Types>(AsinFn{}); }

}  // namespace onemodel
