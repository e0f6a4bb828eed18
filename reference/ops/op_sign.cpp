// Sign: -1, 0 or +1 (spec/ops/elementwise.md section 3). Both zeros give +0; NaN gives NaN.
#include <cmath>
#include <type_traits>

#include "reference/ops/elementwise_kernels.hpp"

namespace onemodel {
namespace {

struct SignFn {
  template <class V>
  V operator()(V x) const noexcept {
    if constexpr (std::is_floating_point_v<V>) {
      if (std::isnan(x)) return x;
    }
    if (x > 0) return V(1);
    if constexpr (!std::is_unsigned_v<V>) {
      if (x < 0) return static_cast<V>(-1);
    }
    return V(0);
  }
};

}  // namespace

std::unique_ptr<OpKernel> make_sign(const NodeInfo&) { return ew::make_unary<ew::NumericTypes>(SignFn{}); }

}  // namespace onemodel
