// Mean: the inputs added left to right with broadcasting, then divided by the input count, each
// operation rounded to the element type (spec/ops/elementwise.md section 2). Types f16, f32, f64.
#include "reference/ops/elementwise_kernels.hpp"

namespace onemodel {
namespace {

struct MeanSumFn {
  template <class V>
  V operator()(V a, V b) const noexcept {
    return a + b;
  }
};

}  // namespace

std::unique_ptr<OpKernel> make_mean(const NodeInfo&) {
  return std::make_unique<ew::VariadicKernel<ew::FloatTypes, MeanSumFn, true>>(MeanSumFn{});
}

}  // namespace onemodel
