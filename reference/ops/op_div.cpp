// Div: a / b, NumPy broadcasting (spec/ops/elementwise.md sections 1, 2 and 4). Floats: one IEEE
// division. Integers truncate toward zero; x / 0 is 0 and MinValue / -1 wraps to MinValue.
#include <type_traits>

#include "reference/ops/elementwise_kernels.hpp"
#include "reference/ops/integer_wrap.hpp"

namespace onemodel {
namespace {

struct DivFn {
  template <class V>
  V operator()(V a, V b) const noexcept {
    if constexpr (std::is_floating_point_v<V>) {
      return a / b;
    } else {
      if (b == 0) return 0;
      if constexpr (std::is_signed_v<V>) {
        if (b == -1) return ew::wrap_neg(a);  // MinValue / -1 wraps to MinValue
      }
      return static_cast<V>(a / b);
    }
  }
};

}  // namespace

std::unique_ptr<OpKernel> make_div(const NodeInfo&) { return ew::make_binary<ew::NumericTypes>(DivFn{}); }

}  // namespace onemodel
