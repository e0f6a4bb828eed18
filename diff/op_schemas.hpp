// ONNX schema facts for the operator fuzzer (fuzz/operators_fuzz.cpp): for each ONNX version of
// each operator the table serves, its inputs (option, allowed element types), output counts and
// attributes (name, kind, required). Generated into diff/op_schemas.cpp from onnx.defs by
// tools/fuzz/gen_op_schemas.py, so the fuzzer knows what a valid node looks like and can step
// outside it on purpose.
#pragma once

#include <cstdint>
#include <span>
#include <string_view>

namespace onemodel::diff {

struct SchemaInput {
  const char* name;
  int option;             // 0 single, 1 optional, 2 variadic
  std::uint32_t types;    // bit (1 << DType code) for each stored element type the schema allows
  const char* type_param; // inputs naming the same parameter share one element type
};

struct SchemaAttribute {
  const char* name;
  int type;  // onemodel::AttrType code
  bool required;
  const char* default_string;  // the default of a string attribute, else ""
};

struct OpSchema {
  const char* op;
  int since;
  const SchemaInput* inputs;
  int input_count;
  const SchemaAttribute* attributes;
  int attribute_count;
  int outputs_min;
  int outputs_max;
};

// Sorted by operator, then version.
std::span<const OpSchema> op_schemas() noexcept;

// The schema in force for `op` at `opset` (largest since <= opset), or nullptr.
const OpSchema* find_schema(std::string_view op, std::int64_t opset) noexcept;

}  // namespace onemodel::diff
