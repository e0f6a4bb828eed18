// Sin: the platform's binary32 sine. Not exact: there is no exact sine (spec/ops/elementwise.md
// section 9, from ops-coverage.md "Exactness"); exact mode refuses it.
#include <cmath>

#include "reference/ops/elementwise_kernels.hpp"

namespace onemodel {
namespace {

struct SinFn {
  float operator()(float x) const noexcept { return std::sin(x); }
  // float64 (spec/ops/elementwise.md section 10): the platform's double sine, as inexact.
  double operator()(double x) const noexcept { return std::sin(x); }
};

}  // namespace

std::unique_ptr<OpKernel> make_sin(const NodeInfo&) { return ew::make_unary<ew::F32F64Types>(SinFn{}, false); }

}  // namespace onemodel
