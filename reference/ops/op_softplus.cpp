// Softplus: log(e^x + 1) from the exact functions, each operation rounded (spec/ops/elementwise.md section 9);
// float64 (section 10): log(exp(x) + 1) with the exact binary64 functions
// (spec/exact-transcendentals.md section 15), exact in both modes.
#include "reference/math/exact_math.hpp"
#include "reference/math/exact_math64.hpp"
#include "reference/ops/elementwise_kernels.hpp"

namespace onemodel {
namespace {

struct SoftplusFn {
  float operator()(float x) const noexcept { return exact::log(exact::exp(x) + 1.0f); }
  double operator()(double x) const noexcept { return exact::log_f64(exact::exp_f64(x) + 1.0); }
};

}  // namespace

std::unique_ptr<OpKernel> make_softplus(const NodeInfo&) { return ew::make_unary<ew::F32F64Types>(SoftplusFn{}); }

}  // namespace onemodel
