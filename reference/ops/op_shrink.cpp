// Shrink (opset 9): x < -lambd ? x + bias : (x > lambd ? x - bias : 0) (defaults bias 0, lambd
// 0.5), computed in binary32 (spec/ops/elementwise.md section 9; f32 only).
#include "reference/ops/elementwise_kernels.hpp"

namespace onemodel {
namespace {

struct ShrinkFn {
  float bias;
  float lambd;
  float operator()(float x) const noexcept {
    if (x < -lambd) return x + bias;
    if (x > lambd) return x - bias;
    return 0.0f;
  }
};

}  // namespace

std::unique_ptr<OpKernel> make_shrink(const NodeInfo& node) {
  return ew::make_unary<ew::F32Types>(ShrinkFn{node.get_float("bias", 0.0f), node.get_float("lambd", 0.5f)});
}

}  // namespace onemodel
