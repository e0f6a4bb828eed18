// ReduceMean: spec/ops/norms.md section 6: sum / count with count converted to the element type
// (float32 for float32); an empty reduction gives 0. Integers: the exact sum (no wrap-around)
// divided by the count truncating toward zero, which always fits the type, as ONNX Runtime 1.31.1
// returns the mean of overflowing int32 and int64 sums (section 6 "Integer mean").
// Opsets: ReduceMean_1 reads the axes attribute (opsets 1-17), ReduceMean_18 the optional axes input.
#include "reference/ops/reduce_helpers.hpp"

namespace onemodel {
namespace {

struct Terms {
  template <class T>
  static T term(T x) noexcept { return x; }
  template <class T>
  static T finish(T sum, std::int64_t count) noexcept {
    if (count == 0) return T{0};
    if constexpr (std::is_floating_point_v<T>) return sum / static_cast<T>(count);
    else if constexpr (std::is_signed_v<T>) return static_cast<T>(static_cast<std::int64_t>(sum) / count);
    else return static_cast<T>(static_cast<std::uint64_t>(sum) / static_cast<std::uint64_t>(count));
  }
  // Integer elements: summed exactly by SumKernel; the truncated quotient lies between the
  // smallest and largest element, so the narrowing is exact.
  static constexpr bool kExactIntegerSum = true;
  template <class T>
  static T finish_exact(reduce::ExactIntegerSum sum, std::int64_t count) noexcept {
    if (count == 0) return T{0};
    return static_cast<T>(sum / static_cast<reduce::ExactIntegerSum>(count));
  }
};

}  // namespace

std::unique_ptr<OpKernel> make_reduce_mean_1(const NodeInfo& node) {
  return reduce::make_kernel<reduce::SumKernel<Terms>>(node, reduce::AxesFrom::Attribute, reduce::all_types());
}
std::unique_ptr<OpKernel> make_reduce_mean_18(const NodeInfo& node) {
  return reduce::make_kernel<reduce::SumKernel<Terms>>(node, reduce::AxesFrom::Input, reduce::all_types());
}

}  // namespace onemodel
