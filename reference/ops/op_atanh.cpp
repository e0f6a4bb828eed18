// Atanh: the platform's binary32 inverse hyperbolic tangent (std::atanh). Not exact: no exact definition
// exists yet (spec/ops/elementwise.md sections 1 and 9); exact mode refuses it.
#include <cmath>

#include "reference/ops/elementwise_kernels.hpp"

namespace onemodel {
namespace {

struct AtanhFn {
  float operator()(float x) const noexcept { return std::atanh(x); }
  // float64 (spec/ops/elementwise.md section 10): the platform's double function, as inexact.
  double operator()(double x) const noexcept { return std::atanh(x); }
};

}  // namespace

std::unique_ptr<OpKernel> make_atanh(const NodeInfo&) { return ew::make_unary<ew::F32F64Types>(AtanhFn{}, false); }

}  // namespace onemodel
