// Relu: x when x > 0, else +0 (so Relu(-0) = +0); NaN passes through (spec/ops/elementwise.md section 8). Types f16, f32, f64 and the signed integers.
#include <cmath>
#include <type_traits>

#include "reference/ops/elementwise_kernels.hpp"

namespace onemodel {
namespace {

struct ReluFn {
  template <class V>
  V operator()(V x) const noexcept {
    if constexpr (std::is_floating_point_v<V>) {
      if (std::isnan(x)) return x;
    }
    return x > 0 ? x : V(0);
  }
};

}  // namespace

std::unique_ptr<OpKernel> make_relu(const NodeInfo&) { return ew::make_unary<ew::SignedNumericTypes>(ReluFn{}); }

}  // namespace onemodel
