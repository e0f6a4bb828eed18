// HardSigmoid: clamp(alpha * x + beta, 0, 1), the product rounded and then the sum (defaults
// alpha 0.2, beta 0.5); NaN passes through (spec/ops/elementwise.md section 8; f32 only).
#include "reference/ops/elementwise_kernels.hpp"

namespace onemodel {
namespace {

struct HardSigmoidFn {
  float alpha;
  float beta;
  float operator()(float x) const noexcept {
    const float product = alpha * x;
    float v = product + beta;
    if (v < 0.0f) v = 0.0f;
    if (v > 1.0f) v = 1.0f;
    return v;
  }
};

}  // namespace

std::unique_ptr<OpKernel> make_hard_sigmoid(const NodeInfo& node) {
  return ew::make_unary<ew::F32Types>(HardSigmoidFn{node.get_float("alpha", 0.2f), node.get_float("beta", 0.5f)});
}

}  // namespace onemodel
