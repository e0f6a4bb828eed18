// Cos: the platform's binary32 cosine. Not exact: there is no exact cosine (spec/ops/elementwise.md
// section 9, from ops-coverage.md "Exactness"); exact mode refuses it.
#include <cmath>

#include "reference/ops/elementwise_kernels.hpp"

namespace onemodel {
namespace {

struct CosFn {
  float operator()(float x) const noexcept { return std::cos(x); }
  // float64 (spec/ops/elementwise.md section 10): the platform's double cosine, as inexact.
  double operator()(double x) const noexcept { return std::cos(x); }
};

}  // namespace

std::unique_ptr<OpKernel> make_cos(const NodeInfo&) { return ew::make_unary<ew::F32F64Types>(CosFn{}, false); }

}  // namespace onemodel
