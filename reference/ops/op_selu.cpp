// Selu: x > 0 ? gamma * x : gamma * (alpha * e^x - alpha), exact exponential, each operation
// rounded; defaults alpha 1.67326319217681884765625, gamma 1.05070102214813232421875
// (spec/ops/elementwise.md section 9). float64 (section 10): the same expression with the attributes
// widened and the exact binary64 exponential (spec/exact-transcendentals.md section 15), exact in
// both modes.
#include "reference/math/exact_math.hpp"
#include "reference/math/exact_math64.hpp"
#include "reference/ops/elementwise_kernels.hpp"

namespace onemodel {
namespace {

struct SeluFn {
  float alpha;
  float gamma;
  float operator()(float x) const noexcept {
    if (x > 0.0f) return gamma * x;
    return gamma * (alpha * exact::exp(x) - alpha);
  }
  double operator()(double x) const noexcept {
    const double a = alpha;
    const double g = gamma;
    if (x > 0.0) return g * x;
    return g * (a * exact::exp_f64(x) - a);
  }
};

}  // namespace

std::unique_ptr<OpKernel> make_selu(const NodeInfo& node) {
  return ew::make_unary<ew::F32F64Types>(
      SeluFn{node.get_float("alpha", 1.67326319217681884765625f), node.get_float("gamma", 1.05070102214813232421875f)});
}

}  // namespace onemodel
