// One-node models for the operator fuzzer (fuzz/operators_fuzz.cpp) and its rapidcheck twin
// (tests/unit/operator_fuzz_property_test.cpp), built from bytes so an input replays exactly.
// The bytes choose a row of the operator table (core/graph/op_kernel.hpp all_ops(): domain,
// operator, opset range, element types), an opset inside it, and then, guided by the ONNX schema
// of that version (diff/op_schemas.hpp), element types, inputs of rank 0 to 6 with zero-size axes
// and broadcasting, constant or fed inputs, attributes inside and outside the schema, and values
// with NaN, infinities, subnormals, -0 and extreme integers. Every input holds at most
// kMaxInputElements elements, so a case is small; what a node makes of it (a huge Expand) is the
// library's to refuse.
#pragma once

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "diff/random_graph.hpp"
#include "onemodel/ir.hpp"
#include "onemodel/tensor.hpp"

namespace onemodel::diff {

inline constexpr std::int64_t kMaxInputElements = 4096;

struct OpFuzzCase {
  IrModel model;  // resolved; empty graph when resolution refused it (see model_error)
  std::vector<std::pair<std::string, Tensor>> feeds;
  std::string description;  // operator, opset, inputs, attributes: for finding messages
  std::string model_error;  // non-empty when resolve_model threw ModelError (a typed refusal)
};

// The row is chosen by the first two bytes.
OpFuzzCase build_op_case(ByteSource& source);
// The row `row` of all_ops() (taken modulo the table size).
OpFuzzCase build_op_case(ByteSource& source, std::size_t row);

// A tensor of `shape` with the builder's values (small multiples of 1/16, one tensor in four of
// special values only, extreme integers); the caller keeps the element count small.
Tensor fuzz_tensor(ByteSource& s, DType type, const std::vector<std::int64_t>& shape);

}  // namespace onemodel::diff
