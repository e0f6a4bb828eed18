// Equal: a == b with broadcasting, Bool output (spec/ops/elementwise.md section 5). NaN equals nothing, itself included; -0 == +0.
#include "reference/ops/elementwise_kernels.hpp"

namespace onemodel {
namespace {

struct EqualFn {
  template <class V>
  bool operator()(V a, V b) const noexcept {
    return a == b;
  }
};

}  // namespace

std::unique_ptr<OpKernel> make_equal(const NodeInfo&) { return ew::make_comparison<ew::NumericAndBoolTypes>(EqualFn{}); }

}  // namespace onemodel
