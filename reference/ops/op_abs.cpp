// Abs: |x| (spec/ops/elementwise.md sections 1 and 4). Floats clear the sign bit (Abs(-0) = +0); signed integers wrap (Abs(MinValue) = MinValue); unsigned values are unchanged.
#include <cmath>
#include <type_traits>
#include "reference/ops/integer_wrap.hpp"
#include "reference/ops/elementwise_kernels.hpp"

namespace onemodel {
namespace {

struct AbsFn {
  template <class V>
  V operator()(V x) const noexcept {
    if constexpr (std::is_floating_point_v<V>) return std::fabs(x);
    else if constexpr (std::is_unsigned_v<V>) return x;
    else return x < 0 ? ew::wrap_neg(x) : x;
  }
};

}  // namespace

std::unique_ptr<OpKernel> make_abs(const NodeInfo&) { return ew::make_unary<ew::NumericTypes>(AbsFn{}); }

}  // namespace onemodel
