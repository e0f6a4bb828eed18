#include "tests/support/onnx_builder.hpp"

namespace onemodel::testing::onnxb {

ProtoWriter tensor_type(std::int32_t elem_type, const std::vector<std::int64_t>& dims) {
  ProtoWriter shape;
  for (std::int64_t d : dims) shape.message_field(1, ProtoWriter().int_field(1, d));  // Dimension.dim_value
  ProtoWriter tensor;
  tensor.int_field(1, elem_type).message_field(2, shape);
  return ProtoWriter().message_field(1, tensor);  // TypeProto.tensor_type
}

ProtoWriter value_info(const std::string& name, const ProtoWriter& type) {
  return ProtoWriter().bytes_field(1, name).message_field(2, type);
}

ProtoWriter tensor_value_info(const std::string& name, std::int32_t elem_type, const std::vector<std::int64_t>& dims) {
  return value_info(name, tensor_type(elem_type, dims));
}

ProtoWriter tensor_header(const std::string& name, std::int32_t data_type, const std::vector<std::int64_t>& dims) {
  ProtoWriter t;
  for (std::int64_t d : dims) t.int_field(1, d);
  t.int_field(2, data_type);
  if (!name.empty()) t.bytes_field(8, name);
  return t;
}

ProtoWriter tensor_raw(const std::string& name, std::int32_t data_type, const std::vector<std::int64_t>& dims,
                       const std::string& raw_data) {
  return tensor_header(name, data_type, dims).bytes_field(9, raw_data);
}

ProtoWriter tensor_floats(const std::string& name, const std::vector<std::int64_t>& dims, const std::vector<float>& values) {
  return tensor_header(name, 1, dims).packed_floats(4, values);
}

ProtoWriter tensor_external(const std::string& name, std::int32_t data_type, const std::vector<std::int64_t>& dims,
                            const std::vector<std::pair<std::string, std::string>>& entries) {
  ProtoWriter t = tensor_header(name, data_type, dims);
  for (const auto& [k, v] : entries) t.message_field(13, ProtoWriter().bytes_field(1, k).bytes_field(2, v));
  t.int_field(14, 1);  // data_location = EXTERNAL
  return t;
}

ProtoWriter attr_int(const std::string& name, std::int64_t value, bool with_type) {
  ProtoWriter a;
  a.bytes_field(1, name).int_field(3, value);
  if (with_type) a.int_field(20, 2);
  return a;
}

ProtoWriter attr_float(const std::string& name, float value, bool with_type) {
  ProtoWriter a;
  a.bytes_field(1, name).float_field(2, value);
  if (with_type) a.int_field(20, 1);
  return a;
}

ProtoWriter attr_ints(const std::string& name, std::initializer_list<std::int64_t> values, bool with_type) {
  ProtoWriter a;
  a.bytes_field(1, name).packed_varints(8, values);
  if (with_type) a.int_field(20, 7);
  return a;
}

ProtoWriter attr_tensor(const std::string& name, const ProtoWriter& tensor) {
  return ProtoWriter().bytes_field(1, name).message_field(5, tensor).int_field(20, 4);
}

ProtoWriter attr_graph(const std::string& name, const ProtoWriter& graph) {
  return ProtoWriter().bytes_field(1, name).message_field(6, graph).int_field(20, 5);
}

ProtoWriter node(const std::string& op_type, const std::vector<std::string>& inputs,
                 const std::vector<std::string>& outputs, const std::vector<ProtoWriter>& attributes,
                 const std::string& domain, const std::string& name) {
  ProtoWriter n;
  for (const auto& i : inputs) n.bytes_field(1, i);
  for (const auto& o : outputs) n.bytes_field(2, o);
  if (!name.empty()) n.bytes_field(3, name);
  n.bytes_field(4, op_type);
  for (const auto& a : attributes) n.message_field(5, a);
  if (!domain.empty()) n.bytes_field(7, domain);
  return n;
}

ProtoWriter GraphParts::build() const {
  ProtoWriter g;
  for (const auto& n : nodes) g.message_field(1, n);
  g.bytes_field(2, name);
  for (const auto& t : initializers) g.message_field(5, t);
  for (const auto& v : inputs) g.message_field(11, v);
  for (const auto& v : outputs) g.message_field(12, v);
  for (const auto& v : value_info) g.message_field(13, v);
  return g;
}

ProtoWriter ModelParts::build() const {
  ProtoWriter m;
  if (with_ir_version) m.int_field(1, ir_version);
  m.bytes_field(2, producer_name);
  if (with_graph) m.message_field(7, graph);
  for (const auto& [domain, version] : opsets) {
    ProtoWriter o;
    if (!domain.empty()) o.bytes_field(1, domain);
    o.int_field(2, version);
    m.message_field(8, o);
  }
  return m;
}

GraphParts identity_graph() {
  GraphParts g;
  g.nodes.push_back(node("Identity", {"X"}, {"Y"}));
  g.inputs.push_back(tensor_value_info("X", 1, {2}));
  g.outputs.push_back(tensor_value_info("Y", 1, {2}));
  return g;
}

std::string model_bytes(const GraphParts& graph) {
  ModelParts m;
  m.graph = graph.build();
  return m.build().bytes();
}

std::string minimal_model_bytes() { return model_bytes(identity_graph()); }

}  // namespace onemodel::testing::onnxb
