// Floor: the largest integer not above x, IEEE (spec/ops/elementwise.md section 3). Types f16, f32, f64.
#include <cmath>
#include <type_traits>

#include "reference/ops/elementwise_kernels.hpp"

namespace onemodel {
namespace {

struct FloorFn {
  template <class V>
  V operator()(V x) const noexcept {
    return std::floor(x);
  }
};

}  // namespace

std::unique_ptr<OpKernel> make_floor(const NodeInfo&) { return ew::make_unary<ew::FloatTypes>(FloorFn{}); }

}  // namespace onemodel
