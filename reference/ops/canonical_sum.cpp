// The canonical 16-partial sum over an array (spec/ops/norms.md section 2).
#include "reference/ops/canonical_sum.hpp"

namespace onemodel {

float canonical_sum16(std::span<const float> terms) noexcept {
  CanonicalSum16<float> sum;
  for (float t : terms) sum.add(t);
  return sum.result();
}

double canonical_sum16(std::span<const double> terms) noexcept {
  CanonicalSum16<double> sum;
  for (double t : terms) sum.add(t);
  return sum.result();
}

}  // namespace onemodel
