// BitwiseOr (opset 18): a | b with broadcasting (spec/ops/elementwise.md section 9). Integer types.
#include "reference/ops/elementwise_kernels.hpp"

namespace onemodel {
namespace {

struct BitwiseOrFn {
  template <class V>
  V operator()(V a, V b) const noexcept {
    return static_cast<V>(a | b);
  }
};

}  // namespace

std::unique_ptr<OpKernel> make_bitwise_or(const NodeInfo&) { return ew::make_binary<ew::IntegerTypes>(BitwiseOrFn{}); }

}  // namespace onemodel
