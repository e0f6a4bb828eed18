// Mish: x * tanh(log(1 + e^x)) from the exact functions, each operation rounded (spec/ops/elementwise.md section 9);
// float64 (section 10): x * tanh_f64(log_f64(exp_f64(x) + 1)), the float64 Softplus inside, with the
// exact binary64 functions (spec/exact-transcendentals.md sections 15 and 17), in both modes.
#include "reference/math/exact_hyperbolic64.hpp"
#include "reference/math/exact_math.hpp"
#include "reference/math/exact_math64.hpp"
#include "reference/ops/elementwise_kernels.hpp"

namespace onemodel {
namespace {

struct MishFn {
  float operator()(float x) const noexcept { return x * exact::tanh(exact::log(exact::exp(x) + 1.0f)); }
  double operator()(double x) const noexcept { return x * exact::tanh_f64(exact::log_f64(exact::exp_f64(x) + 1.0)); }
};

}  // namespace

std::unique_ptr<OpKernel> make_mish(const NodeInfo&) { return ew::make_unary<ew::F32F64Types>(MishFn{}); }

}  // namespace onemodel
