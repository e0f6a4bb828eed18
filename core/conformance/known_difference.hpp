// A known difference (spec/conformance.md section 4): one output of one backend case that is
// allowed to miss the recorded data, and by how much. A case is `known-diff` only when every
// output that misses the tolerance of section 3 is covered by its entry's bound; any other
// failure of that case (another output, a larger difference, an error, a twin that differs) is
// `fail`. The bound is checked on the computed values, never taken on trust from the case name.
#pragma once

#include <span>
#include <string>
#include <string_view>

#include "onemodel/tensor.hpp"

namespace onemodel::conformance {

enum class DiffBound {
  // Every element outside the tolerance is finite in both tensors and |got - want| <= bound.
  MaxAbs,
  // Every element outside the tolerance is finite in both tensors and at most `bound` units in
  // the last place of the output's element type apart from the recorded value.
  MaxUlp,
  // A documented behaviour other than the recorded one: the output must match `values` (the
  // answer the cited behaviour gives, row-major) under the tolerance of section 3 instead.
  Values,
  // A random operator's draw (spec/ops/random.md section 12): the recorded data is one other
  // generator's draw, so only the support is checked: every element is one of `values`.
  DrawSupport,
  // A random dropping (Dropout in training mode): every element is 0, or equals the recorded
  // value wherever that is non-zero (both kept the element, so both scaled the same input).
  DrawMasked,
};

struct KnownDifference {
  std::string_view case_name;  // the case folder's name, e.g. "test_dft_inverse"
  std::string_view output;     // the model output's name
  DiffBound kind = DiffBound::MaxAbs;
  double bound = 0.0;             // MaxAbs: largest |got - want|; MaxUlp: largest ulp distance
  std::span<const double> values;  // Values and DrawSupport only
  std::string_view reason;     // why, with the spec section that defines our answer
};

// "max |got - want| <= 2e-07", "<= 4 ulp", "equals the documented values (9 elements)".
std::string describe_bound(const KnownDifference& known);

// Empty when `got` misses `want` only as `known` allows, else why not (the first element
// outside the bound). Element types and shapes must still be equal.
std::string check_known_difference(const Tensor& got, const Tensor& want, const KnownDifference& known);

// Distance in units in the last place of `type` (F32, F64, F16, BF16) between two finite values
// of that type widened to double; +0 and -0 are 0 apart.
double ulp_distance(double a, double b, DType type) noexcept;

}  // namespace onemodel::conformance
