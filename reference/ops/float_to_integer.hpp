// The float-to-integer conversion of Cast (spec/ops/elementwise.md section 7), also used by Pow
// with an integer base: truncate toward zero, saturate at the target's range, NaN gives 0.
#pragma once

#include <cmath>
#include <limits>

namespace onemodel::ew {

template <class I>
I saturate_to_integer(double value) noexcept {
  if (std::isnan(value)) return 0;
  const double t = std::trunc(value);
  // The limits as doubles are exact for the minimum (a power of two or 0) and round up to a
  // power of two for the maximum of 32- and 64-bit types, so >= catches every value above it.
  if (t <= static_cast<double>(std::numeric_limits<I>::min())) return std::numeric_limits<I>::min();
  if (t >= static_cast<double>(std::numeric_limits<I>::max())) return std::numeric_limits<I>::max();
  return static_cast<I>(t);
}

}  // namespace onemodel::ew
