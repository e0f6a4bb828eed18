// The 4- and 2-bit element types in memory and in files (spec/tensors.md section 2.2): one element
// per byte in tensors, packed (first element in the low bits) in ONNX raw_data / int32_data and in
// IrTensor bytes. Expected packed bytes are written out by hand from that rule; the ONNX backend
// case below was written by the onnx package. Hostile sizes must give InvalidModel naming the
// tensor, never a crash or an allocation from an unchecked number.
#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "core/graph/node_info.hpp"
#include "core/onnx/tensor_entry.hpp"
#include "core/tensor/subbyte.hpp"
#include "onemodel/error.hpp"
#include "onemodel/model_format.hpp"
#include "onemodel/session.hpp"
#include "onemodel/session_error.hpp"
#include "onemodel/tensor_error.hpp"
#include "tests/support/ir_builder.hpp"
#include "tests/support/onnx_builder.hpp"

namespace onemodel {
namespace {

namespace fs = std::filesystem;
using namespace testing::onnxb;
using testing::ProtoWriter;

std::vector<std::byte> bytes(std::initializer_list<int> values) {
  std::vector<std::byte> out;
  for (int v : values) out.push_back(static_cast<std::byte>(v & 0xFF));
  return out;
}

ByteView view_of(const std::string& s) {
  auto owner = std::make_shared<std::string>(s);
  return ByteView{reinterpret_cast<const std::byte*>(owner->data()), owner->size(), owner};
}

ByteView view_of(const std::vector<std::byte>& v) {
  auto owner = std::make_shared<std::vector<std::byte>>(v);
  return ByteView{owner->data(), owner->size(), owner};
}

IrTensor ir_tensor(DType type, std::vector<std::int64_t> dims, const std::vector<std::byte>& packed) {
  IrTensor t;
  t.name = "w";
  t.data_type = static_cast<std::int32_t>(type);
  t.dims = std::move(dims);
  t.data = view_of(packed);
  return t;
}

std::vector<int> bytes_as_ints(const Tensor& t) {
  std::vector<int> out;
  if (t.dtype() == DType::I4 || t.dtype() == DType::I2) {
    for (std::int8_t v : t.to_vector<std::int8_t>()) out.push_back(v);
  } else {
    for (std::uint8_t v : t.to_vector<std::uint8_t>()) out.push_back(v);
  }
  return out;
}

TEST(SubbyteTypes, PackedLengths) {
  EXPECT_EQ(subbyte_bits(DType::U4), 4);
  EXPECT_EQ(subbyte_bits(DType::I4), 4);
  EXPECT_EQ(subbyte_bits(DType::F4E2M1), 4);
  EXPECT_EQ(subbyte_bits(DType::U2), 2);
  EXPECT_EQ(subbyte_bits(DType::I2), 2);
  EXPECT_EQ(subbyte_bits(DType::U8), 0);
  EXPECT_FALSE(dtype_is_subbyte(DType::I8));
  // ceil(count * bits / 8), also where count * bits would overflow 64 bits.
  EXPECT_EQ(subbyte_packed_length(0, 4), 0u);
  EXPECT_EQ(subbyte_packed_length(1, 4), 1u);
  EXPECT_EQ(subbyte_packed_length(3, 4), 2u);
  EXPECT_EQ(subbyte_packed_length(5, 2), 2u);
  EXPECT_EQ(subbyte_packed_length(8, 2), 2u);
  EXPECT_EQ(subbyte_packed_length((std::uint64_t{1} << 60) - 1, 4), std::uint64_t{1} << 59);
}

// Two 4-bit values per byte, the first in the low nibble; the last half byte's high nibble is 0.
TEST(SubbyteTypes, PacksFourBitsLowNibbleFirstWithOddCounts) {
  EXPECT_EQ(pack_subbyte(DType::U4, bytes({1, 2, 3})), bytes({0x21, 0x03}));
  EXPECT_EQ(pack_subbyte(DType::I4, bytes({-1, 7, -8})), bytes({0x7F, 0x08}));
  EXPECT_EQ(pack_subbyte(DType::F4E2M1, bytes({0x9})), bytes({0x09}));
  EXPECT_EQ(pack_subbyte(DType::U4, {}), bytes({}));
  std::vector<std::byte> out(3);
  unpack_subbyte(DType::I4, bytes({0x7F, 0x08}), out);
  EXPECT_EQ(out, bytes({-1, 7, -8}));  // sign-extended into the byte
  unpack_subbyte(DType::U4, bytes({0x7F, 0xF8}), out);  // padding nibble 0xF ignored
  EXPECT_EQ(out, bytes({15, 7, 8}));
}

// Four 2-bit values per byte, the first in bits 1..0.
TEST(SubbyteTypes, PacksTwoBitsFromTheLowBitsWithEveryRemainder) {
  EXPECT_EQ(pack_subbyte(DType::U2, bytes({1, 2, 3, 0, 3})), bytes({0x39, 0x03}));
  EXPECT_EQ(pack_subbyte(DType::I2, bytes({-2, -1, 0, 1, -1, 1})), bytes({0x4E, 0x07}));
  std::vector<std::byte> out(6);
  unpack_subbyte(DType::I2, bytes({0x4E, 0x07}), out);
  EXPECT_EQ(out, bytes({-2, -1, 0, 1, -1, 1}));
  // Every count 0..20 round-trips, for every type, with random in-range values.
  std::mt19937 random(114u);
  for (DType type : {DType::U4, DType::I4, DType::F4E2M1, DType::U2, DType::I2}) {
    for (std::size_t count = 0; count <= 20; ++count) {
      std::vector<std::byte> values(count);
      for (auto& v : values) {
        std::uint8_t byte = 0;
        do byte = static_cast<std::uint8_t>(random()); while (!subbyte_byte_is_valid(type, byte));
        v = static_cast<std::byte>(byte);
      }
      const std::vector<std::byte> packed = pack_subbyte(type, values);
      ASSERT_EQ(packed.size(), subbyte_packed_length(count, subbyte_bits(type)));
      std::vector<std::byte> back(count);
      unpack_subbyte(type, packed, back);
      EXPECT_EQ(back, values) << dtype_name(type) << " count " << count;
    }
  }
}

TEST(SubbyteTypes, UnpackRefusesAWrongPackedLength) {
  std::vector<std::byte> out(3);
  EXPECT_THROW(unpack_subbyte(DType::U4, bytes({0x21}), out), TensorError);
  EXPECT_THROW(unpack_subbyte(DType::U4, bytes({0x21, 0x03, 0x00}), out), TensorError);
  EXPECT_THROW(unpack_subbyte(DType::U8, bytes({1, 2, 3}), out), TensorError);
}

TEST(SubbyteTypes, ValidBytes) {
  for (int b = 0; b < 256; ++b) {
    const auto byte = static_cast<std::uint8_t>(b);
    const int s = static_cast<std::int8_t>(byte);
    EXPECT_EQ(subbyte_byte_is_valid(DType::U4, byte), b < 16) << b;
    EXPECT_EQ(subbyte_byte_is_valid(DType::F4E2M1, byte), b < 16) << b;
    EXPECT_EQ(subbyte_byte_is_valid(DType::U2, byte), b < 4) << b;
    EXPECT_EQ(subbyte_byte_is_valid(DType::I4, byte), s >= -8 && s <= 7) << b;
    EXPECT_EQ(subbyte_byte_is_valid(DType::I2, byte), s >= -2 && s <= 1) << b;
  }
}

// An IrTensor (packed, as every file holds it) becomes a tensor of one element per byte.
TEST(SubbyteTypes, TensorFromIrUnpacksOddCounts) {
  const Tensor u = tensor_from_ir(ir_tensor(DType::U4, {3}, bytes({0x21, 0x03})), "initializer 'w'");
  EXPECT_EQ(u.dtype(), DType::U4);
  EXPECT_EQ(u.shape(), Shape{3});
  EXPECT_EQ(bytes_as_ints(u), (std::vector<int>{1, 2, 3}));
  const Tensor i = tensor_from_ir(ir_tensor(DType::I2, {5}, bytes({0x4E, 0x03})), "initializer 'w'");
  EXPECT_EQ(bytes_as_ints(i), (std::vector<int>{-2, -1, 0, 1, -1}));
  const Tensor e = tensor_from_ir(ir_tensor(DType::I4, {0, 7}, bytes({})), "initializer 'w'");
  EXPECT_EQ(e.element_count(), 0);
}

SessionErrorKind kind_of_from_ir(const IrTensor& t, std::string* message = nullptr) {
  try {
    (void)tensor_from_ir(t, "initializer 'w'");
  } catch (const SessionError& e) {
    if (message != nullptr) *message = e.message();
    return e.kind();
  }
  ADD_FAILURE() << "accepted";
  return SessionErrorKind::Disposed;
}

// Hostile sizes: a byte count that does not fit the element count, huge dims with few bytes.
TEST(SubbyteTypes, TensorFromIrRefusesWrongLengthsNamingTheTensor) {
  std::string message;
  EXPECT_EQ(kind_of_from_ir(ir_tensor(DType::U4, {3}, bytes({0x21})), &message), SessionErrorKind::InvalidModel);
  EXPECT_NE(message.find("initializer 'w'"), std::string::npos) << message;
  EXPECT_EQ(kind_of_from_ir(ir_tensor(DType::U4, {3}, bytes({0x21, 0x03, 0x00}))), SessionErrorKind::InvalidModel);
  // Three bytes would be right for 3 one-byte elements, not for 3 packed ones.
  EXPECT_EQ(kind_of_from_ir(ir_tensor(DType::I2, {3}, bytes({1, 2, 3}))), SessionErrorKind::InvalidModel);
  // 2^30 elements claimed with 2 bytes: refused before anything is allocated (a 1 GB request).
  EXPECT_EQ(kind_of_from_ir(ir_tensor(DType::U4, {1 << 15, 1 << 15}, bytes({1, 2}))), SessionErrorKind::InvalidModel);
  // 2^40 elements: beyond the tensor limits (spec/tensors.md section 3), Unsupported as for every type.
  EXPECT_EQ(kind_of_from_ir(ir_tensor(DType::U4, {1 << 20, 1 << 20}, bytes({1, 2}))), SessionErrorKind::Unsupported);
  EXPECT_NE(kind_of_from_ir(ir_tensor(DType::I4, {-1}, bytes({}))), SessionErrorKind::Disposed);
}

ModelErrorKind import_kind(const ProtoWriter& tensor, std::string* message = nullptr) {
  try {
    (void)onnx::parse_tensor_bytes(view_of(tensor.bytes()), "t.pb");
  } catch (const ModelError& e) {
    if (message != nullptr) *message = e.describe();
    return e.kind();
  }
  ADD_FAILURE() << "accepted";
  return ModelErrorKind::Io;
}

// spec/onnx-import.md section 3: raw_data of ceil(count * bits / 8) bytes exactly; int32_data holds
// one packed byte per entry.
TEST(SubbyteTypes, ImportChecksPackedLengths) {
  const IrTensor ok = onnx::parse_tensor_bytes(view_of(tensor_raw("q", 22, {3}, std::string("\x7F\x08", 2)).bytes()), "t.pb");
  EXPECT_EQ(ok.data.size, 2u);
  EXPECT_EQ(bytes_as_ints(tensor_from_ir(ok, "q")), (std::vector<int>{-1, 7, -8}));
  std::string message;
  EXPECT_EQ(import_kind(tensor_raw("q", 22, {3}, std::string("\x7F", 1)), &message), ModelErrorKind::InvalidModel);
  EXPECT_NE(message.find("raw_data"), std::string::npos) << message;
  EXPECT_EQ(import_kind(tensor_raw("q", 22, {3}, std::string("\x7F\x08\x00", 3))), ModelErrorKind::InvalidModel);
  EXPECT_EQ(import_kind(tensor_raw("q", 26, {9}, std::string("\x01\x02", 2))), ModelErrorKind::InvalidModel);
  // int32_data (field 5): entries are packed bytes, so 3 int4 values take 2 entries.
  ProtoWriter typed = tensor_header("q", 22, {3});
  typed.packed_varints(5, {0x7F, 0x08});
  const IrTensor from_typed = onnx::parse_tensor_bytes(view_of(typed.bytes()), "t.pb");
  EXPECT_EQ(bytes_as_ints(tensor_from_ir(from_typed, "q")), (std::vector<int>{-1, 7, -8}));
  ProtoWriter too_many = tensor_header("q", 22, {3});
  too_many.packed_varints(5, {0x7F, 0x08, 0x00});
  EXPECT_EQ(import_kind(too_many), ModelErrorKind::InvalidModel);
}

// An int4 initializer of 5 elements (odd: the last byte's high nibble is padding) written to the
// OneModel format, read back (packed bytes, format.md section 2.5) and unpacked by the session;
// Cast to float gives the values in both engines. Bytes by hand: -1, 7 -> 0x7F; -8, 1 -> 0x18; -7 -> 0x09.
TEST(SubbyteTypes, InitializerThroughTheOneModelFormatRunsInBothEngines) {
  using namespace ir_builder;
  IrModel m = one_node_model("Cast", 25, {{"w", Tensor::zeros(DType::I4, Shape{5})}},
                             {fixed_tensor_value_info("y", 1, Shape{5})}, {int_attr("to", 1)});
  m.graph.inputs.clear();
  m.graph.initializers.push_back(ir_tensor(DType::I4, {5}, bytes({0x7F, 0x18, 0x09})));
  const std::vector<std::byte> file = write_onemodel_bytes(m);
  for (EngineKind engine : {EngineKind::Reference, EngineKind::Optimized}) {
    SessionOptions options;
    options.engine = engine;
    options.mode = ExecutionMode::Exact;
    Session session = Session::create(read_onemodel_bytes(view_of(file), "m.onemodel"), options);
    const std::vector<Tensor> out = session.run(std::vector<std::pair<std::string, Tensor>>{});
    EXPECT_EQ(out.at(0).to_vector<float>(), (std::vector<float>{-1.0f, 7.0f, -8.0f, 1.0f, -7.0f}));
  }
  // A wrong packed length in the file is InvalidModel when read.
  m.graph.initializers.back() = ir_tensor(DType::I4, {5}, bytes({0x7F, 0x18}));
  EXPECT_THROW((void)write_onemodel_bytes(m), ModelError);
}

// An ONNX backend file written by the onnx package: 25 int4 values in 13 bytes (odd count).
TEST(SubbyteTypes, ReadsTheBackendInt4Data) {
  const fs::path file = fs::path(ONEMODEL_BACKEND_TEST_DIR) / "node" / "test_cast_INT4_to_INT8" / "test_data_set_0" / "input_0.pb";
  if (!fs::exists(file)) GTEST_SKIP() << "no backend data at " << file;
  std::ifstream in(file, std::ios::binary);
  const std::string content((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const IrTensor t = onnx::parse_tensor_bytes(view_of(content), file.string());
  EXPECT_EQ(t.data.size, 13u);
  // The values the onnx package prints for this file (numpy_helper.to_array).
  EXPECT_EQ(bytes_as_ints(tensor_from_ir(t, "input_0")),
            (std::vector<int>{7, -8, -7, -6, -5, -4, -3, -2, -1, 0, 1, 2, 3, 4, 5, 6, 7, -8, -7, -6, -5, -4, -3, -2, -1}));
}

}  // namespace
}  // namespace onemodel
