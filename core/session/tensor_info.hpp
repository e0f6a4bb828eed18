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
void check_input_against(const TensorInfo& info, const Tensor& tensor);

}  // namespace onemodel
