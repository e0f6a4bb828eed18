// Neg: -x (spec/ops/elementwise.md sections 1 and 4). Floats flip the sign bit; signed integers wrap (-MinValue = MinValue).
#include <cmath>
#include <type_traits>
#include "reference/ops/integer_wrap.hpp"
#include "reference/ops/elementwise_kernels.hpp"

namespace onemodel {
namespace {

struct NegFn {
  template <class V>
  V operator()(V x) const noexcept {
    if constexpr (std::is_floating_point_v<V>) return -x;
    else return ew::wrap_neg(x);
  }
};

}  // namespace

std::unique_ptr<OpKernel> make_neg(const NodeInfo&) { return ew::make_unary<ew::SignedNumericTypes>(NegFn{}); }

}  // namespace onemodel
