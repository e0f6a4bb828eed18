// Tanh: the exact hyperbolic tangent (spec/ops/elementwise.md section 8; f32 only).
#include <cmath>
#include <type_traits>
#include "reference/math/exact_math.hpp"
#include "reference/ops/elementwise_kernels.hpp"

namespace onemodel {
namespace {

struct TanhFn {
  template <class V>
  V operator()(V x) const noexcept {
    return exact::tanh(x);
  }
};

}  // namespace

std::unique_ptr<OpKernel> make_tanh(const NodeInfo&) { return ew::make_unary<ew::F32Types>(TanhFn{}); }

}  // namespace onemodel
