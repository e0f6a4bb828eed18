// Exp: e^x by the exact exponential (spec/ops/elementwise.md section 8; float64:
// section 10, the platform's std::exp in fast mode, refused in exact mode).
#include <cmath>
#include <type_traits>
#include "reference/math/exact_math.hpp"
#include "reference/ops/elementwise_kernels.hpp"

namespace onemodel {
namespace {

struct ExpFn {
  float operator()(float x) const noexcept { return exact::exp(x); }
  double operator()(double x) const noexcept { return std::exp(x); }
};

}  // namespace

std::unique_ptr<OpKernel> make_exp(const NodeInfo&) { return ew::make_unary_f64_inexact<ew::F32F64Types>(ExpFn{}); }

}  // namespace onemodel
