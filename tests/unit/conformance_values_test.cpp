// Sequence and optional data files of the conformance runner (spec/conformance.md sections 1 to 3):
// the SequenceProto / OptionalProto reader (core/onnx/value_entry.hpp), value comparison, and whole
// cases with sequence inputs and outputs. The messages are written byte by byte from the field
// numbers of onnx.proto (SequenceProto: name 1, elem_type 2, tensor_values 3, sparse_tensor_values
// 4, sequence_values 5, map_values 6, optional_values 7; OptionalProto: name 1, elem_type 2,
// tensor_value 3, ..., sequence_value 5; elem_type 1 tensor, 2 sparse, 3 sequence, 4 map,
// 5 optional), not with a protobuf library, so a reader that numbers a field wrongly cannot agree
// with its own writer.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "core/conformance/case_runner.hpp"
#include "core/conformance/compare.hpp"
#include "core/onnx/value_entry.hpp"
#include "onemodel/error.hpp"
#include "tests/support/case_folder_test.hpp"
#include "tests/support/onnx_builder.hpp"

namespace onemodel::conformance {
namespace {

namespace fs = std::filesystem;
namespace onnxb = testing::onnxb;
using onnx::IrValue;
using onnx::ValueMessage;

// "0a 03 73" -> the bytes 0x0a 0x03 0x73 (spaces ignored).
std::string from_hex(const std::string& text) {
  std::string digits;
  for (char c : text) {
    if (c != ' ') digits += c;
  }
  std::string out;
  for (std::size_t i = 0; i + 1 < digits.size(); i += 2) out += static_cast<char>(std::stoi(digits.substr(i, 2), nullptr, 16));
  return out;
}

ByteView view_of(const std::string& bytes) {
  auto owner = std::make_shared<std::string>(bytes);
  return ByteView{reinterpret_cast<const std::byte*>(owner->data()), owner->size(), owner};
}

IrValue parse(const std::string& bytes, ValueMessage message) {
  return onnx::parse_value_bytes(view_of(bytes), "test.pb", message);
}

ModelError parse_error(const std::string& bytes, ValueMessage message) {
  try {
    parse(bytes, message);
  } catch (const ModelError& e) {
    return e;
  }
  ADD_FAILURE() << "no ModelError";
  return ModelError(ModelErrorKind::Io, "none");
}

std::vector<float> floats_of(const IrTensor& t) {
  std::vector<float> v(t.data.size / sizeof(float));
  if (!v.empty()) std::memcpy(v.data(), t.data.data, t.data.size);
  return v;
}

// TensorProto{dims: [2], data_type: FLOAT, raw_data: 1.0f, -2.0f}: 08 02 | 10 01 | 4a 08 <8 bytes>,
// 14 bytes.
const std::string kTensorA = "08 02 10 01 4a 08 0000803f 000000c0";
// TensorProto{dims: [1], data_type: FLOAT, raw_data: 3.0f}: 10 bytes.
const std::string kTensorB = "08 01 10 01 4a 04 00004040";
// TensorProto{dims: [1], data_type: INT64 (7), raw_data: 5}: 14 bytes.
const std::string kTensorI64 = "08 01 10 07 4a 08 0500000000000000";

// SequenceProto{name: "seq", elem_type: TENSOR, tensor_values: [A, B]}.
const std::string kSequence = "0a 03 736571  10 01  1a 0e " + kTensorA + "  1a 0a " + kTensorB;

TEST(ConformanceValueReader, SequenceOfTensorsInOrder) {
  const IrValue v = parse(from_hex(kSequence), ValueMessage::Sequence);
  EXPECT_EQ(v.kind, ValueMessage::Sequence);
  EXPECT_EQ(v.name, "seq");
  ASSERT_EQ(v.elements.size(), 2u);
  EXPECT_EQ(v.elements[0].data_type, 1);
  EXPECT_EQ(v.elements[0].dims, std::vector<std::int64_t>{2});
  EXPECT_EQ(floats_of(v.elements[0]), (std::vector<float>{1.0f, -2.0f}));
  EXPECT_EQ(v.elements[1].dims, std::vector<std::int64_t>{1});
  EXPECT_EQ(floats_of(v.elements[1]), std::vector<float>{3.0f});
  // An empty sequence of tensors: elem_type only.
  const IrValue empty = parse(from_hex("10 01"), ValueMessage::Sequence);
  EXPECT_EQ(empty.kind, ValueMessage::Sequence);
  EXPECT_TRUE(empty.elements.empty());
  EXPECT_TRUE(empty.name.empty());
}

TEST(ConformanceValueReader, OptionalOfATensorOfASequenceAndOfNothing) {
  // OptionalProto{name: "opt", elem_type: TENSOR, tensor_value: B}.
  IrValue v = parse(from_hex("0a 03 6f7074  10 01  1a 0a " + kTensorB), ValueMessage::Optional);
  EXPECT_EQ(v.kind, ValueMessage::Optional);
  EXPECT_EQ(v.name, "opt");
  EXPECT_EQ(v.optional_of, onnx::kValueElemTensor);
  ASSERT_EQ(v.content.size(), 1u);
  EXPECT_EQ(v.content[0].kind, ValueMessage::Tensor);
  EXPECT_EQ(floats_of(v.content[0].tensor), std::vector<float>{3.0f});

  // OptionalProto{elem_type: SEQUENCE, sequence_value: SequenceProto{elem_type: TENSOR,
  // tensor_values: [B]}}: the sequence is 02 + 02 + 0a = 14 bytes.
  v = parse(from_hex("10 03  2a 0e  10 01 1a 0a " + kTensorB), ValueMessage::Optional);
  EXPECT_EQ(v.optional_of, onnx::kValueElemSequence);
  ASSERT_EQ(v.content.size(), 1u);
  EXPECT_EQ(v.content[0].kind, ValueMessage::Sequence);
  ASSERT_EQ(v.content[0].elements.size(), 1u);
  EXPECT_EQ(floats_of(v.content[0].elements[0]), std::vector<float>{3.0f});

  // What the backend data writes for None: the name and elem_type UNDEFINED.
  v = parse(from_hex("0a 03 6f7074  10 00"), ValueMessage::Optional);
  EXPECT_TRUE(v.content.empty());
  EXPECT_EQ(v.optional_of, onnx::kValueElemUndefined);
  // An empty optional that says it would hold a sequence.
  v = parse(from_hex("10 03"), ValueMessage::Optional);
  EXPECT_TRUE(v.content.empty());
  EXPECT_EQ(v.optional_of, onnx::kValueElemSequence);
}

TEST(ConformanceValueReader, TheDeclaredMessageDecidesHowTheBytesAreRead) {
  // The same bytes as a TensorProto: field 1 is dims, not a name.
  const std::string tensor = from_hex("08 01 10 01 42 01 54 4a 04 00004040");  // name (8) "T"
  EXPECT_EQ(parse(tensor, ValueMessage::Tensor).name, "T");
  EXPECT_EQ(onnx::peek_value_name(view_of(tensor), "t.pb", ValueMessage::Tensor), "T");
  EXPECT_EQ(onnx::peek_value_name(view_of(tensor), "t.pb", ValueMessage::Sequence), "");
  EXPECT_EQ(onnx::peek_value_name(view_of(from_hex(kSequence)), "s.pb", ValueMessage::Sequence), "seq");
  EXPECT_EQ(onnx::peek_value_name(view_of(from_hex(kSequence)), "s.pb", ValueMessage::Tensor), "");
  // Read as a SequenceProto, the tensor's varint field 1 is a name with the wrong wire type.
  EXPECT_EQ(parse_error(tensor, ValueMessage::Sequence).kind(), ModelErrorKind::Malformed);
}

TEST(ConformanceValueReader, MalformedBytesAreRefused) {
  // tensor_values claims 14 bytes, 5 follow.
  ModelError e = parse_error(from_hex("10 01 1a 0e 08 02 10 01 4a"), ValueMessage::Sequence);
  EXPECT_EQ(e.kind(), ModelErrorKind::Malformed);
  EXPECT_NE(e.message().find("exceeds the 5 remaining bytes"), std::string::npos) << e.describe();
  EXPECT_EQ(e.offset(), std::optional<std::uint64_t>(3));
  // The name claims 3 bytes, 2 follow.
  EXPECT_EQ(parse_error(from_hex("0a 03 6f70"), ValueMessage::Optional).kind(), ModelErrorKind::Malformed);
  // The length of the tensor inside is cut short: raw_data claims 8 bytes, the tensor holds 4.
  e = parse_error(from_hex("10 01 1a 0a 08 02 10 01 4a 08 0000803f"), ValueMessage::Sequence);
  EXPECT_EQ(e.kind(), ModelErrorKind::Malformed);
  EXPECT_EQ(e.field_path().rfind("SequenceProto.tensor_values[0]", 0), 0u) << e.describe();
  // A truncated varint at the end.
  EXPECT_EQ(parse_error(from_hex("10 81"), ValueMessage::Sequence).kind(), ModelErrorKind::Malformed);

  // Wrong wire types: elem_type length-delimited, tensor_values as a varint, tensor_value as 32 bits.
  e = parse_error(from_hex("12 01 01"), ValueMessage::Sequence);
  EXPECT_EQ(e.kind(), ModelErrorKind::Malformed);
  EXPECT_EQ(e.field_path(), "SequenceProto.elem_type");
  e = parse_error(from_hex("10 01 18 05"), ValueMessage::Sequence);
  EXPECT_EQ(e.kind(), ModelErrorKind::Malformed);
  EXPECT_EQ(e.field_path(), "SequenceProto.tensor_values");
  e = parse_error(from_hex("10 01 1d 00000000"), ValueMessage::Optional);
  EXPECT_EQ(e.kind(), ModelErrorKind::Malformed);
  EXPECT_EQ(e.field_path(), "OptionalProto.tensor_value");
  // Wire types that do not exist (7) or are groups (3).
  EXPECT_EQ(parse_error(from_hex("10 01 1f"), ValueMessage::Sequence).kind(), ModelErrorKind::Malformed);
  EXPECT_EQ(parse_error(from_hex("1b 1c"), ValueMessage::Optional).kind(), ModelErrorKind::Malformed);
  // A name that is not UTF-8.
  EXPECT_EQ(parse_error(from_hex("0a 01 ff 10 01"), ValueMessage::Sequence).kind(), ModelErrorKind::Malformed);
}

TEST(ConformanceValueReader, ContradictionsAreInvalidAndOtherKindsUnsupported) {
  // A sequence must say what it holds; elem_type must be a kind; values must be of that kind.
  EXPECT_EQ(parse_error(from_hex("1a 0a " + kTensorB), ValueMessage::Sequence).kind(), ModelErrorKind::InvalidModel);
  EXPECT_EQ(parse_error(from_hex("10 09"), ValueMessage::Sequence).kind(), ModelErrorKind::InvalidModel);
  ModelError e = parse_error(from_hex("10 01 32 00"), ValueMessage::Sequence);  // map_values in a tensor sequence
  EXPECT_EQ(e.kind(), ModelErrorKind::InvalidModel);
  EXPECT_EQ(e.field_path(), "SequenceProto.map_values");
  // The elements of one sequence have one element type.
  e = parse_error(from_hex("10 01 1a 0a " + kTensorB + " 1a 0e " + kTensorI64), ValueMessage::Sequence);
  EXPECT_EQ(e.kind(), ModelErrorKind::InvalidModel);
  EXPECT_EQ(e.field_path(), "SequenceProto.tensor_values[1].data_type");
  // An optional of nothing holding a tensor, an optional of a tensor holding a sequence.
  EXPECT_EQ(parse_error(from_hex("10 00 1a 0a " + kTensorB), ValueMessage::Optional).kind(),
            ModelErrorKind::InvalidModel);
  EXPECT_EQ(parse_error(from_hex("10 01 2a 02 10 01"), ValueMessage::Optional).kind(), ModelErrorKind::InvalidModel);

  // What the library's values do not hold: maps, sparse tensors, nested sequences, optionals in
  // sequences, optionals of optionals, and a sequence of maps inside an optional.
  for (const char* bytes : {"10 04", "10 02", "10 03 2a 02 10 01", "10 05"}) {
    e = parse_error(from_hex(bytes), ValueMessage::Sequence);
    EXPECT_EQ(e.kind(), ModelErrorKind::Unsupported) << bytes << ": " << e.describe();
    EXPECT_EQ(e.field_path(), "SequenceProto.elem_type");
  }
  for (const char* bytes : {"10 04", "10 02", "10 05 3a 02 10 00"}) {
    EXPECT_EQ(parse_error(from_hex(bytes), ValueMessage::Optional).kind(), ModelErrorKind::Unsupported) << bytes;
  }
  e = parse_error(from_hex("10 03 2a 02 10 04"), ValueMessage::Optional);
  EXPECT_EQ(e.kind(), ModelErrorKind::Unsupported);
  EXPECT_EQ(e.field_path(), "OptionalProto.sequence_value.elem_type");
}

// ---- comparing values ----

Tensor f32(std::vector<float> values) {
  return Tensor::from_values<float>(DType::F32, Shape{static_cast<std::int64_t>(values.size())}, values);
}

TEST(ConformanceValueCompare, SequencesElementByElement) {
  const Value want = Value::sequence(DType::F32, {f32({1, 2}), f32({3})});
  EXPECT_TRUE(compare_values(Value::sequence(DType::F32, {f32({1.0005f, 2}), f32({3})}), want, "o").equal);
  Comparison c = compare_values(Value::sequence(DType::F32, {f32({1, 2}), f32({3.5f})}), want, "output 's'");
  EXPECT_FALSE(c.equal);
  EXPECT_EQ(c.reason.rfind("output 's' element 1: 1 of 1 elements differ; first at [0]: got 3.5, expected 3", 0), 0u)
      << c.reason;
  c = compare_values(Value::sequence(DType::F32, {f32({0, 2}), f32({0})}), want, "o");
  EXPECT_EQ(c.mismatches, 2);
  EXPECT_NE(c.reason.find("2 of 2 elements of the sequence differ"), std::string::npos) << c.reason;
  c = compare_values(Value::sequence(DType::F32, {f32({1, 2})}), want, "o");
  EXPECT_EQ(c.reason, "o: 1 elements in the sequence, expected 2");
  c = compare_values(Value::sequence(DType::F32, {f32({1, 2, 3})}), Value::sequence(DType::F32, {f32({1, 2})}), "o");
  EXPECT_EQ(c.reason, "o element 0: shape [3], expected [2]");
  c = compare_values(Value::sequence(DType::F64, {}), Value::sequence(DType::F32, {}), "o");
  EXPECT_EQ(c.reason, "o: a sequence of F64, expected F32");
  // An empty recorded sequence whose element type nothing says: only the length counts.
  EXPECT_TRUE(compare_values(Value::sequence(DType::F64, {}), Value::sequence(DType::F32, {}), "o", false).equal);
  EXPECT_EQ(compare_values(Value(f32({1})), want, "o").reason, "o: a tensor, expected a sequence");
}

TEST(ConformanceValueCompare, OptionalsByPresenceThenContent) {
  const Value empty = Value::empty_optional();
  const Value holding = Value::optional(Value(f32({1})));
  EXPECT_TRUE(compare_values(Value::empty_optional(Value::Kind::Sequence), empty, "o").equal);
  EXPECT_TRUE(compare_values(Value::optional(Value(f32({1.0004f}))), holding, "o").equal);
  EXPECT_EQ(compare_values(empty, holding, "o").reason, "o: an optional empty, expected one holding a tensor");
  EXPECT_EQ(compare_values(holding, empty, "o").reason, "o: an optional holding a tensor, expected one empty");
  EXPECT_FALSE(compare_values(Value::optional(Value(f32({2}))), holding, "o").equal);
  const Value seq = Value::optional(Value::sequence(DType::F32, {f32({1})}));
  EXPECT_EQ(compare_values(holding, seq, "o").reason, "o: a tensor, expected a sequence");
}

// ---- whole cases ----

class ConformanceValueCase : public testing::CaseFolderTest {
 protected:
  ConformanceValueCase() : CaseFolderTest("onemodel_conformance_values_") {}
  // A model: S (sequence of float) and T (float[1]) -> SequenceInsert -> Y (sequence of float).
  void write_insert_model() {
    // TypeProto.sequence_type (4) holding TypeProto.Sequence.elem_type (1): a TypeProto whose
    // tensor_type (1) has elem_type (1) FLOAT and no shape (element shapes differ).
    const testing::ProtoWriter float_any_shape =
        testing::ProtoWriter().message_field(1, testing::ProtoWriter().int_field(1, 1));
    testing::ProtoWriter sequence_type;
    sequence_type.message_field(4, testing::ProtoWriter().message_field(1, float_any_shape));
    onnxb::GraphParts g;
    g.nodes.push_back(onnxb::node("SequenceInsert", {"S", "T"}, {"Y"}));
    g.inputs.push_back(onnxb::value_info("S", sequence_type));
    g.inputs.push_back(onnxb::tensor_value_info("T", 1, {1}));
    g.outputs.push_back(onnxb::value_info("Y", sequence_type));
    onnxb::ModelParts m;
    m.opsets = {{"", 13}};
    m.graph = g.build();
    write("model.onnx", m.build().bytes());
  }
  CaseResult run(std::span<const SessionOptions> twins = {}) {
    SessionOptions options;
    options.engine = EngineKind::Reference;
    options.intra_op_threads = 1;
    return run_case(dir_, options, twins);
  }

};

TEST_F(ConformanceValueCase, ASequenceCaseMatchedByNamesPassesAndAWrongElementFails) {
  write_insert_model();
  // The files in the other order than the inputs: only their names (TensorProto field 8 for T,
  // SequenceProto field 1 for S) put them in place.
  write("test_data_set_0/input_0.pb", from_hex("08 01 10 01 42 01 54 4a 04 00004040"));  // T = [3]
  write("test_data_set_0/input_1.pb", from_hex("0a 01 53 10 01 1a 0e " + kTensorA));   // S = [[1, -2]]
  write("test_data_set_0/output_0.pb", from_hex("0a 01 59 10 01 1a 0e " + kTensorA + " 1a 0a " + kTensorB));
  SessionOptions twin;
  twin.engine = EngineKind::Optimized;
  twin.intra_op_threads = 2;
  CaseResult r = run(std::span<const SessionOptions>(&twin, 1));
  EXPECT_EQ(r.status, CaseStatus::Pass) << r.reason;
  EXPECT_EQ(r.data_sets, 1);

  // Recorded element 1 is 4, not 3.
  write("test_data_set_0/output_0.pb",
        from_hex("0a 01 59 10 01 1a 0e " + kTensorA + " 1a 0a 08 01 10 01 4a 04 00008040"));
  r = run();
  EXPECT_EQ(r.status, CaseStatus::Fail);
  EXPECT_EQ(r.reason.rfind("test_data_set_0: output 'Y' element 1: 1 of 1 elements differ", 0), 0u) << r.reason;

  // One element recorded, two computed.
  write("test_data_set_0/output_0.pb", from_hex("0a 01 59 10 01 1a 0e " + kTensorA));
  r = run();
  EXPECT_EQ(r.status, CaseStatus::Fail);
  EXPECT_EQ(r.reason, "test_data_set_0: output 'Y': 2 elements in the sequence, expected 1");
}

TEST_F(ConformanceValueCase, DataFilesTheLibraryCannotHoldAreUnsupportedTypeAndBrokenOnesFail) {
  write_insert_model();
  write("test_data_set_0/input_0.pb", from_hex("0a 01 53 10 04"));  // S: a sequence of maps
  write("test_data_set_0/input_1.pb", from_hex("08 01 10 01 42 01 54 4a 04 00004040"));
  write("test_data_set_0/output_0.pb", from_hex("10 01"));
  CaseResult r = run();
  EXPECT_EQ(r.status, CaseStatus::UnsupportedType) << r.reason;
  EXPECT_NE(r.reason.find("input_0.pb: Unsupported: a sequence of maps"), std::string::npos) << r.reason;

  write("test_data_set_0/input_0.pb", from_hex("0a 01 53 10 01 1a 0e 08 02"));  // length cut short
  r = run();
  EXPECT_EQ(r.status, CaseStatus::Fail);
  EXPECT_EQ(r.reason.rfind("test_data_set_0: ModelError: Malformed", 0), 0u) << r.reason;
}

}  // namespace
}  // namespace onemodel::conformance
