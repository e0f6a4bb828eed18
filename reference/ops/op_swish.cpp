// Swish (opset 24): x * Sigmoid(alpha * x), alpha default 1 (ONNX Swish text), evaluated as
// written: the product alpha * x rounded, the exact sigmoid, the final product rounded
// (spec/ops/elementwise.md section 9). float64 (section 10): x * sigmoid_f64(alpha * x), the float64
// Sigmoid (spec/exact-transcendentals.md section 15.4), exact in both modes.
#include "reference/math/exact_hyperbolic64.hpp"
#include "reference/math/exact_math.hpp"
#include "reference/ops/elementwise_kernels.hpp"

namespace onemodel {
namespace {

struct SwishFn {
  float alpha;
  float operator()(float x) const noexcept { return x * exact::sigmoid(alpha * x); }
  double operator()(double x) const noexcept {
    const double a = alpha;  // the float attribute, widened exactly
    return x * exact::sigmoid_f64(a * x);
  }
};

}  // namespace

std::unique_ptr<OpKernel> make_swish(const NodeInfo& node) {
  return ew::make_unary<ew::F32F64Types>(SwishFn{node.get_float("alpha", 1.0f)});
}

}  // namespace onemodel
