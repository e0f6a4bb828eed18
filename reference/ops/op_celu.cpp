// Celu (opset 12): max(0, x) + min(0, alpha * (e^(x / alpha) - 1)) (default alpha 1), exact
// exponential, each operation rounded (spec/ops/elementwise.md section 9; f32 only).
#include "reference/math/exact_math.hpp"
#include "reference/ops/elementwise_kernels.hpp"

namespace onemodel {
namespace {

struct CeluFn {
  float alpha;
  float operator()(float x) const noexcept {
    const float positive = x > 0.0f ? x : 0.0f;
    const float curve = alpha * (exact::exp(x / alpha) - 1.0f);
    const float negative = curve < 0.0f ? curve : 0.0f;
    return positive + negative;
  }
};

}  // namespace

std::unique_ptr<OpKernel> make_celu(const NodeInfo& node) {
  const float alpha = node.get_float("alpha", 1.0f);
  if (alpha == 0.0f) node.fail_invalid("alpha must not be 0");
  return ew::make_unary<ew::F32Types>(CeluFn{alpha});
}

}  // namespace onemodel
