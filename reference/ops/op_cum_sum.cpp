// CumSum (opset 11+): spec/ops/norms.md section 8. Sequential along the axis in the direction of
// accumulation: inclusive y[i] = y[i-1] + x[i] with y[0] = x[0]; exclusive y[0] = 0 and
// y[i] = y[i-1] + x[i-1]; reverse runs from the last element. The axis input is read at run time;
// outside [-rank, rank) it is InvalidInput. float32, float64, int32/64, uint32/64 (integers wrap).
// The kernel and its walk are shared with CumProd: cumulative::CumulativeKernel in
// reference/ops/cumulative_walk.hpp; this file gives the start value and the step.
#include <memory>

#include "reference/ops/cumulative_walk.hpp"

namespace onemodel {
namespace {

// spec/ops/norms.md section 8: the exclusive y[0] is +0 and each step adds.
struct SumStep {
  static constexpr const char* kName = "CumSum";
  template <class T>
  static T start() {
    return T{};  // +0
  }
  template <class T>
  static T combine(T running, T v) {
    return reduce::add(running, v);
  }
};

}  // namespace

std::unique_ptr<OpKernel> make_cum_sum(const NodeInfo& node) {
  return std::make_unique<cumulative::CumulativeKernel<SumStep>>(node.get_int("exclusive", 0) != 0,
                                                                 node.get_int("reverse", 0) != 0);
}

}  // namespace onemodel
