// PRelu (opset 7 and later): x < 0 ? slope * x : x, slope broadcast to x (spec/ops/elementwise.md
// section 9). Types f16, f32, f64 and the signed integers (integers wrap).
#include <type_traits>

#include "reference/ops/elementwise_kernels.hpp"
#include "reference/ops/integer_wrap.hpp"

namespace onemodel {
namespace {

struct PReluFn {
  template <class V>
  V operator()(V x, V slope) const noexcept {
    if (!(x < 0)) return x;
    if constexpr (std::is_floating_point_v<V>) return slope * x;
    else return ew::wrap_mul(slope, x);
  }
};

}  // namespace

std::unique_ptr<OpKernel> make_prelu(const NodeInfo&) { return ew::make_binary<ew::SignedNumericTypes>(PReluFn{}); }

}  // namespace onemodel
