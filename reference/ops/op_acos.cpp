// Acos: the exact binary32 arccosine (spec/exact-transcendentals.md section 13), in both modes;
// float64: the exact binary64 arccosine (spec/exact-transcendentals.md section 16), in both modes.
#include "reference/math/exact_trig.hpp"
#include "reference/math/exact_trig64.hpp"
#include "reference/ops/elementwise_kernels.hpp"

namespace onemodel {
namespace {

struct AcosFn {
  float operator()(float x) const noexcept { return exact::acos(x); }
  double operator()(double x) const noexcept { return exact::acos_f64(x); }
};

}  // namespace

std::unique_ptr<OpKernel> make_acos(const NodeInfo&) { return ew::make_unary<ew::F32F64Types>(AcosFn{}); }

}  // namespace onemodel
