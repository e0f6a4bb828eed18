// Elu: x < 0 ? alpha * (e^x - 1) : x (default alpha 1), exact exponential, each operation rounded
// (spec/ops/elementwise.md section 9; f32 only).
#include "reference/math/exact_math.hpp"
#include "reference/ops/elementwise_kernels.hpp"

namespace onemodel {
namespace {

struct EluFn {
  float alpha;
  float operator()(float x) const noexcept { return x < 0.0f ? alpha * (exact::exp(x) - 1.0f) : x; }
};

}  // namespace

std::unique_ptr<OpKernel> make_elu(const NodeInfo& node) {
  return ew::make_unary<ew::F32Types>(EluFn{node.get_float("alpha", 1.0f)});
}

}  // namespace onemodel
