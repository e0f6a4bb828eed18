// Binarizer (ai.onnx.ml, version 1): spec/ops/ml.md section 1. y = x > threshold ? 1 : 0 in x's
// type (float32, float64, int32, int64); NaN is not greater, so 0. Comparisons only: exact.
#include <type_traits>

#include "core/graph/node_info.hpp"
#include "reference/ops/elementwise_kernels.hpp"

namespace onemodel {
namespace {

using BinarizerTypes = ew::Types<ew::F32, ew::F64, ew::I32, ew::I64>;

struct BinarizerFn {
  float threshold;
  template <class V>
  V operator()(V x) const noexcept {
    // The threshold is a float attribute; integers are compared with it in double, exactly for
    // every int32 and for int64 up to 2^53.
    if constexpr (std::is_integral_v<V>) return static_cast<double>(x) > static_cast<double>(threshold) ? V(1) : V(0);
    else return x > static_cast<V>(threshold) ? V(1) : V(0);
  }
};

}  // namespace

std::unique_ptr<OpKernel> make_binarizer(const NodeInfo& node) {
  return ew::make_unary<BinarizerTypes>(BinarizerFn{node.get_float("threshold", 0.0f)});
}

}  // namespace onemodel
