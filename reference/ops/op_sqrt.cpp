// Sqrt: the IEEE square root, correctly rounded (spec/ops/elementwise.md section 3). Types f16, f32, f64.
#include <cmath>
#include <type_traits>

#include "reference/ops/elementwise_kernels.hpp"

namespace onemodel {
namespace {

struct SqrtFn {
  template <class V>
  V operator()(V x) const noexcept {
    return std::sqrt(x);
  }
};

}  // namespace

std::unique_ptr<OpKernel> make_sqrt(const NodeInfo&) { return ew::make_unary<ew::FloatTypes>(SqrtFn{}); }

}  // namespace onemodel
