// Storing the random operators' values (spec/ops/random.md section 6): a binary64 value rounded
// once to float32 or float64; float16 and bfloat16 through binary32 (spec/half-precision.md).
#pragma once

#include <cstdint>

#include "onemodel/tensor.hpp"

namespace onemodel {

class NodeInfo;

namespace random_draws {

// Whether `type` is one the random value operators produce (F16, BF16, F32, F64).
bool is_float_output(DType type) noexcept;

// The `dtype` attribute of a random operator: `fallback` when absent; a code the operator does not
// produce is InvalidModel naming the node.
DType float_output_type(const NodeInfo& node, DType fallback, bool fallback_known);

// Element i of `out` (contiguous, a float output type) set from the binary64 value v.
void store(const Tensor& out, std::int64_t i, double v);

// The value element i of `out` holds, widened exactly to binary64.
double load(const Tensor& out, std::int64_t i);

// Element i of `out` moved one representable value of its type toward minus infinity.
void step_down(const Tensor& out, std::int64_t i);

}  // namespace random_draws
}  // namespace onemodel
