// Ceil: the smallest integer not below x, IEEE (spec/ops/elementwise.md section 3). Types f16, f32, f64.
#include <cmath>
#include <type_traits>

#include "reference/ops/elementwise_kernels.hpp"

namespace onemodel {
namespace {

struct CeilFn {
  template <class V>
  V operator()(V x) const noexcept {
    return std::ceil(x);
  }
};

}  // namespace

std::unique_ptr<OpKernel> make_ceil(const NodeInfo&) { return ew::make_unary<ew::FloatTypes>(CeilFn{}); }

}  // namespace onemodel
