// LeakyRelu: x < 0 ? alpha * x : x (default alpha 0.01); NaN passes through
// (spec/ops/elementwise.md section 8); float64 in double with alpha widened
// exactly, exact (section 10).
#include "reference/ops/elementwise_kernels.hpp"

namespace onemodel {
namespace {

struct LeakyReluFn {
  float alpha;
  template <class V>
  V operator()(V x) const noexcept {
    return x < V{0} ? static_cast<V>(alpha) * x : x;
  }
};

}  // namespace

std::unique_ptr<OpKernel> make_leaky_relu(const NodeInfo& node) {
  return ew::make_unary<ew::F32F64Types>(LeakyReluFn{node.get_float("alpha", 0.01f)});
}

}  // namespace onemodel
