// IsNaN (opset 9): true where x is NaN (spec/ops/elementwise.md section 9). Types f16, bf16,
// f32, f64; the output is Bool.
#include <cmath>

#include "reference/ops/elementwise_kernels.hpp"

namespace onemodel {
namespace {

struct IsNanFn {
  template <class V>
  bool operator()(V x) const noexcept {
    return std::isnan(x);
  }
};

}  // namespace

std::unique_ptr<OpKernel> make_is_nan(const NodeInfo&) {
  return ew::make_predicate<ew::Types<ew::F32, ew::F64, ew::F16, ew::BF16>>(IsNanFn{});
}

}  // namespace onemodel
