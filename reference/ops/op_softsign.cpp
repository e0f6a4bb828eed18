// Softsign: x / (1 + |x|), each operation rounded (spec/ops/elementwise.md section 9); float64 the same
// in double arithmetic, exact (section 10).
#include <cmath>
#include <type_traits>

#include "reference/ops/elementwise_kernels.hpp"

namespace onemodel {
namespace {

struct SoftsignFn {
  template <class V>
  V operator()(V x) const noexcept {
    return x / (V{1} + std::fabs(x));
  }
};

}  // namespace

std::unique_ptr<OpKernel> make_softsign(const NodeInfo&) { return ew::make_unary<ew::F32F64Types>(SoftsignFn{}); }

}  // namespace onemodel
