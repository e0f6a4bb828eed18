// GreaterOrEqual (opset 12): a >= b with broadcasting, Bool output (spec/ops/elementwise.md section 5). NaN compares false.
#include "reference/ops/elementwise_kernels.hpp"

namespace onemodel {
namespace {

struct GreaterOrEqualFn {
  template <class V>
  bool operator()(V a, V b) const noexcept {
    return a >= b;
  }
};

}  // namespace

std::unique_ptr<OpKernel> make_greater_or_equal(const NodeInfo&) { return ew::make_comparison<ew::NumericTypes>(GreaterOrEqualFn{}); }

}  // namespace onemodel
