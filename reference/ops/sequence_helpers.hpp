// Shared helpers of the sequence and optional operators (spec/ops/control-flow.md section 2):
// reading a packed sequence input, and the position operand of SequenceAt, SequenceInsert and
// SequenceErase.
#pragma once

#include <cstdint>
#include <string>

#include "core/graph/packed_value.hpp"
#include "reference/ops/axis_helpers.hpp"

namespace onemodel::sequence_ops {

// Input i, which must hold a sequence (InvalidModel naming the node otherwise).
inline Value sequence_input(const RunContext& context, std::size_t i) {
  Value v = input_value_of(context, i);
  if (v.kind() != Value::Kind::Sequence) {
    context.node().fail_invalid("input " + std::to_string(i) + " is not a sequence");
  }
  return v;
}

// A position operand: an int32 or int64 scalar (or one-element tensor).
inline std::int64_t read_position(const NodeInfo& node, const Tensor& t) {
  if (t.element_count() != 1) node.fail_invalid("position must hold one element, not " + std::to_string(t.element_count()));
  return shape_ops::read_ints(node, t, "position")[0];
}

// `position` counted from the end when negative, checked against [-count, count) or, when
// `inclusive_end`, [-count, count]. Outside is InvalidInput naming the node (a run-time index,
// spec/ops/shape-indexing.md section 1).
inline std::size_t normalize_position(const NodeInfo& node, std::int64_t position, std::size_t count, bool inclusive_end) {
  const auto n = static_cast<std::int64_t>(count);
  const std::int64_t high = inclusive_end ? n : n - 1;
  if (position < -n || position > high) {
    shape_ops::fail_index(node, "position " + std::to_string(position) + " outside [" + std::to_string(-n) + ", " +
                                    std::to_string(high) + "] for a sequence of " + std::to_string(count));
  }
  return static_cast<std::size_t>(position < 0 ? position + n : position);
}

// The kernels of this family decide their outputs while running. They hold and hand on whole
// tensors of any element type, STRING included (spec/tensors.md section 8; the packed form writes
// strings as lengths and bytes, spec/values.md section 2); ConcatFromSequence assigns strings.
class DataDependentKernel : public OpKernel {
 public:
  DataDependentKernel() {
    outputs_data_dependent = true;
    string_elements = true;
  }
  void infer(InferContext&) const override {}
};

}  // namespace onemodel::sequence_ops
