// HardSwish (opset 14): x * clamp(x * 0.16666667f + 0.5f, 0, 1), each operation rounded
// (spec/ops/elementwise.md section 8). float64: the same steps in double with
// alpha = 1.0 / 6.0 rounded to double (the schema's 1/6), exact (section 10).
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
  double operator()(double x) const noexcept {
    const double product = x * (1.0 / 6.0);
    double gate = product + 0.5;
    if (gate < 0.0) gate = 0.0;
    if (gate > 1.0) gate = 1.0;
    return x * gate;
  }
};

}  // namespace

std::unique_ptr<OpKernel> make_hard_swish(const NodeInfo&) { return ew::make_unary<ew::F32F64Types>(HardSwishFn{}); }

}  // namespace onemodel
