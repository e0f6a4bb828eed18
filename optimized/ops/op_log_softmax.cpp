// LogSoftmax: the vectorized rows of optimized/kernels/softmax/ (spec/ops/norms.md section 5):
// d = x - max, l = Sum16(ExpNonPositive(d)), y = d - log(l) with the library's exact log, once
// per row. Exact mode: the bits of reference/ops/op_log_softmax.cpp. Fast mode: the fast exponential.
#include "optimized/ops/softmax_override.hpp"
#include "reference/math/exact_math.hpp"

namespace onemodel::opt {
namespace {

float exact_log(float v) { return exact::log(v); }

}  // namespace

std::unique_ptr<OpKernel> make_optimized_log_softmax_1(const NodeInfo& node, const OptimizedConfig& config) {
  return std::make_unique<SoftmaxFamilyOverride>(node, config, /*coerce_2d=*/true, exact_log);
}
std::unique_ptr<OpKernel> make_optimized_log_softmax_13(const NodeInfo& node, const OptimizedConfig& config) {
  return std::make_unique<SoftmaxFamilyOverride>(node, config, /*coerce_2d=*/false, exact_log);
}

}  // namespace onemodel::opt
