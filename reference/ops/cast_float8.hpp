// Cast and CastLike when the source or the target is an 8-bit float (issue 17; spec/ops/elementwise.md
// section 7.1, spec/tensors.md section 2.1). Kept apart from cast_convert.hpp so the other stored
// types keep their templates and the element rules of the 8-bit floats live in one place.
#pragma once

#include <string>

#include "core/graph/node_info.hpp"
#include "onemodel/float8.hpp"
#include "onemodel/tensor.hpp"

namespace onemodel::ew {

// Cast's `saturate` (opset 19 on, default 1) and `round_mode` (opset 24 on, default "up"; only
// FLOAT8E8M0 targets use it).
struct Float8CastOptions {
  bool saturate = true;
  E8M0Rounding rounding = E8M0Rounding::Up;
};

// Reads `saturate` and `round_mode` as the node's opset has them; InvalidModel for a round_mode
// other than "up", "down", "nearest" or a saturate other than 0 or 1.
Float8CastOptions read_float8_cast_options(const NodeInfo& node);

// Converts every element of `in` into `out` (contiguous, same shape) when either type is an 8-bit
// float. Sources are taken at their exact value (integers wider than 53 bits are first brought to
// 53 bits rounding to odd, which keeps the final rounding to 8 bits correct) and rounded once.
void convert_tensor_float8(const Tensor& in, const Tensor& out, const Float8CastOptions& options);

// Cast's and CastLike's conversion of every element: through convert_tensor_float8 when either
// type is an 8-bit float, else through convert_tensor (which serves STRING and the 4- and 2-bit
// types, spec/ops/elementwise.md Cast).
void cast_tensor(const Tensor& in, const Tensor& out, const Float8CastOptions& options);

}  // namespace onemodel::ew
