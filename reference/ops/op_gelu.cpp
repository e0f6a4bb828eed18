// Gelu (opset 20): x * Phi(x), erf form (approximate = "none") or tanh form (approximate =
// "tanh"), both the exact functions (spec/ops/elementwise.md section 8). Gelu(-inf) is -0, the
// limit. float64 (section 10): the same steps in binary64 with the exact binary64 functions of
// spec/exact-transcendentals.md section 17, (0.5 x) one_plus_erf_f64(x / sqrt 2) or
// x sigmoid_f64(2u), in both modes.
#include <cmath>
#include <string>

#include "reference/math/exact_hyperbolic64.hpp"
#include "reference/math/exact_math.hpp"
#include "reference/ops/elementwise_kernels.hpp"

namespace onemodel {
namespace {

struct GeluFn {
  bool tanh_form;
  float operator()(float x) const noexcept { return tanh_form ? exact::gelu_tanh(x) : exact::gelu_erf(x); }
  double operator()(double x) const noexcept {
    double value;
    if (tanh_form) {
      // u = sqrt(2 / pi) * (x + 0.044715 x^3), the schema's constants in double;
      // 0.5 x (1 + tanh u) = x sigmoid(2u), as the binary32 steps.
      const double u = 0.7978845608028654 * (x + 0.044715 * ((x * x) * x));
      value = x * exact::sigmoid_f64(u + u);
    } else {
      value = (0.5 * x) * exact::one_plus_erf_f64(x * 0.7071067811865476);
    }
    // The limit at -inf is -0, as in binary32 (the formulas give -inf * 0 = NaN there).
    return x == -HUGE_VAL ? -0.0 : value;
  }
};

}  // namespace

std::unique_ptr<OpKernel> make_gelu(const NodeInfo& node) {
  const std::string approximate = node.get_string("approximate", "none");
  if (approximate != "none" && approximate != "tanh") {
    node.fail_invalid("approximate must be \"none\" or \"tanh\", not \"" + approximate + "\"");
  }
  return ew::make_unary<ew::F32F64Types>(GeluFn{approximate == "tanh"});
}

}  // namespace onemodel
