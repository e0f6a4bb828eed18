#include "diff/graph_builder.hpp"

#include <memory>

#include "core/graph/tensor_bytes.hpp"
#include "core/ir/resolve.hpp"
#include "core/tensor/subbyte.hpp"

namespace onemodel::graph_builder {

GraphBuilder& GraphBuilder::input(const std::string& name, DType type, const Shape& shape) {
  IrValueInfo v;
  v.name = name;
  v.type.kind = IrType::Kind::Tensor;
  v.type.elem_type = static_cast<std::int32_t>(type);
  v.type.has_shape = true;
  for (std::int32_t e : shape.extents()) {
    IrDim d;
    d.kind = IrDim::Kind::Value;
    d.value = e;
    v.type.shape.push_back(d);
  }
  graph_.inputs.push_back(std::move(v));
  return *this;
}

GraphBuilder& GraphBuilder::input_any_shape(const std::string& name, DType type) {
  IrValueInfo v;
  v.name = name;
  v.type.kind = IrType::Kind::Tensor;
  v.type.elem_type = static_cast<std::int32_t>(type);
  graph_.inputs.push_back(std::move(v));
  return *this;
}

IrTensor ir_tensor_of(const std::string& name, const Tensor& value) {
  IrTensor t;
  t.name = name;
  t.data_type = static_cast<std::int32_t>(value.dtype());
  for (std::int32_t e : value.shape().extents()) t.dims.push_back(e);
  if (value.dtype() == DType::String) {
    t.strings = value.to_vector<std::string>();  // ONNX keeps strings in string_data, never raw bytes
    return t;
  }
  const Tensor c = value.contiguous();
  const auto bytes = tensor_bytes(c);
  // Sub-byte types are packed in an IrTensor as in ONNX files (spec/tensors.md section 2.2).
  auto owner = dtype_is_subbyte(value.dtype())
                   ? std::make_shared<std::vector<std::byte>>(pack_subbyte(value.dtype(), bytes))
                   : std::make_shared<std::vector<std::byte>>(bytes.begin(), bytes.end());
  t.data = ByteView{owner->data(), owner->size(), owner};
  return t;
}

GraphBuilder& GraphBuilder::initializer(const std::string& name, const Tensor& value) {
  graph_.initializers.push_back(ir_tensor_of(name, value));
  return *this;
}

GraphBuilder& GraphBuilder::node(const std::string& op, std::vector<std::string> inputs,
                                 std::vector<std::string> outputs, std::vector<IrAttribute> attributes) {
  IrNode n;
  n.op_type = op;
  n.name = op + "_" + std::to_string(graph_.nodes.size());
  n.inputs = std::move(inputs);
  n.outputs = std::move(outputs);
  n.attributes = std::move(attributes);
  graph_.nodes.push_back(std::move(n));
  return *this;
}

GraphBuilder& GraphBuilder::output(const std::string& name, DType type) {
  IrValueInfo v;
  v.name = name;
  v.type.kind = IrType::Kind::Tensor;
  v.type.elem_type = static_cast<std::int32_t>(type);
  graph_.outputs.push_back(std::move(v));
  return *this;
}

IrModel GraphBuilder::build() const {
  IrModel m;
  m.ir_version = 8;
  m.opset_imports = {{"", opset_}};
  m.graph = graph_;
  resolve_model(m, FieldPathStyle::Onnx);
  return m;
}

}  // namespace onemodel::graph_builder
