// HardSwish (opset 14): x * clamp(x * 0.16666667f + 0.5f, 0, 1), each operation rounded
// (spec/ops/elementwise.md section 8; f32 only).
#include "reference/ops/elementwise_kernels.hpp"

namespace onemodel {
namespace {

struct HardSwishFn {
  float operator()(float x) const noexcept {
    const float product = x * 0.16666667f;
    float gate = product + 0.5f;
    if (gate < 0.0f) gate = 0.0f;
    if (gate > 1.0f) gate = 1.0f;
    return x * gate;
  }
};

}  // namespace

std::unique_ptr<OpKernel> make_hard_swish(const NodeInfo&) { return ew::make_unary<ew::F32Types>(HardSwishFn{}); }

}  // namespace onemodel
