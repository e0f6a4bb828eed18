// Mish: x * tanh(log(1 + e^x)) from the exact functions, each operation rounded (spec/ops/elementwise.md section 9; f32 only).
#include <cmath>
#include <type_traits>
#include "reference/math/exact_math.hpp"
#include "reference/ops/elementwise_kernels.hpp"

namespace onemodel {
namespace {

struct MishFn {
  template <class V>
  V operator()(V x) const noexcept {
    return x * exact::tanh(exact::log(exact::exp(x) + 1.0f));
  }
};

}  // namespace

std::unique_ptr<OpKernel> make_mish(const NodeInfo&) { return ew::make_unary<ew::F32Types>(MishFn{}); }

}  // namespace onemodel
