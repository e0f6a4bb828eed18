// Log: natural logarithm by the exact logarithm (spec/ops/elementwise.md section 8; float64:
// section 10, the platform's std::log in fast mode, refused in exact mode).
#include <cmath>
#include <type_traits>
#include "reference/math/exact_math.hpp"
#include "reference/ops/elementwise_kernels.hpp"

namespace onemodel {
namespace {

struct LogFn {
  float operator()(float x) const noexcept { return exact::log(x); }
  double operator()(double x) const noexcept { return std::log(x); }
};

}  // namespace

std::unique_ptr<OpKernel> make_log(const NodeInfo&) { return ew::make_unary_f64_inexact<ew::F32F64Types>(LogFn{}); }

}  // namespace onemodel
