// Typed TensorProto fields converted to the raw little-endian layout (spec/onnx-import.md
// section 3). Expected bytes are written out by hand from the IEEE encodings and onnx.proto's
// packing rules (4-bit: first element in the low nibble; 2-bit: x0 | x1 << 2 | ...; 6-bit:
// byte0 = x0 | (x1 & 3) << 6, byte1 = x1 >> 2 | (x2 & 15) << 4, byte2 = x2 >> 4 | x3 << 2).
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "onemodel/error.hpp"
#include "onemodel/onnx_import.hpp"
#include "tests/support/onnx_builder.hpp"

namespace onemodel {
namespace {

using testing::ProtoWriter;
using namespace testing::onnxb;

IrTensor import_tensor(const ProtoWriter& tensor) {
  GraphParts g = identity_graph();
  g.initializers.push_back(tensor);
  auto owner = std::make_shared<std::string>(model_bytes(g));
  IrModel m = import_onnx_bytes(ByteView{reinterpret_cast<const std::byte*>(owner->data()), owner->size(), owner}, "t");
  return m.graph.initializers.at(0);
}

std::string hex(const IrTensor& t) {
  static const char* digits = "0123456789abcdef";
  std::string out;
  for (std::size_t i = 0; i < t.data.size; ++i) {
    const auto b = static_cast<unsigned>(t.data.data[i]);
    out += digits[b >> 4];
    out += digits[b & 15];
  }
  return out;
}

ModelErrorKind error_kind(const ProtoWriter& tensor) {
  try {
    import_tensor(tensor);
  } catch (const ModelError& e) {
    return e.kind();
  }
  ADD_FAILURE() << "accepted";
  return ModelErrorKind::Io;
}

ProtoWriter int32s(std::int32_t type, std::vector<std::int64_t> dims, std::initializer_list<std::int64_t> v) {
  return tensor_header("W", type, dims).packed_varints(5, v);
}

TEST(TensorConversion, FloatData) {
  EXPECT_EQ(hex(import_tensor(tensor_floats("W", {2}, {1.0f, -2.0f}))), "0000803f000000c0");
  // complex64: two float_data entries per element.
  EXPECT_EQ(hex(import_tensor(tensor_header("W", 14, {1}).packed_floats(4, {1.0f, 2.0f}))), "0000803f00000040");
  // Unpacked and packed entries mixed.
  EXPECT_EQ(hex(import_tensor(tensor_header("W", 1, {2}).float_field(4, 1.0f).packed_floats(4, {2.0f}))),
            "0000803f00000040");
}

TEST(TensorConversion, DoubleData) {
  EXPECT_EQ(hex(import_tensor(tensor_header("W", 11, {1}).packed_doubles(10, {1.0}))), "000000000000f03f");
  EXPECT_EQ(hex(import_tensor(tensor_header("W", 15, {1}).packed_doubles(10, {1.0, 0.5}))),
            "000000000000f03f000000000000e03f");
}

TEST(TensorConversion, Int64AndUint64Data) {
  EXPECT_EQ(hex(import_tensor(tensor_header("W", 7, {2}).packed_varints(7, {-1, 2}))), "ffffffffffffffff0200000000000000");
  EXPECT_EQ(hex(import_tensor(tensor_header("W", 13, {1}).packed_varints(11, {-1}))), "ffffffffffffffff");
  // uint32 keeps the low 32 bits of each uint64_data entry.
  EXPECT_EQ(hex(import_tensor(tensor_header("W", 12, {2}).packed_varints(11, {0x100000005, 7}))), "0500000007000000");
}

TEST(TensorConversion, Int32DataWideTypes) {
  EXPECT_EQ(hex(import_tensor(int32s(6, {2}, {-2, 0x12345678}))), "feffffff78563412");
  EXPECT_EQ(hex(import_tensor(int32s(5, {2}, {-2, 0x12345}))), "feff4523");   // int16: low 16 bits
  EXPECT_EQ(hex(import_tensor(int32s(4, {1}, {65535}))), "ffff");             // uint16
  EXPECT_EQ(hex(import_tensor(int32s(10, {1}, {0x3C00}))), "003c");           // float16 1.0
  EXPECT_EQ(hex(import_tensor(int32s(16, {1}, {0x3F80}))), "803f");           // bfloat16 1.0
}

TEST(TensorConversion, Int32DataByteTypes) {
  EXPECT_EQ(hex(import_tensor(int32s(3, {2}, {-1, 0x1FF}))), "ffff");   // int8: low 8 bits
  EXPECT_EQ(hex(import_tensor(int32s(2, {1}, {200}))), "c8");           // uint8
  EXPECT_EQ(hex(import_tensor(int32s(9, {4}, {0, 5, -1, 256}))), "00010101");  // bool: non-zero -> 1
  for (std::int32_t fp8 : {17, 18, 19, 20, 24}) {
    EXPECT_EQ(hex(import_tensor(int32s(fp8, {2}, {0x38, 0x17F}))), "387f") << fp8;
  }
}

TEST(TensorConversion, Int32DataPackedSubByteTypes) {
  // 4-bit: each entry's low byte is one packed byte; 3 elements need 2 bytes.
  for (std::int32_t t : {21, 22, 23}) {
    EXPECT_EQ(hex(import_tensor(int32s(t, {3}, {0x21, 0x103}))), "2103") << t;
    EXPECT_EQ(error_kind(int32s(t, {3}, {0x21})), ModelErrorKind::InvalidModel) << t;
  }
  // 2-bit: 5 elements need 2 bytes.
  for (std::int32_t t : {25, 26}) {
    EXPECT_EQ(hex(import_tensor(int32s(t, {5}, {0xE4, 0x01}))), "e401") << t;
    EXPECT_EQ(error_kind(int32s(t, {5}, {0xE4, 0x01, 0x00})), ModelErrorKind::InvalidModel) << t;
  }
}

TEST(TensorConversion, Int32DataSixBitTypes) {
  for (std::int32_t t : {27, 28}) {
    // x = 1, 2, 3, 4: byte0 = 1 | 2 << 6 = 0x81, byte1 = 0 | 3 << 4 = 0x30, byte2 = 0 | 4 << 2 = 0x10.
    EXPECT_EQ(hex(import_tensor(int32s(t, {4}, {1, 2, 3, 4}))), "813010") << t;
    // Five elements: 30 bits in 4 bytes; only the low 6 bits of an entry count (0x7F -> 0x3F).
    EXPECT_EQ(hex(import_tensor(int32s(t, {5}, {63, 0, 0, 0, 0x7F}))), "3f00003f") << t;
    EXPECT_EQ(error_kind(int32s(t, {4}, {1, 2, 3})), ModelErrorKind::InvalidModel) << t;
  }
}

TEST(TensorConversion, StringsAndEmptyTensors) {
  IrTensor s = import_tensor(tensor_header("W", 8, {2}).bytes_field(6, "a").bytes_field(6, "b\xFF"));
  EXPECT_EQ(s.strings, (std::vector<std::string>{"a", "b\xFF"}));
  EXPECT_TRUE(s.data.empty());
  IrTensor e = import_tensor(tensor_header("W", 1, {3, 0}));
  EXPECT_TRUE(e.data.empty());
  EXPECT_EQ(e.dims, (std::vector<std::int64_t>{3, 0}));
  // A zero dimension makes the count 0 even when the other dimensions are huge.
  IrTensor z = import_tensor(tensor_header("W", 1, {std::int64_t{1} << 40, std::int64_t{1} << 40, 0}));
  EXPECT_TRUE(z.data.empty());
  // A scalar (no dims) has one element.
  EXPECT_EQ(hex(import_tensor(tensor_floats("W", {}, {1.0f}))), "0000803f");
}

TEST(TensorConversion, WrongTypedFieldIsRefused) {
  EXPECT_EQ(error_kind(tensor_header("W", 1, {1}).packed_doubles(10, {1.0})), ModelErrorKind::InvalidModel);
  EXPECT_EQ(error_kind(tensor_header("W", 6, {1}).packed_floats(4, {1.0f})), ModelErrorKind::InvalidModel);
  EXPECT_EQ(error_kind(tensor_header("W", 13, {1}).packed_varints(7, {1})), ModelErrorKind::InvalidModel);
  EXPECT_EQ(error_kind(tensor_header("W", 12, {1}).packed_varints(5, {1})), ModelErrorKind::InvalidModel);
  EXPECT_EQ(error_kind(tensor_header("W", 1, {1}).bytes_field(6, "x")), ModelErrorKind::InvalidModel);
}

TEST(TensorConversion, SizeLimitsDecidedFromDims) {
  // 2^31 - 1 bytes is allowed by size (and then refused for the missing data); 2^31 is not.
  EXPECT_EQ(error_kind(tensor_header("W", 2, {0x7FFFFFFF})), ModelErrorKind::InvalidModel);
  EXPECT_EQ(error_kind(tensor_header("W", 2, {0x80000000})), ModelErrorKind::Unsupported);
  // 2^60 elements of a 2-bit type: 2^58 bytes, unsupported; 2^60 + 1 elements: invalid.
  EXPECT_EQ(error_kind(tensor_header("W", 25, {std::int64_t{1} << 30, std::int64_t{1} << 30})), ModelErrorKind::Unsupported);
  EXPECT_EQ(error_kind(tensor_header("W", 25, {(std::int64_t{1} << 60) + 1})), ModelErrorKind::InvalidModel);
  EXPECT_EQ(error_kind(tensor_header("W", 1, {std::int64_t{1} << 62, 4, 4})), ModelErrorKind::InvalidModel);
}

}  // namespace
}  // namespace onemodel
