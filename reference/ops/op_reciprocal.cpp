// Reciprocal: 1 / x, one IEEE division (spec/ops/elementwise.md section 3). Types f16, f32, f64.
#include <cmath>
#include <type_traits>

#include "reference/ops/elementwise_kernels.hpp"

namespace onemodel {
namespace {

struct ReciprocalFn {
  template <class V>
  V operator()(V x) const noexcept {
    return V(1) / x;
  }
};

}  // namespace

std::unique_ptr<OpKernel> make_reciprocal(const NodeInfo&) { return ew::make_unary<ew::FloatTypes>(ReciprocalFn{}); }

}  // namespace onemodel
