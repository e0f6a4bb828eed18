// Softmax: spec/ops/norms.md section 5 (order from kernels-attention.md, Softmax): m = max(x)
// with NaN ignored, e[j] = expNonPositive(x[j] - m), l = Sum16(e), y[j] = e[j] / l. A row holding
// NaN or +inf, or only -inf, gives NaN throughout by this arithmetic. Fast mode in the reference
// engine uses the same code. Softmax_1 (opsets 1-12) coerces to 2-D; Softmax_13 works on one axis.
// float64: the same steps with the exact binary64 exponential (spec/exact-transcendentals.md
// section 15; its limits give +0 below -746), exact in both modes.
#include "reference/math/exact_math64.hpp"

#include "reference/math/exact_math.hpp"
#include "reference/ops/canonical_sum.hpp"
#include "reference/ops/softmax_helpers.hpp"

namespace onemodel {
namespace {

void softmax_row(const float* x, float* y, std::int64_t n) {
  const float m = norms::row_max_ignoring_nan(x, n);
  CanonicalSum16<float> sum;
  for (std::int64_t j = 0; j < n; ++j) {
    y[j] = exact::exp_non_positive(x[j] - m);
    sum.add(y[j]);
  }
  const float l = sum.result();
  for (std::int64_t j = 0; j < n; ++j) y[j] = y[j] / l;
}

void softmax_row64(const double* x, double* y, std::int64_t n) {
  const double m = norms::row_max_ignoring_nan(x, n);
  CanonicalSum16<double> sum;
  for (std::int64_t j = 0; j < n; ++j) {
    y[j] = exact::exp_f64(x[j] - m);
    sum.add(y[j]);
  }
  const double l = sum.result();
  for (std::int64_t j = 0; j < n; ++j) y[j] = y[j] / l;
}

}  // namespace

std::unique_ptr<OpKernel> make_softmax_1(const NodeInfo& node) {
  return norms::make_softmax_family(node, softmax_row, softmax_row64, /*coerce_2d=*/true, true);
}
std::unique_ptr<OpKernel> make_softmax_13(const NodeInfo& node) {
  return norms::make_softmax_family(node, softmax_row, softmax_row64, /*coerce_2d=*/false, true);
}

}  // namespace onemodel
