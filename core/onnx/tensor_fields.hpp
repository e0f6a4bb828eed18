// The fields of one TensorProto as they were written (spec/onnx-import.md section 2), before
// the tensor rules of section 3 turn them into an IrTensor.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "core/protobuf/parse_context.hpp"
#include "core/protobuf/wire_reader.hpp"
#include "onemodel/bytes.hpp"

namespace onemodel::onnx {

struct TensorFields {
  std::size_t offset = 0;  // start of the message payload
  std::string name;
  std::string doc_string;
  std::vector<std::uint64_t> dims;  // varints as read; checked as int64 later
  std::int32_t data_type = 0;
  bool has_segment = false;
  std::vector<std::uint32_t> float_data;   // bit patterns
  std::vector<std::uint64_t> int32_data;   // varints; the low 32 bits are the value
  std::vector<std::string> string_data;
  std::vector<std::uint64_t> int64_data;
  std::vector<std::uint64_t> double_data;  // bit patterns
  std::vector<std::uint64_t> uint64_data;
  bool has_raw_data = false;
  ByteView raw_data;                       // view into the input
  std::vector<std::pair<std::string, std::string>> external_data;
  std::int32_t data_location = 0;          // 1 = EXTERNAL
};

TensorFields read_tensor_fields(pb::ParseContext& ctx, pb::WireReader& reader);

}  // namespace onemodel::onnx
