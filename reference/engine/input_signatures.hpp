// The formal inputs of each ONNX operator version the table serves (spec/errors.md section 3.1):
// which positions are required, optional or variadic, as onnx.defs states them. Generated into
// reference/engine/input_signatures.cpp by tools/gen_required_inputs.py. Both engines check every
// node against it when a session is made, before any shaping, so no kernel meets a required input
// that is absent (issue 11, defect 2).
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

#include "onemodel/ir.hpp"

namespace onemodel {

struct InputSignature {
  const char* op;      // ai.onnx operator type
  int since;           // the opset the schema is in force from
  // The formal inputs in order, comma-separated: `name` required, `name?` optional, `name*`
  // variadic with at least one operand (always the last).
  const char* inputs;
};

// Sorted by operator, then `since`.
std::span<const InputSignature> input_signatures() noexcept;

// The signature in force for `op_type` in `domain` at `opset` (the largest since <= opset), or
// nullptr outside the default domain or for an operator version ONNX does not define.
const InputSignature* find_input_signature(std::string_view domain, std::string_view op_type,
                                           std::int64_t opset) noexcept;

// Throws SessionError(InvalidModel) naming the node, its operator and opset, and the position and
// formal name of the first required input it leaves out (too few inputs) or gives as "", and of
// the first "" among its variadic operands (an operand of Concat, Sum, Max... has no meaning
// absent). Does nothing for nodes without a signature.
void check_required_inputs(const IrNode& node);

}  // namespace onemodel
