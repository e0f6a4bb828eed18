// Hand-built IrModel pieces for unit tests: tensor value infos, fixed and named dims, attributes,
// nodes, and one-node models run in the reference engine. Each builder fills only the fields a
// test needs; everything else keeps the IR's defaults (include/onemodel/ir.hpp).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "onemodel/session.hpp"
#include "onemodel/session_error.hpp"

namespace onemodel::ir_builder {

IrDim fixed_dim(std::int64_t extent);
IrDim named_dim(const std::string& param);

// A tensor value info with the given dims (has_shape true).
IrValueInfo tensor_value_info(const std::string& name, std::int32_t elem_type, std::vector<IrDim> dims);
// A tensor value info whose dims are the fixed extents of `shape`.
IrValueInfo fixed_tensor_value_info(const std::string& name, std::int32_t elem_type, const Shape& shape);
// A tensor value info of unknown rank (has_shape false).
IrValueInfo unshaped_tensor_value_info(const std::string& name, std::int32_t elem_type);

// The ONNX element type code of `type` (DType is that code, spec/tensors.md section 2).
std::int32_t onnx_elem_type(DType type);

IrAttribute int_attr(const std::string& name, std::int64_t value);
IrAttribute float_attr(const std::string& name, float value);
IrAttribute string_attr(const std::string& name, const std::string& value);
IrAttribute ints_attr(const std::string& name, std::vector<std::int64_t> values);
IrAttribute floats_attr(const std::string& name, std::vector<float> values);
IrAttribute strings_attr(const std::string& name, std::vector<std::string> values);

// A node of `op` named "<op>_node".
IrNode node(const std::string& op, std::vector<std::string> inputs, std::vector<std::string> outputs);

// An input of a one-node model: a graph input fed `value` at run time; an empty name is an
// omitted optional input (the node gets "" and there is no graph input).
struct NodeInput {
  std::string name;
  Tensor value;
};

// A resolved model of one node `op` at `opset`. Present inputs are graph inputs typed and shaped
// like their tensors. Every output with a name is a graph output with that value info; an output
// with an empty name is an omitted output of the node.
IrModel one_node_model(const std::string& op, std::int64_t opset, const std::vector<NodeInput>& inputs,
                       const std::vector<IrValueInfo>& outputs, std::vector<IrAttribute> attributes,
                       std::int64_t ir_version = 8);

// The run-time feed of the present inputs, in order.
std::vector<std::pair<std::string, Tensor>> feeds_of(const std::vector<NodeInput>& inputs);

// A reference-engine session in `mode`.
Session reference_session(IrModel model, ExecutionMode mode);

// Builds one_node_model(...), runs it in the reference engine in `mode` and returns its outputs.
std::vector<Tensor> run_one_node(const std::string& op, std::int64_t opset, const std::vector<NodeInput>& inputs,
                                 const std::vector<IrValueInfo>& outputs, std::vector<IrAttribute> attributes,
                                 ExecutionMode mode, std::int64_t ir_version = 8);

// The kind of the SessionError `f` throws; a test failure (and Disposed) when it throws none.
SessionErrorKind session_error_kind_of(const std::function<void()>& f);

// A small file with a large value (opset 13): graph input x float[x_extent], a Constant node
// "shape_node" holding `shape` and an Expand node "expand_node" of x to it, named `expanded`.
// Callers add the nodes that read it and the graph outputs.
IrModel expanded_input_model(std::int64_t x_extent, std::vector<std::int64_t> shape, const std::string& expanded);

// The bit pattern of a float, to compare results bit for bit.
std::uint32_t float_bits(float f);

}  // namespace onemodel::ir_builder
