// Softsign: x / (1 + |x|), each operation rounded (spec/ops/elementwise.md section 9; f32 only).
#include <cmath>
#include <type_traits>

#include "reference/ops/elementwise_kernels.hpp"

namespace onemodel {
namespace {

struct SoftsignFn {
  template <class V>
  V operator()(V x) const noexcept {
    return x / (1.0f + std::fabs(x));
  }
};

}  // namespace

std::unique_ptr<OpKernel> make_softsign(const NodeInfo&) { return ew::make_unary<ew::F32Types>(SoftsignFn{}); }

}  // namespace onemodel
