// Sum: the inputs added left to right with broadcasting, each addition rounded to the element
// type (spec/ops/elementwise.md section 2). Types f16, f32, f64.
#include "reference/ops/elementwise_kernels.hpp"

namespace onemodel {
namespace {

struct SumFn {
  template <class V>
  V operator()(V a, V b) const noexcept {
    return a + b;
  }
};

}  // namespace

std::unique_ptr<OpKernel> make_sum(const NodeInfo&) {
  return std::make_unique<ew::VariadicKernel<ew::FloatTypes, SumFn>>(SumFn{});
}

}  // namespace onemodel
