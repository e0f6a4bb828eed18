// Tanh: the exact hyperbolic tangent (spec/ops/elementwise.md section 8; float64: section 10, the
// exact binary64 tanh_f64 of spec/exact-transcendentals.md section 17, in both modes).
#include "reference/math/exact_math.hpp"
#include "reference/math/exact_hyperbolic64.hpp"
#include "reference/ops/elementwise_kernels.hpp"

namespace onemodel {
namespace {

struct TanhFn {
  float operator()(float x) const noexcept { return exact::tanh(x); }
  double operator()(double x) const noexcept { return exact::tanh_f64(x); }
};

}  // namespace

std::unique_ptr<OpKernel> make_tanh(const NodeInfo&) { return ew::make_unary<ew::F32F64Types>(TanhFn{}); }

}  // namespace onemodel
