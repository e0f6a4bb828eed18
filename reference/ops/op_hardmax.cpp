// Hardmax: spec/ops/norms.md section 5: 1 at the first maximum of the row (a later element wins
// only when strictly greater), 0 elsewhere; a row containing NaN is all zeros. Hardmax_1
// (opsets 1-12) coerces to 2-D; Hardmax_13 works on one axis.
#include <cmath>

#include "reference/ops/softmax_helpers.hpp"

namespace onemodel {
namespace {

void hardmax_row(const float* x, float* y, std::int64_t n) {
  bool has_nan = false;
  std::int64_t best = 0;
  for (std::int64_t j = 0; j < n; ++j) {
    if (std::isnan(x[j])) has_nan = true;
    if (x[j] > x[best]) best = j;
  }
  for (std::int64_t j = 0; j < n; ++j) y[j] = 0.0f;
  if (n > 0 && !has_nan) y[best] = 1.0f;
}

}  // namespace

std::unique_ptr<OpKernel> make_hardmax_1(const NodeInfo& node) {
  return norms::make_softmax_family(node, hardmax_row, /*coerce_2d=*/true);
}
std::unique_ptr<OpKernel> make_hardmax_13(const NodeInfo& node) {
  return norms::make_softmax_family(node, hardmax_row, /*coerce_2d=*/false);
}

}  // namespace onemodel
