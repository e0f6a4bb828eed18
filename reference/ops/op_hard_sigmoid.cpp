// HardSigmoid: clamp(alpha * x + beta, 0, 1), the product rounded and then the sum (defaults
// alpha 0.2, beta 0.5); NaN passes through (spec/ops/elementwise.md section 8). float64: the same steps in double with
// the attributes widened exactly, so exact too (section 10).
#include "reference/ops/elementwise_kernels.hpp"

namespace onemodel {
namespace {

struct HardSigmoidFn {
  float alpha;
  float beta;
  template <class V>
  V operator()(V x) const noexcept {
    const V product = static_cast<V>(alpha) * x;
    V v = product + static_cast<V>(beta);
    if (v < V{0}) v = V{0};
    if (v > V{1}) v = V{1};
    return v;
  }
};

}  // namespace

std::unique_ptr<OpKernel> make_hard_sigmoid(const NodeInfo& node) {
  return ew::make_unary<ew::F32F64Types>(HardSigmoidFn{node.get_float("alpha", 0.2f), node.get_float("beta", 0.5f)});
}

}  // namespace onemodel
