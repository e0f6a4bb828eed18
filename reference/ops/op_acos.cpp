// Acos: the exact binary32 arccosine (spec/exact-transcendentals.md section 13), in both modes;
// float64 (spec/ops/elementwise.md section 10): the platform's std::acos, refused in exact mode.
#include <cmath>

#include "reference/math/exact_trig.hpp"
#include "reference/ops/elementwise_kernels.hpp"

namespace onemodel {
namespace {

struct AcosFn {
  float operator()(float x) const noexcept { return exact::acos(x); }
  double operator()(double x) const noexcept { return std::acos(x); }
};

}  // namespace

std::unique_ptr<OpKernel> make_acos(const NodeInfo&) { return ew::make_unary_f64_inexact<ew::F32F64Types>(AcosFn{}); }

}  // namespace onemodel
