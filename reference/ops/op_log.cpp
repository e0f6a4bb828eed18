// Log: natural logarithm by the exact logarithm (spec/ops/elementwise.md section 8; f32 only).
#include <cmath>
#include <type_traits>
#include "reference/math/exact_math.hpp"
#include "reference/ops/elementwise_kernels.hpp"

namespace onemodel {
namespace {

struct LogFn {
  template <class V>
  V operator()(V x) const noexcept {
    return exact::log(x);
  }
};

}  // namespace

std::unique_ptr<OpKernel> make_log(const NodeInfo&) { return ew::make_unary<ew::F32Types>(LogFn{}); }

}  // namespace onemodel
