// Softplus: log(e^x + 1) from the exact functions, each operation rounded (spec/ops/elementwise.md section 9);
// float64 (section 10): std::log(std::exp(x) + 1), fast mode only.
#include <cmath>
#include <type_traits>
#include "reference/math/exact_math.hpp"
#include "reference/ops/elementwise_kernels.hpp"

namespace onemodel {
namespace {

struct SoftplusFn {
  float operator()(float x) const noexcept { return exact::log(exact::exp(x) + 1.0f); }
  double operator()(double x) const noexcept { return std::log(std::exp(x) + 1.0); }
};

}  // namespace

std::unique_ptr<OpKernel> make_softplus(const NodeInfo&) { return ew::make_unary_f64_inexact<ew::F32F64Types>(SoftplusFn{}); }

}  // namespace onemodel
