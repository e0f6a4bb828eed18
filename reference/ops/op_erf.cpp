// Erf: the exact error function (spec/ops/elementwise.md section 8; float64: section 10, the
// exact binary64 erf_f64 of spec/exact-transcendentals.md section 17, in both modes).
#include "reference/math/exact_math.hpp"
#include "reference/math/exact_hyperbolic64.hpp"
#include "reference/ops/elementwise_kernels.hpp"

namespace onemodel {
namespace {

struct ErfFn {
  float operator()(float x) const noexcept { return exact::erf(x); }
  double operator()(double x) const noexcept { return exact::erf_f64(x); }
};

}  // namespace

std::unique_ptr<OpKernel> make_erf(const NodeInfo&) { return ew::make_unary<ew::F32F64Types>(ErfFn{}); }

}  // namespace onemodel
