// Asinh: the exact binary32 inverse hyperbolic sine (spec/exact-transcendentals.md section 12), in both modes;
// float64 (spec/ops/elementwise.md section 10): asinh_f64 of spec/exact-transcendentals.md section 17, both modes.

#include "reference/math/exact_trig.hpp"
#include "reference/math/exact_hyperbolic64.hpp"
#include "reference/ops/elementwise_kernels.hpp"

namespace onemodel {
namespace {

struct AsinhFn {
  float operator()(float x) const noexcept { return exact::asinh(x); }
  double operator()(double x) const noexcept { return exact::asinh_f64(x); }
};

}  // namespace

std::unique_ptr<OpKernel> make_asinh(const NodeInfo&) { return ew::make_unary<ew::F32F64Types>(AsinhFn{}); }

}  // namespace onemodel
