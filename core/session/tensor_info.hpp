// Declared inputs and outputs of a graph, and checking a caller's tensors against them
// (spec/session.md section 4). Internal.
#pragma once

#include <vector>

#include "onemodel/ir.hpp"
#include "onemodel/session.hpp"

namespace onemodel {

TensorInfo tensor_info_from(const IrValueInfo& value);

// Graph inputs a caller must give: those without an initializer supplying a default.
std::vector<TensorInfo> required_inputs(const IrGraph& graph);
std::vector<TensorInfo> declared_outputs(const IrGraph& graph);

// Throws SessionError(InvalidInput) naming the input when the tensor's element type, rank or a
// fixed extent differs from the declaration. Undeclared parts are not checked.
// A sequence or optional input is refused here: it is given through Session::run_values.
void check_input_against(const TensorInfo& info, const Tensor& tensor);
// The same for a value (spec/values.md section 4): its kind must be the declared one (a tensor or
// a sequence given for an optional of that kind stands for an optional holding it), and every
// tensor it holds is checked as check_input_against checks a tensor. Returns the value as the
// engine takes it: a tensor as it is, a sequence or an optional packed (core/graph/packed_value).
Value checked_input_value(const TensorInfo& info, const Value& value);

}  // namespace onemodel
