// Round: to the nearest integer, halves to even, keeping the sign of zero (Round(-0.4) = -0) (spec/ops/elementwise.md section 3). nearbyint in the default rounding mode is exactly this. Types f16, f32, f64.
#include <cmath>
#include <type_traits>

#include "reference/ops/elementwise_kernels.hpp"

namespace onemodel {
namespace {

struct RoundFn {
  template <class V>
  V operator()(V x) const noexcept {
    return std::nearbyint(x);
  }
};

}  // namespace

std::unique_ptr<OpKernel> make_round(const NodeInfo&) { return ew::make_unary<ew::FloatTypes>(RoundFn{}); }

}  // namespace onemodel
