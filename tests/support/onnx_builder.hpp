// Small builders of ONNX messages on top of ProtoWriter (field numbers from onnx.proto, listed
// in spec/onnx-import.md section 2), for tests, fuzz seeds and hostile files.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "tests/support/protobuf_writer.hpp"

namespace onemodel::testing::onnxb {

// TypeProto with a tensor_type of `elem_type` and, when `dims` is given, a shape.
ProtoWriter tensor_type(std::int32_t elem_type, const std::vector<std::int64_t>& dims);
ProtoWriter value_info(const std::string& name, const ProtoWriter& type);
ProtoWriter tensor_value_info(const std::string& name, std::int32_t elem_type, const std::vector<std::int64_t>& dims);

// TensorProto with name, data_type and dims only (add a data field to it).
ProtoWriter tensor_header(const std::string& name, std::int32_t data_type, const std::vector<std::int64_t>& dims);
ProtoWriter tensor_raw(const std::string& name, std::int32_t data_type, const std::vector<std::int64_t>& dims,
                       const std::string& raw_data);
ProtoWriter tensor_floats(const std::string& name, const std::vector<std::int64_t>& dims, const std::vector<float>& values);
// A TensorProto with data_location = EXTERNAL and the given external_data entries.
ProtoWriter tensor_external(const std::string& name, std::int32_t data_type, const std::vector<std::int64_t>& dims,
                            const std::vector<std::pair<std::string, std::string>>& entries);

ProtoWriter attr_int(const std::string& name, std::int64_t value, bool with_type = true);
ProtoWriter attr_float(const std::string& name, float value, bool with_type = true);
ProtoWriter attr_ints(const std::string& name, std::initializer_list<std::int64_t> values, bool with_type = true);
ProtoWriter attr_tensor(const std::string& name, const ProtoWriter& tensor);
ProtoWriter attr_graph(const std::string& name, const ProtoWriter& graph);

ProtoWriter node(const std::string& op_type, const std::vector<std::string>& inputs,
                 const std::vector<std::string>& outputs, const std::vector<ProtoWriter>& attributes = {},
                 const std::string& domain = {}, const std::string& name = {});

struct GraphParts {
  std::string name = "g";
  std::vector<ProtoWriter> nodes;
  std::vector<ProtoWriter> initializers;
  std::vector<ProtoWriter> inputs;
  std::vector<ProtoWriter> outputs;
  std::vector<ProtoWriter> value_info;
  ProtoWriter build() const;
};

struct ModelParts {
  bool with_ir_version = true;
  std::int64_t ir_version = 8;
  std::vector<std::pair<std::string, std::int64_t>> opsets = {{"", 13}};
  std::string producer_name = "onemodel-tests";
  bool with_graph = true;
  ProtoWriter graph;
  ProtoWriter build() const;
};

// One graph X (float[2]) -> Identity -> Y.
GraphParts identity_graph();
// The bytes of a valid model around `graph` (ir_version 8, opset 13).
std::string model_bytes(const GraphParts& graph);
std::string minimal_model_bytes();

}  // namespace onemodel::testing::onnxb
