// Exp: e^x by the exact exponential (spec/ops/elementwise.md section 8; f32 only).
#include <cmath>
#include <type_traits>
#include "reference/math/exact_math.hpp"
#include "reference/ops/elementwise_kernels.hpp"

namespace onemodel {
namespace {

struct ExpFn {
  template <class V>
  V operator()(V x) const noexcept {
    return exact::exp(x);
  }
};

}  // namespace

std::unique_ptr<OpKernel> make_exp(const NodeInfo&) { return ew::make_unary<ew::F32Types>(ExpFn{}); }

}  // namespace onemodel
