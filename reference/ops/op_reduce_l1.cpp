// ReduceL1: spec/ops/norms.md section 6: the sum of |x| (the minimum signed value wraps).
// Opsets: ReduceL1_1 reads the axes attribute (opsets 1-17), ReduceL1_18 the optional axes input.
#include "reference/ops/reduce_helpers.hpp"

namespace onemodel {
namespace {

struct Terms {
  template <class T>
  static T term(T x) noexcept { return reduce::absolute(x); }
  template <class T>
  static T finish(T sum, std::int64_t) noexcept { return sum; }
};

}  // namespace

std::unique_ptr<OpKernel> make_reduce_l1_1(const NodeInfo& node) {
  return reduce::make_kernel<reduce::SumKernel<Terms>>(node, reduce::AxesFrom::Attribute, reduce::all_types());
}
std::unique_ptr<OpKernel> make_reduce_l1_18(const NodeInfo& node) {
  return reduce::make_kernel<reduce::SumKernel<Terms>>(node, reduce::AxesFrom::Input, reduce::all_types());
}

}  // namespace onemodel
