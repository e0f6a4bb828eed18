// Sigmoid: 1 / (1 + e^-x) by the exact sigmoid (spec/ops/elementwise.md section 8; f32 only).
#include <cmath>
#include <type_traits>
#include "reference/math/exact_math.hpp"
#include "reference/ops/elementwise_kernels.hpp"

namespace onemodel {
namespace {

struct SigmoidFn {
  template <class V>
  V operator()(V x) const noexcept {
    return exact::sigmoid(x);
  }
};

}  // namespace

std::unique_ptr<OpKernel> make_sigmoid(const NodeInfo&) { return ew::make_unary<ew::F32Types>(SigmoidFn{}); }

}  // namespace onemodel
