// ReduceL2: spec/ops/norms.md section 6: sqrt of the sum of x*x; float32 and float64 only.
// Opsets: ReduceL2_1 reads the axes attribute (opsets 1-17), ReduceL2_18 the optional axes input.
#include "reference/ops/reduce_helpers.hpp"
#include <cmath>
namespace onemodel {
namespace {

struct Terms {
  template <class T>
  static T term(T x) noexcept { return x * x; }
  template <class T>
  static T finish(T sum, std::int64_t) noexcept { return std::sqrt(sum); }
};

}  // namespace

std::unique_ptr<OpKernel> make_reduce_l2_1(const NodeInfo& node) {
  return reduce::make_kernel<reduce::SumKernel<Terms>>(node, reduce::AxesFrom::Attribute, reduce::float_types());
}
std::unique_ptr<OpKernel> make_reduce_l2_18(const NodeInfo& node) {
  return reduce::make_kernel<reduce::SumKernel<Terms>>(node, reduce::AxesFrom::Input, reduce::float_types());
}

}  // namespace onemodel
