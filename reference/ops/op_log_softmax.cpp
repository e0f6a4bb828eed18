// LogSoftmax: spec/ops/norms.md section 5: d[j] = x[j] - max (NaN ignored), l = Sum16(exp(d[j]))
// with the exponential for non-positive arguments, y[j] = d[j] - log(l) with the library's log.
// NaN rows as Softmax; a -inf element of an otherwise normal row stays -inf. LogSoftmax_1
// (opsets 1-12) coerces to 2-D; LogSoftmax_13 works on one axis. float64: the same steps with
// the exact binary64 exponential and logarithm (spec/exact-transcendentals.md section 15), exact
// in both modes.
#include "reference/math/exact_math64.hpp"

#include "reference/math/exact_math.hpp"
#include "reference/ops/canonical_sum.hpp"
#include "reference/ops/softmax_helpers.hpp"

namespace onemodel {
namespace {

void log_softmax_row(const float* x, float* y, std::int64_t n) {
  const float m = norms::row_max_ignoring_nan(x, n);
  CanonicalSum16<float> sum;
  for (std::int64_t j = 0; j < n; ++j) {
    y[j] = x[j] - m;
    sum.add(exact::exp_non_positive(y[j]));
  }
  const float log_l = exact::log(sum.result());
  for (std::int64_t j = 0; j < n; ++j) y[j] = y[j] - log_l;
}

void log_softmax_row64(const double* x, double* y, std::int64_t n) {
  const double m = norms::row_max_ignoring_nan(x, n);
  CanonicalSum16<double> sum;
  for (std::int64_t j = 0; j < n; ++j) {
    y[j] = x[j] - m;
    sum.add(exact::exp_f64(y[j]));
  }
  const double log_l = exact::log_f64(sum.result());
  for (std::int64_t j = 0; j < n; ++j) y[j] = y[j] - log_l;
}

}  // namespace

std::unique_ptr<OpKernel> make_log_softmax_1(const NodeInfo& node) {
  return norms::make_softmax_family(node, log_softmax_row, log_softmax_row64, /*coerce_2d=*/true, true);
}
std::unique_ptr<OpKernel> make_log_softmax_13(const NodeInfo& node) {
  return norms::make_softmax_family(node, log_softmax_row, log_softmax_row64, /*coerce_2d=*/false, true);
}

}  // namespace onemodel
