// ReduceLogSum: spec/ops/norms.md section 6: the library's log (exact_math) of the sum; float32
// only (float64 is not served, section 1). An empty reduction gives log(+0) = -inf.
// Opsets: ReduceLogSum_1 reads the axes attribute (opsets 1-17), ReduceLogSum_18 the axes input.
#include "reference/math/exact_math.hpp"
#include "reference/ops/reduce_helpers.hpp"

namespace onemodel {
namespace {

struct Terms {
  static float term(float x) noexcept { return x; }
  static float finish(float sum, std::int64_t) noexcept { return exact::log(sum); }
  // Only float32 reaches this kernel (infer refuses other types); the generic kernel still
  // instantiates the other element types, which are never called.
  template <class T>
  static T term(T x) noexcept { return x; }
  template <class T>
  static T finish(T sum, std::int64_t) noexcept { return sum; }
};

}  // namespace

std::unique_ptr<OpKernel> make_reduce_log_sum_1(const NodeInfo& node) {
  return reduce::make_kernel<reduce::SumKernel<Terms>>(node, reduce::AxesFrom::Attribute, reduce::f32_only());
}
std::unique_ptr<OpKernel> make_reduce_log_sum_18(const NodeInfo& node) {
  return reduce::make_kernel<reduce::SumKernel<Terms>>(node, reduce::AxesFrom::Input, reduce::f32_only());
}

}  // namespace onemodel
