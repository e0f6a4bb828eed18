// ThresholdedRelu (opset 10): x > alpha ? x : 0 (default alpha 1) (spec/ops/elementwise.md
// section 9); float64 in double with alpha widened exactly, exact (section 10).
#include "reference/ops/elementwise_kernels.hpp"

namespace onemodel {
namespace {

struct ThresholdedReluFn {
  float alpha;
  template <class V>
  V operator()(V x) const noexcept {
    return x > static_cast<V>(alpha) ? x : V{0};
  }
};

}  // namespace

std::unique_ptr<OpKernel> make_thresholded_relu(const NodeInfo& node) {
  return ew::make_unary<ew::F32F64Types>(ThresholdedReluFn{node.get_float("alpha", 1.0f)});
}

}  // namespace onemodel
