// Sinh: the exact binary32 hyperbolic sine (spec/exact-transcendentals.md section 12), in both modes;
// float64 (spec/ops/elementwise.md section 10): the platform's std::sinh, refused in exact mode.
#include <cmath>

#include "reference/math/exact_trig.hpp"
#include "reference/ops/elementwise_kernels.hpp"

namespace onemodel {
namespace {

struct SinhFn {
  float operator()(float x) const noexcept { return exact::sinh(x); }
  double operator()(double x) const noexcept { return std::sinh(x); }
};

}  // namespace

std::unique_ptr<OpKernel> make_sinh(const NodeInfo&) { return ew::make_unary_f64_inexact<ew::F32F64Types>(SinhFn{}); }

}  // namespace onemodel
