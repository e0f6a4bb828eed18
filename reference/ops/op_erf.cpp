// Erf: the exact error function (spec/ops/elementwise.md section 8; float64:
// section 10, the platform's std::erf in fast mode, refused in exact mode).
#include <cmath>
#include <type_traits>
#include "reference/math/exact_math.hpp"
#include "reference/ops/elementwise_kernels.hpp"

namespace onemodel {
namespace {

struct ErfFn {
  float operator()(float x) const noexcept { return exact::erf(x); }
  double operator()(double x) const noexcept { return std::erf(x); }
};

}  // namespace

std::unique_ptr<OpKernel> make_erf(const NodeInfo&) { return ew::make_unary_f64_inexact<ew::F32F64Types>(ErfFn{}); }

}  // namespace onemodel
