// IsInf (opset 10): true where x is +inf (when detect_positive, default 1) or -inf (when
// detect_negative, default 1) (spec/ops/elementwise.md section 9). Types f16, bf16, f32, f64;
// the output is Bool.
#include <cmath>

#include "reference/ops/elementwise_kernels.hpp"

namespace onemodel {
namespace {

struct IsInfFn {
  bool positive;
  bool negative;
  template <class V>
  bool operator()(V x) const noexcept {
    if (!std::isinf(x)) return false;
    return x > 0 ? positive : negative;
  }
};

}  // namespace

std::unique_ptr<OpKernel> make_is_inf(const NodeInfo& node) {
  return ew::make_predicate<ew::Types<ew::F32, ew::F64, ew::F16, ew::BF16>>(
      IsInfFn{node.get_int("detect_positive", 1) != 0, node.get_int("detect_negative", 1) != 0});
}

}  // namespace onemodel
