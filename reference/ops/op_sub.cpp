// Sub: a - b, NumPy broadcasting (spec/ops/elementwise.md sections 1, 2 and 4). Floats: one IEEE
// subtraction; integers wrap around.
#include <type_traits>

#include "reference/ops/elementwise_kernels.hpp"
#include "reference/ops/integer_wrap.hpp"

namespace onemodel {
namespace {

struct SubFn {
  template <class V>
  V operator()(V a, V b) const noexcept {
    if constexpr (std::is_floating_point_v<V>) return a - b;
    else return ew::wrap_sub(a, b);
  }
};

}  // namespace

std::unique_ptr<OpKernel> make_sub(const NodeInfo&) { return ew::make_binary<ew::NumericTypes>(SubFn{}); }

}  // namespace onemodel
