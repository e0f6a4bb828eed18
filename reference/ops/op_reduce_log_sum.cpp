// ReduceLogSum: spec/ops/norms.md section 6: the log of the sum; float32 through the library's
// log (exact_math), float64 through the exact binary64 log (spec/exact-transcendentals.md
// section 15), exact in both modes. An empty reduction gives
// log(+0) = -inf. Opsets: ReduceLogSum_1 reads the axes attribute (opsets 1-17), ReduceLogSum_18
// the axes input.
#include "reference/math/exact_math.hpp"
#include "reference/math/exact_math64.hpp"
#include "reference/ops/reduce_helpers.hpp"

namespace onemodel {
namespace {

struct Terms {
  static float term(float x) noexcept { return x; }
  static float finish(float sum, std::int64_t) noexcept { return exact::log(sum); }
  static double term(double x) noexcept { return x; }
  static double finish(double sum, std::int64_t) noexcept { return exact::log_f64(sum); }
  // Only float32 and float64 reach this kernel (infer refuses other types); the generic kernel
  // still instantiates the integer types, which are never called.
  template <class T>
  static T term(T x) noexcept {
    return x;
  }
  template <class T>
  static T finish(T sum, std::int64_t) noexcept {
    return sum;
  }
};

std::unique_ptr<OpKernel> make_log_sum_kernel(const NodeInfo& node, reduce::AxesFrom from) {
  return reduce::make_kernel<reduce::SumKernel<Terms>>(node, from, reduce::float_types());
}

}  // namespace

std::unique_ptr<OpKernel> make_reduce_log_sum_1(const NodeInfo& node) {
  return make_log_sum_kernel(node, reduce::AxesFrom::Attribute);
}
std::unique_ptr<OpKernel> make_reduce_log_sum_18(const NodeInfo& node) {
  return make_log_sum_kernel(node, reduce::AxesFrom::Input);
}

}  // namespace onemodel
