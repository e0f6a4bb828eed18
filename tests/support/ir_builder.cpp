#include "tests/support/ir_builder.hpp"

#include <gtest/gtest.h>

#include <bit>
#include <utility>

#include "core/ir/resolve.hpp"

namespace onemodel::ir_builder {

IrDim fixed_dim(std::int64_t extent) { return IrDim{IrDim::Kind::Value, extent, {}}; }
IrDim named_dim(const std::string& param) { return IrDim{IrDim::Kind::Param, 0, param}; }

IrValueInfo tensor_value_info(const std::string& name, std::int32_t elem_type, std::vector<IrDim> dims) {
  IrValueInfo v = unshaped_tensor_value_info(name, elem_type);
  v.type.has_shape = true;
  v.type.shape = std::move(dims);
  return v;
}

IrValueInfo fixed_tensor_value_info(const std::string& name, std::int32_t elem_type, const Shape& shape) {
  std::vector<IrDim> dims;
  for (std::int32_t e : shape.extents()) dims.push_back(fixed_dim(e));
  return tensor_value_info(name, elem_type, std::move(dims));
}

IrValueInfo unshaped_tensor_value_info(const std::string& name, std::int32_t elem_type) {
  IrValueInfo v;
  v.name = name;
  v.type.kind = IrType::Kind::Tensor;
  v.type.elem_type = elem_type;
  v.type.has_shape = false;
  return v;
}

std::int32_t onnx_elem_type(DType type) { return static_cast<std::int32_t>(type); }

namespace {
IrAttribute attribute(const std::string& name, AttrType type) {
  IrAttribute a;
  a.name = name;
  a.type = type;
  return a;
}
}  // namespace

IrAttribute int_attr(const std::string& name, std::int64_t value) {
  IrAttribute a = attribute(name, AttrType::Int);
  a.i = value;
  return a;
}
IrAttribute float_attr(const std::string& name, float value) {
  IrAttribute a = attribute(name, AttrType::Float);
  a.f = value;
  return a;
}
IrAttribute string_attr(const std::string& name, const std::string& value) {
  IrAttribute a = attribute(name, AttrType::String);
  a.s = value;
  return a;
}
IrAttribute ints_attr(const std::string& name, std::vector<std::int64_t> values) {
  IrAttribute a = attribute(name, AttrType::Ints);
  a.ints = std::move(values);
  return a;
}
IrAttribute floats_attr(const std::string& name, std::vector<float> values) {
  IrAttribute a = attribute(name, AttrType::Floats);
  a.floats = std::move(values);
  return a;
}
IrAttribute strings_attr(const std::string& name, std::vector<std::string> values) {
  IrAttribute a = attribute(name, AttrType::Strings);
  a.strings = std::move(values);
  return a;
}

IrNode node(const std::string& op, std::vector<std::string> inputs, std::vector<std::string> outputs) {
  IrNode n;
  n.op_type = op;
  n.name = op + "_node";
  n.inputs = std::move(inputs);
  n.outputs = std::move(outputs);
  return n;
}

IrModel one_node_model(const std::string& op, std::int64_t opset, const std::vector<NodeInput>& inputs,
                       const std::vector<IrValueInfo>& outputs, std::vector<IrAttribute> attributes,
                       std::int64_t ir_version) {
  IrModel m;
  m.ir_version = ir_version;
  m.opset_imports = {{"", opset}};
  IrNode n = node(op, {}, {});
  for (const NodeInput& in : inputs) {
    n.inputs.push_back(in.name);
    if (in.name.empty()) continue;
    m.graph.inputs.push_back(fixed_tensor_value_info(in.name, onnx_elem_type(in.value.dtype()), in.value.shape()));
  }
  for (const IrValueInfo& out : outputs) {
    n.outputs.push_back(out.name);
    if (!out.name.empty()) m.graph.outputs.push_back(out);
  }
  n.attributes = std::move(attributes);
  m.graph.nodes = {n};
  resolve_model(m, FieldPathStyle::Onnx);
  return m;
}

std::vector<std::pair<std::string, Tensor>> feeds_of(const std::vector<NodeInput>& inputs) {
  std::vector<std::pair<std::string, Tensor>> feeds;
  for (const NodeInput& in : inputs) {
    if (!in.name.empty()) feeds.emplace_back(in.name, in.value);
  }
  return feeds;
}

Session reference_session(IrModel model, ExecutionMode mode) {
  SessionOptions options;
  options.engine = EngineKind::Reference;
  options.mode = mode;
  return Session::create(std::move(model), options);
}

std::vector<Tensor> run_one_node(const std::string& op, std::int64_t opset, const std::vector<NodeInput>& inputs,
                                 const std::vector<IrValueInfo>& outputs, std::vector<IrAttribute> attributes,
                                 ExecutionMode mode, std::int64_t ir_version) {
  Session s = reference_session(one_node_model(op, opset, inputs, outputs, std::move(attributes), ir_version), mode);
  return s.run(feeds_of(inputs));
}

SessionErrorKind session_error_kind_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const SessionError& e) {
    return e.kind();
  }
  ADD_FAILURE() << "no SessionError";
  return SessionErrorKind::Disposed;
}

std::uint32_t float_bits(float f) { return std::bit_cast<std::uint32_t>(f); }

IrModel expanded_input_model(std::int64_t x_extent, std::vector<std::int64_t> shape, const std::string& expanded) {
  IrModel m;
  m.ir_version = 8;
  m.opset_imports = {{"", 13}};
  m.graph.inputs = {tensor_value_info("x", 1, {fixed_dim(x_extent)})};
  m.graph.nodes = {node("Constant", {}, {"shape"}), node("Expand", {"x", "shape"}, {expanded})};
  m.graph.nodes[0].attributes = {ints_attr("value_ints", std::move(shape))};
  m.graph.nodes[0].name = "shape_node";
  m.graph.nodes[1].name = "expand_node";
  return m;
}

}  // namespace onemodel::ir_builder
