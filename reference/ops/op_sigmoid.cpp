// Sigmoid: 1 / (1 + e^-x) by the exact sigmoid (spec/ops/elementwise.md section 8; float64:
// section 10, 1 / (1 + std::exp(-x)) in fast mode, refused in exact mode).
#include <cmath>
#include <type_traits>
#include "reference/math/exact_math.hpp"
#include "reference/ops/elementwise_kernels.hpp"

namespace onemodel {
namespace {

struct SigmoidFn {
  float operator()(float x) const noexcept { return exact::sigmoid(x); }
  double operator()(double x) const noexcept { return 1.0 / (1.0 + std::exp(-x)); }
};

}  // namespace

std::unique_ptr<OpKernel> make_sigmoid(const NodeInfo&) { return ew::make_unary_f64_inexact<ew::F32F64Types>(SigmoidFn{}); }

}  // namespace onemodel
