// Hardmax: spec/ops/norms.md section 5: 1 at the first maximum of the row (a later element wins
// only when strictly greater), 0 elsewhere; a row containing NaN is all zeros. Hardmax_1
// (opsets 1-12) coerces to 2-D; Hardmax_13 works on one axis. float64 uses the same comparisons
// and is exact.
#include <cmath>

#include "reference/ops/softmax_helpers.hpp"

namespace onemodel {
namespace {

template <class T>
void hardmax_row(const T* x, T* y, std::int64_t n) {
  bool has_nan = false;
  std::int64_t best = 0;
  for (std::int64_t j = 0; j < n; ++j) {
    if (std::isnan(x[j])) has_nan = true;
    if (x[j] > x[best]) best = j;
  }
  for (std::int64_t j = 0; j < n; ++j) y[j] = T{0};
  if (n > 0 && !has_nan) y[best] = T{1};
}

}  // namespace

std::unique_ptr<OpKernel> make_hardmax_1(const NodeInfo& node) {
  return norms::make_softmax_family(node, hardmax_row<float>, hardmax_row<double>, /*coerce_2d=*/true, true);
}
std::unique_ptr<OpKernel> make_hardmax_13(const NodeInfo& node) {
  return norms::make_softmax_family(node, hardmax_row<float>, hardmax_row<double>, /*coerce_2d=*/false, true);
}

}  // namespace onemodel
