// Tan: the exact binary32 tangent (spec/exact-transcendentals.md section 11), in both modes;
// float64 (spec/ops/elementwise.md section 10): the platform's std::tan, refused in exact mode.
#include <cmath>

#include "reference/math/exact_trig.hpp"
#include "reference/ops/elementwise_kernels.hpp"

namespace onemodel {
namespace {

struct TanFn {
  float operator()(float x) const noexcept { return exact::tan(x); }
  double operator()(double x) const noexcept { return std::tan(x); }
};

}  // namespace

std::unique_ptr<OpKernel> make_tan(const NodeInfo&) { return ew::make_unary_f64_inexact<ew::F32F64Types>(TanFn{}); }

}  // namespace onemodel
