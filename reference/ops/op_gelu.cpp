// Gelu (opset 20): x * Phi(x), erf form (approximate = "none") or tanh form (approximate =
// "tanh"), both the exact functions (spec/ops/elementwise.md section 8; f32 only). Gelu(-inf) is
// -0, the limit.
#include <string>

#include "reference/math/exact_math.hpp"
#include "reference/ops/elementwise_kernels.hpp"

namespace onemodel {
namespace {

struct GeluFn {
  bool tanh_form;
  float operator()(float x) const noexcept { return tanh_form ? exact::gelu_tanh(x) : exact::gelu_erf(x); }
};

}  // namespace

std::unique_ptr<OpKernel> make_gelu(const NodeInfo& node) {
  const std::string approximate = node.get_string("approximate", "none");
  if (approximate != "none" && approximate != "tanh") {
    node.fail_invalid("approximate must be \"none\" or \"tanh\", not \"" + approximate + "\"");
  }
  return ew::make_unary<ew::F32Types>(GeluFn{approximate == "tanh"});
}

}  // namespace onemodel
