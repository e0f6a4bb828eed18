// Rows of the operator table for control flow, sequences and optionals (spec/ops/control-flow.md).
// Element types are `any`: these operators move values whole and never compute on elements (the
// half-precision adapter leaves them alone); the bodies' nodes do the arithmetic.
#include <vector>

#include "reference/ops/op_families.hpp"

namespace onemodel {

// Factories (reference/ops/op_<name>.cpp).
std::unique_ptr<OpKernel> make_concat_from_sequence(const NodeInfo&);
std::unique_ptr<OpKernel> make_if(const NodeInfo&);
std::unique_ptr<OpKernel> make_loop(const NodeInfo&);
std::unique_ptr<OpKernel> make_optional(const NodeInfo&);
std::unique_ptr<OpKernel> make_optional_get_element(const NodeInfo&);
std::unique_ptr<OpKernel> make_optional_has_element(const NodeInfo&);
std::unique_ptr<OpKernel> make_scan(const NodeInfo&);
std::unique_ptr<OpKernel> make_sequence_at(const NodeInfo&);
std::unique_ptr<OpKernel> make_sequence_construct(const NodeInfo&);
std::unique_ptr<OpKernel> make_sequence_empty(const NodeInfo&);
std::unique_ptr<OpKernel> make_sequence_erase(const NodeInfo&);
std::unique_ptr<OpKernel> make_sequence_insert(const NodeInfo&);
std::unique_ptr<OpKernel> make_sequence_length(const NodeInfo&);
std::unique_ptr<OpKernel> make_sequence_map(const NodeInfo&);
std::unique_ptr<OpKernel> make_split_to_sequence(const NodeInfo&);

std::span<const OpDef> control_ops() {
  static const std::vector<OpDef> rows = {
      {"", "ConcatFromSequence", 11, 27, make_concat_from_sequence, "any String"},
      {"", "If", 1, 27, make_if, "any String"},
      {"", "Loop", 1, 27, make_loop, "any String"},
      {"", "Optional", 15, 27, make_optional, "any"},
      {"", "OptionalGetElement", 15, 27, make_optional_get_element, "any"},
      {"", "OptionalHasElement", 15, 27, make_optional_has_element, "any"},
      {"", "Scan", 8, 27, make_scan, "any String"},
      {"", "SequenceAt", 11, 27, make_sequence_at, "any String"},
      {"", "SequenceConstruct", 11, 27, make_sequence_construct, "any String"},
      {"", "SequenceEmpty", 11, 27, make_sequence_empty, "any"},
      {"", "SequenceErase", 11, 27, make_sequence_erase, "any"},
      {"", "SequenceInsert", 11, 27, make_sequence_insert, "any String"},
      {"", "SequenceLength", 11, 27, make_sequence_length, "any"},
      {"", "SequenceMap", 17, 27, make_sequence_map, "any String"},
      {"", "SplitToSequence", 11, 27, make_split_to_sequence, "any String"},
  };
  return rows;
}

}  // namespace onemodel
