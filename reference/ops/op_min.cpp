// Min: the element-wise minimum of its inputs, folded left to right with broadcasting
// (spec/ops/elementwise.md sections 2 and 3). A NaN operand gives NaN (the first one's if both);
// equal operands give the second, so Min(-0, +0) = +0 and Min(+0, -0) = -0.
#include <cmath>
#include <type_traits>

#include "reference/ops/elementwise_kernels.hpp"

namespace onemodel {
namespace {

struct MinFn {
  template <class V>
  V operator()(V a, V b) const noexcept {
    if constexpr (std::is_floating_point_v<V>) {
      if (std::isnan(a)) return a;
      if (std::isnan(b)) return b;
    }
    return a < b ? a : b;
  }
};

}  // namespace

std::unique_ptr<OpKernel> make_min(const NodeInfo&) {
  return std::make_unique<ew::VariadicKernel<ew::NumericTypes, MinFn>>(MinFn{});
}

}  // namespace onemodel
