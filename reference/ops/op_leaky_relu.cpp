// LeakyRelu: x < 0 ? alpha * x : x (default alpha 0.01); NaN passes through
// (spec/ops/elementwise.md section 8; f32 only).
#include "reference/ops/elementwise_kernels.hpp"

namespace onemodel {
namespace {

struct LeakyReluFn {
  float alpha;
  float operator()(float x) const noexcept { return x < 0.0f ? alpha * x : x; }
};

}  // namespace

std::unique_ptr<OpKernel> make_leaky_relu(const NodeInfo& node) {
  return ew::make_unary<ew::F32Types>(LeakyReluFn{node.get_float("alpha", 0.01f)});
}

}  // namespace onemodel
