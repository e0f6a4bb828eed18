// Bit-for-bit comparison of two runs' outputs, the check every pass and runtime test makes when it
// claims a rewrite "preserves bits": same count, types and shapes, and the same bytes element by
// element (float32 compared as bit patterns, so NaN payloads and the sign of zero count; other
// types byte for byte). Stops at the first difference and names it.
#pragma once

#include <string>
#include <vector>

#include "onemodel/tensor.hpp"

namespace onemodel::test {

void expect_same_outputs(const std::vector<Tensor>& a, const std::vector<Tensor>& b, const std::string& what);

}  // namespace onemodel::test
