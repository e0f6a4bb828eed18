// Cos: the exact binary32 cosine (spec/exact-transcendentals.md section 11), in both modes;
// float64 (spec/ops/elementwise.md section 10): the platform's std::cos, refused in exact mode.
#include <cmath>

#include "reference/math/exact_trig.hpp"
#include "reference/ops/elementwise_kernels.hpp"

namespace onemodel {
namespace {

struct CosFn {
  float operator()(float x) const noexcept { return exact::cos(x); }
  double operator()(double x) const noexcept { return std::cos(x); }
};

}  // namespace

std::unique_ptr<OpKernel> make_cos(const NodeInfo&) { return ew::make_unary_f64_inexact<ew::F32F64Types>(CosFn{}); }

}  // namespace onemodel
