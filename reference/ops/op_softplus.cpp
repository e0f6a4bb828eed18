// Softplus: log(e^x + 1) from the exact functions, each operation rounded (spec/ops/elementwise.md section 9; f32 only).
#include <cmath>
#include <type_traits>
#include "reference/math/exact_math.hpp"
#include "reference/ops/elementwise_kernels.hpp"

namespace onemodel {
namespace {

struct SoftplusFn {
  template <class V>
  V operator()(V x) const noexcept {
    return exact::log(exact::exp(x) + 1.0f);
  }
};

}  // namespace

std::unique_ptr<OpKernel> make_softplus(const NodeInfo&) { return ew::make_unary<ew::F32Types>(SoftplusFn{}); }

}  // namespace onemodel
