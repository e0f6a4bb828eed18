// Tan: the exact binary32 tangent (spec/exact-transcendentals.md section 11), in both modes;
// float64: the exact binary64 tangent (spec/exact-transcendentals.md section 16), in both modes.
#include "reference/math/exact_trig.hpp"
#include "reference/math/exact_trig64.hpp"
#include "reference/ops/elementwise_kernels.hpp"

namespace onemodel {
namespace {

struct TanFn {
  float operator()(float x) const noexcept { return exact::tan(x); }
  double operator()(double x) const noexcept { return exact::tan_f64(x); }
};

}  // namespace

std::unique_ptr<OpKernel> make_tan(const NodeInfo&) { return ew::make_unary<ew::F32F64Types>(TanFn{}); }

}  // namespace onemodel
