// Shrink (opset 9): x < -lambd ? x + bias : (x > lambd ? x - bias : 0) (defaults bias 0, lambd
// 0.5), computed in binary32 (spec/ops/elementwise.md section 9); float64 in double
// with the attributes widened exactly, exact (section 10). The integer types are not served.
#include "reference/ops/elementwise_kernels.hpp"

namespace onemodel {
namespace {

struct ShrinkFn {
  float bias;
  float lambd;
  template <class V>
  V operator()(V x) const noexcept {
    const V l = static_cast<V>(lambd);
    const V b = static_cast<V>(bias);
    if (x < -l) return x + b;
    if (x > l) return x - b;
    return V{0};
  }
};

}  // namespace

std::unique_ptr<OpKernel> make_shrink(const NodeInfo& node) {
  return ew::make_unary<ew::F32F64Types>(ShrinkFn{node.get_float("bias", 0.0f), node.get_float("lambd", 0.5f)});
}

}  // namespace onemodel
