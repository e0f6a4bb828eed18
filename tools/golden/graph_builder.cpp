#include "tools/golden/graph_builder.hpp"

#include <cstring>
#include <memory>

#include "core/ir/resolve.hpp"
#include "core/tensor/subbyte.hpp"

namespace onemodel::golden {
namespace {

IrAttribute attribute(const std::string& name, AttrType type) {
  IrAttribute a;
  a.name = name;
  a.type = type;
  return a;
}

IrValueInfo shaped_info(const std::string& name, const Tensor& value) {
  IrValueInfo info;
  info.name = name;
  info.type.kind = IrType::Kind::Tensor;
  info.type.elem_type = static_cast<std::int32_t>(value.dtype());
  info.type.has_shape = true;
  for (std::int32_t extent : value.shape().extents()) {
    info.type.shape.push_back(IrDim{IrDim::Kind::Value, extent, {}});
  }
  return info;
}

}  // namespace

IrAttribute attr_int(const std::string& name, std::int64_t value) {
  IrAttribute a = attribute(name, AttrType::Int);
  a.i = value;
  return a;
}

IrAttribute attr_float(const std::string& name, float value) {
  IrAttribute a = attribute(name, AttrType::Float);
  a.f = value;
  return a;
}

IrAttribute attr_ints(const std::string& name, std::vector<std::int64_t> values) {
  IrAttribute a = attribute(name, AttrType::Ints);
  a.ints = std::move(values);
  return a;
}

IrAttribute attr_string(const std::string& name, const std::string& value) {
  IrAttribute a = attribute(name, AttrType::String);
  a.s = value;
  return a;
}

IrAttribute attr_graph(const std::string& name, IrGraph graph) {
  IrAttribute a = attribute(name, AttrType::Graph);
  a.graphs.push_back(std::move(graph));
  return a;
}

Tensor float_tensor(const Shape& shape, const std::vector<float>& values) {
  return Tensor::from_values<float>(DType::F32, shape, std::span<const float>(values));
}

Tensor int64_tensor(const Shape& shape, const std::vector<std::int64_t>& values) {
  return Tensor::from_values<std::int64_t>(DType::I64, shape, std::span<const std::int64_t>(values));
}

Tensor bool_tensor(const Shape& shape, const std::vector<std::uint8_t>& values) {
  return Tensor::from_values<std::uint8_t>(DType::Bool, shape, std::span<const std::uint8_t>(values));
}

Tensor double_tensor(const Shape& shape, const std::vector<double>& values) {
  return Tensor::from_values<double>(DType::F64, shape, std::span<const double>(values));
}

GraphBuilder::GraphBuilder(std::int64_t opset, std::string prefix) : prefix_(std::move(prefix)) {
  graph_.model.ir_version = 10;
  graph_.model.producer_name = "onemodel-golden";
  graph_.model.opset_imports = {{"", opset}};
  graph_.model.graph.name = "golden";
}

std::string GraphBuilder::fresh_name() {
  // Appended, not `"t" + std::to_string(...)`: GCC 12 at -O3 reports a false -Wrestrict on that.
  std::string name = prefix_;
  name += std::to_string(counter_++);
  return name;
}

std::string GraphBuilder::input(const std::string& name, Tensor value) {
  graph_.model.graph.inputs.push_back(shaped_info(name, value));
  graph_.feeds.emplace_back(name, std::move(value));
  return name;
}

std::string GraphBuilder::constant(const std::string& name, const Tensor& value) {
  IrTensor t;
  t.name = name;
  t.data_type = static_cast<std::int32_t>(value.dtype());
  for (std::int32_t extent : value.shape().extents()) t.dims.push_back(extent);
  auto bytes = std::make_shared<std::vector<std::byte>>(static_cast<std::size_t>(value.element_count()) *
                                                        dtype_size(value.dtype()));
  value.copy_to(*bytes);
  // Sub-byte types are packed in an IrTensor as in ONNX files (spec/tensors.md section 2.2).
  if (dtype_is_subbyte(value.dtype())) *bytes = pack_subbyte(value.dtype(), *bytes);
  t.data = ByteView{bytes->data(), bytes->size(), bytes};
  graph_.model.graph.initializers.push_back(std::move(t));
  return name;
}

std::string GraphBuilder::node(const std::string& op, std::vector<std::string> inputs,
                               std::vector<IrAttribute> attributes, const std::string& output) {
  IrNode n;
  n.op_type = op;
  n.name = op + "_" + std::to_string(graph_.model.graph.nodes.size());
  n.inputs = std::move(inputs);
  n.outputs = {output.empty() ? fresh_name() : output};
  n.attributes = std::move(attributes);
  graph_.model.graph.nodes.push_back(n);
  return n.outputs[0];
}

void GraphBuilder::node_outputs(const std::string& op, std::vector<std::string> inputs,
                                std::vector<IrAttribute> attributes, std::vector<std::string> outputs) {
  IrNode n;
  n.op_type = op;
  n.name = op + "_" + std::to_string(graph_.model.graph.nodes.size());
  n.inputs = std::move(inputs);
  n.outputs = std::move(outputs);
  n.attributes = std::move(attributes);
  graph_.model.graph.nodes.push_back(std::move(n));
}

std::string GraphBuilder::body_input(const std::string& name, std::int32_t elem_type, int rank) {
  IrValueInfo info;
  info.name = name;
  info.type.kind = IrType::Kind::Tensor;
  info.type.elem_type = elem_type;
  info.type.has_shape = rank >= 0;
  for (int d = 0; d < rank; ++d) info.type.shape.push_back(IrDim{});
  graph_.model.graph.inputs.push_back(info);
  return name;
}

void GraphBuilder::output(const std::string& value, std::int32_t elem_type) {
  IrValueInfo info;
  info.name = value;
  info.type.kind = IrType::Kind::Tensor;
  info.type.elem_type = elem_type;
  info.type.has_shape = false;
  graph_.model.graph.outputs.push_back(info);
}

GoldenGraph GraphBuilder::finish() {
  resolve_model(graph_.model, FieldPathStyle::Onnx);
  return std::move(graph_);
}

}  // namespace onemodel::golden
