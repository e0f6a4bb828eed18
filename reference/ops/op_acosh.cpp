// Acosh: the exact binary32 inverse hyperbolic cosine (spec/exact-transcendentals.md section 12), in both modes;
// float64 (spec/ops/elementwise.md section 10): the platform's std::acosh, refused in exact mode.
#include <cmath>

#include "reference/math/exact_trig.hpp"
#include "reference/ops/elementwise_kernels.hpp"

namespace onemodel {
namespace {

struct AcoshFn {
  float operator()(float x) const noexcept { return exact::acosh(x); }
  double operator()(double x) const noexcept { return std::acosh(x); }
};

}  // namespace

std::unique_ptr<OpKernel> make_acosh(const NodeInfo&) { return ew::make_unary_f64_inexact<ew::F32F64Types>(AcoshFn{}); }

}  // namespace onemodel
