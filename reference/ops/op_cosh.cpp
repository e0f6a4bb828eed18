// Cosh: the exact binary32 hyperbolic cosine (spec/exact-transcendentals.md section 12), in both modes;
// float64 (spec/ops/elementwise.md section 10): cosh_f64 of spec/exact-transcendentals.md section 17, both modes.

#include "reference/math/exact_trig.hpp"
#include "reference/math/exact_hyperbolic64.hpp"
#include "reference/ops/elementwise_kernels.hpp"

namespace onemodel {
namespace {

struct CoshFn {
  float operator()(float x) const noexcept { return exact::cosh(x); }
  double operator()(double x) const noexcept { return exact::cosh_f64(x); }
};

}  // namespace

std::unique_ptr<OpKernel> make_cosh(const NodeInfo&) { return ew::make_unary<ew::F32F64Types>(CoshFn{}); }

}  // namespace onemodel
