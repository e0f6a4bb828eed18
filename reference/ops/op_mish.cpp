// Mish: x * tanh(log(1 + e^x)) from the exact functions, each operation rounded (spec/ops/elementwise.md section 9);
// float64 (section 10): x * std::tanh(std::log(std::exp(x) + 1)), fast mode only.
#include <cmath>
#include <type_traits>
#include "reference/math/exact_math.hpp"
#include "reference/ops/elementwise_kernels.hpp"

namespace onemodel {
namespace {

struct MishFn {
  float operator()(float x) const noexcept { return x * exact::tanh(exact::log(exact::exp(x) + 1.0f)); }
  double operator()(double x) const noexcept { return x * std::tanh(std::log(std::exp(x) + 1.0)); }
};

}  // namespace

std::unique_ptr<OpKernel> make_mish(const NodeInfo&) { return ew::make_unary_f64_inexact<ew::F32F64Types>(MishFn{}); }

}  // namespace onemodel
