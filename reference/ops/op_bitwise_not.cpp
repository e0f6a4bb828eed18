// BitwiseNot (opset 18): every bit inverted (spec/ops/elementwise.md section 9). Integer types.
#include "reference/ops/elementwise_kernels.hpp"

namespace onemodel {
namespace {

struct BitwiseNotFn {
  template <class V>
  V operator()(V x) const noexcept {
    return static_cast<V>(~x);
  }
};

}  // namespace

std::unique_ptr<OpKernel> make_bitwise_not(const NodeInfo&) { return ew::make_unary<ew::IntegerTypes>(BitwiseNotFn{}); }

}  // namespace onemodel
