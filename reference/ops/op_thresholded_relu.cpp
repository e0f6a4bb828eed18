// ThresholdedRelu (opset 10): x > alpha ? x : 0 (default alpha 1) (spec/ops/elementwise.md
// section 9; f32 only).
#include "reference/ops/elementwise_kernels.hpp"

namespace onemodel {
namespace {

struct ThresholdedReluFn {
  float alpha;
  float operator()(float x) const noexcept { return x > alpha ? x : 0.0f; }
};

}  // namespace

std::unique_ptr<OpKernel> make_thresholded_relu(const NodeInfo& node) {
  return ew::make_unary<ew::F32Types>(ThresholdedReluFn{node.get_float("alpha", 1.0f)});
}

}  // namespace onemodel
