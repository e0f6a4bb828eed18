// Exp: e^x by the exact exponential (spec/ops/elementwise.md section 8); float64 by the exact
// binary64 exponential (spec/exact-transcendentals.md section 15), in both modes.
#include "reference/math/exact_math.hpp"
#include "reference/math/exact_math64.hpp"
#include "reference/ops/elementwise_kernels.hpp"

namespace onemodel {
namespace {

struct ExpFn {
  float operator()(float x) const noexcept { return exact::exp(x); }
  double operator()(double x) const noexcept { return exact::exp_f64(x); }
};

}  // namespace

std::unique_ptr<OpKernel> make_exp(const NodeInfo&) { return ew::make_unary<ew::F32F64Types>(ExpFn{}); }

}  // namespace onemodel
