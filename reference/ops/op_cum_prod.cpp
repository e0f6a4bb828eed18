// CumProd (opset 26, its only version): spec/ops/losses.md section 6. Sequential products along
// the axis in the direction of accumulation, the CumSum order of spec/ops/norms.md section 8 with multiplication: inclusive
// y[i] = y[i-1] * x[i] with y[0] = x[0]; exclusive y[0] = 1 and y[i] = y[i-1] * x[i-1]; reverse runs
// from the last element. The axis input (a single int32/int64 value) is read at run time; outside
// [-rank, rank) it is InvalidInput. float32, float64, int32/64, uint32/64 (integers wrap). Exact.
// The kernel and its walk are shared with CumSum: cumulative::CumulativeKernel in
// reference/ops/cumulative_walk.hpp; this file gives the start value and the step.
#include <memory>

#include "reference/ops/cumulative_walk.hpp"

namespace onemodel {
namespace {

// spec/ops/losses.md section 6: the exclusive y[0] is 1 and each step multiplies.
struct ProdStep {
  static constexpr const char* kName = "CumProd";
  template <class T>
  static T start() {
    return T(1);
  }
  template <class T>
  static T combine(T running, T v) {
    return reduce::mul(running, v);
  }
};

}  // namespace

std::unique_ptr<OpKernel> make_cum_prod(const NodeInfo& node) {
  return std::make_unique<cumulative::CumulativeKernel<ProdStep>>(node.get_int("exclusive", 0) != 0,
                                                                  node.get_int("reverse", 0) != 0);
}

}  // namespace onemodel
