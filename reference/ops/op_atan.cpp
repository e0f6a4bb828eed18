// Atan: the exact binary32 arctangent (spec/exact-transcendentals.md section 13), in both modes;
// float64: the exact binary64 arctangent (spec/exact-transcendentals.md section 16), in both modes.
#include "reference/math/exact_trig.hpp"
#include "reference/math/exact_trig64.hpp"
#include "reference/ops/elementwise_kernels.hpp"

namespace onemodel {
namespace {

struct AtanFn {
  float operator()(float x) const noexcept { return exact::atan(x); }
  double operator()(double x) const noexcept { return exact::atan_f64(x); }
};

}  // namespace

std::unique_ptr<OpKernel> make_atan(const NodeInfo&) { return ew::make_unary<ew::F32F64Types>(AtanFn{}); }

}  // namespace onemodel
