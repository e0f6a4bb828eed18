// Sigmoid: 1 / (1 + e^-x) by the exact sigmoid (spec/ops/elementwise.md section 8); float64
// (section 10): the steps of the float32 sigmoid in binary64 with the exact binary64 exponential
// (spec/exact-transcendentals.md section 15.4), exact in both modes.
#include "reference/math/exact_math.hpp"
#include "reference/math/exact_hyperbolic64.hpp"
#include "reference/ops/elementwise_kernels.hpp"

namespace onemodel {
namespace {

struct SigmoidFn {
  float operator()(float x) const noexcept { return exact::sigmoid(x); }
  double operator()(double x) const noexcept { return exact::sigmoid_f64(x); }
};

}  // namespace

std::unique_ptr<OpKernel> make_sigmoid(const NodeInfo&) { return ew::make_unary<ew::F32F64Types>(SigmoidFn{}); }

}  // namespace onemodel
