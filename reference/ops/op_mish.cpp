// Mish: x * tanh(log(1 + e^x)) from the exact functions, each operation rounded (spec/ops/elementwise.md section 9);
// float64 (section 10): x * tanh_f64(log1p_f64(exp_f64(x))) with the exact binary64 functions
// (spec/exact-transcendentals.md sections 15 and 17), in both modes; log1p keeps the softplus of a
// negative x accurate where log(e^x + 1) would round e^x + 1 to 1.
#include "reference/math/exact_hyperbolic64.hpp"
#include "reference/math/exact_math.hpp"
#include "reference/math/exact_math64.hpp"
#include "reference/ops/elementwise_kernels.hpp"

namespace onemodel {
namespace {

struct MishFn {
  float operator()(float x) const noexcept { return x * exact::tanh(exact::log(exact::exp(x) + 1.0f)); }
  double operator()(double x) const noexcept { return x * exact::tanh_f64(exact::log1p_f64(exact::exp_f64(x))); }
};

}  // namespace

std::unique_ptr<OpKernel> make_mish(const NodeInfo&) { return ew::make_unary<ew::F32F64Types>(MishFn{}); }

}  // namespace onemodel
