// Elu: x < 0 ? alpha * (e^x - 1) : x (default alpha 1), exact exponential, each operation rounded
// (spec/ops/elementwise.md section 9). float64 (section 10): the same expression with the exact
// binary64 exponential (spec/exact-transcendentals.md section 15), exact in both modes.
#include "reference/math/exact_math.hpp"
#include "reference/math/exact_math64.hpp"
#include "reference/ops/elementwise_kernels.hpp"

namespace onemodel {
namespace {

struct EluFn {
  float alpha;
  float operator()(float x) const noexcept { return x < 0.0f ? alpha * (exact::exp(x) - 1.0f) : x; }
  double operator()(double x) const noexcept {
    const double a = alpha;  // the float attribute, widened exactly
    return x < 0.0 ? a * (exact::exp_f64(x) - 1.0) : x;
  }
};

}  // namespace

std::unique_ptr<OpKernel> make_elu(const NodeInfo& node) {
  return ew::make_unary<ew::F32F64Types>(EluFn{node.get_float("alpha", 1.0f)});
}

}  // namespace onemodel
