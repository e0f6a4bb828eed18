// Properties of the model readers, checked with rapidcheck on generated inputs:
// the protobuf wire reader (spec/onnx-import.md section 1), the ONNX importer and the OneModel
// format reader on truncated and corrupted files (a refusal is a ModelError, never a crash or
// another exception), and the element-count and byte-length limits of spec/onnx-import.md
// section 3 and spec/format.md sections 2.5 and 3.1, against exact 128-bit arithmetic.
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/protobuf/parse_context.hpp"
#include "core/protobuf/wire_reader.hpp"
#include "onemodel/error.hpp"
#include "onemodel/model_dump.hpp"
#include "onemodel/model_format.hpp"
#include "onemodel/onnx_import.hpp"
#include "tests/support/onnx_builder.hpp"
#include "tests/support/protobuf_writer.hpp"
#include "tests/support/reader_invariants.hpp"

namespace onemodel {
namespace {

using testing::ProtoWriter;
namespace onnxb = testing::onnxb;
using u128 = unsigned __int128;

ByteView owned(const std::string& bytes) {
  auto owner = std::make_shared<std::string>(bytes);
  return ByteView{reinterpret_cast<const std::byte*>(owner->data()), owner->size(), owner};
}

ByteView owned(const std::vector<std::byte>& bytes) {
  auto owner = std::make_shared<std::vector<std::byte>>(bytes);
  return ByteView{owner->data(), owner->size(), owner};
}

// A uint64 spread over every bit length (arbitrary<> alone favours small values).
rc::Gen<std::uint64_t> any_u64() {
  return rc::gen::apply([](std::uint64_t raw, int shift) { return shift == 64 ? 0 : raw >> shift; },
                        rc::gen::arbitrary<std::uint64_t>(), rc::gen::inRange(0, 65));
}

// Bytes a varint of `v` takes: 7 bits a byte, at least one (protobuf encoding specification).
std::size_t varint_size(std::uint64_t v) {
  std::size_t n = 1;
  while (v >= 0x80) {
    v >>= 7;
    ++n;
  }
  return n;
}

std::optional<ModelErrorKind> read_one_varint(const std::string& bytes, std::uint64_t& value, bool& at_end) {
  pb::ParseContext ctx(owned(bytes), "varint", "Test", 128);
  pb::WireReader reader(ctx, 0, bytes.size());
  try {
    value = reader.read_varint();
    at_end = reader.at_end();
    return std::nullopt;
  } catch (const ModelError& e) {
    return e.kind();
  }
}

// ---- protobuf wire reader --------------------------------------------------------------------

// spec/onnx-import.md section 1 (varints): the writer's encoding reads back, in the expected
// number of bytes, as a bare varint and as a field's value.
RC_GTEST_PROP(ReaderProperty, VarintRoundTripsForEveryUint64, ()) {
  const std::uint64_t v = *any_u64();
  const std::string encoded = testing::encode_varint(v);
  RC_ASSERT(encoded.size() == varint_size(v));
  std::uint64_t back = 0;
  bool at_end = false;
  RC_ASSERT(!read_one_varint(encoded, back, at_end).has_value());
  RC_ASSERT(back == v);
  RC_ASSERT(at_end);

  const auto field = static_cast<std::uint32_t>(*rc::gen::inRange<std::uint32_t>(1, 1u << 29));
  const std::string bytes = ProtoWriter().uint_field(field, v).bytes();
  pb::ParseContext ctx(owned(bytes), "field", "Test", 128);
  pb::WireReader reader(ctx, 0, bytes.size());
  pb::WireField f;
  RC_ASSERT(reader.next(f));
  RC_ASSERT(f.number == field);
  RC_ASSERT(f.wire == pb::WireType::Varint);
  RC_ASSERT(f.value == v);
  RC_ASSERT(!reader.next(f));
}

// Every strict prefix of a varint is cut off by the end of the data: Malformed.
RC_GTEST_PROP(ReaderProperty, TruncatedVarintIsMalformed, ()) {
  const std::string encoded = testing::encode_varint(*any_u64());
  const auto cut = *rc::gen::inRange<std::size_t>(0, encoded.size());
  std::uint64_t value = 0;
  bool at_end = false;
  RC_ASSERT(read_one_varint(encoded.substr(0, cut), value, at_end) == ModelErrorKind::Malformed);
}

// Overlong encodings (padding groups 0x80 ... then 0x00) are accepted with the same value,
// up to 10 bytes.
RC_GTEST_PROP(ReaderProperty, OverlongVarintKeepsItsValue, ()) {
  const std::uint64_t v = *rc::gen::inRange<std::uint64_t>(0, std::uint64_t{1} << 56);
  std::string encoded = testing::encode_varint(v);
  const auto extra = *rc::gen::inRange<std::size_t>(1, 10 - encoded.size() + 1);
  encoded.back() = static_cast<char>(encoded.back() | 0x80);
  for (std::size_t i = 1; i < extra; ++i) encoded.push_back(static_cast<char>(0x80));
  encoded.push_back(0);
  RC_ASSERT(encoded.size() <= 10u);
  std::uint64_t back = 0;
  bool at_end = false;
  RC_ASSERT(!read_one_varint(encoded, back, at_end).has_value());
  RC_ASSERT(back == v);
}

// The tenth byte of a varint may be 0 or 1 (bit 63); anything larger overflows 64 bits.
RC_GTEST_PROP(ReaderProperty, TenthVarintByteAboveOneIsRefused, ()) {
  std::string encoded;
  std::uint64_t low = 0;
  for (int i = 0; i < 9; ++i) {
    const auto group = *rc::gen::inRange<unsigned>(0, 128);
    low |= static_cast<std::uint64_t>(group) << (7 * i);
    encoded.push_back(static_cast<char>(group | 0x80));
  }
  const auto tenth = *rc::gen::inRange<unsigned>(0, 256);
  encoded.push_back(static_cast<char>(tenth));
  std::uint64_t back = 0;
  bool at_end = false;
  const auto error = read_one_varint(encoded, back, at_end);
  if (tenth <= 1) {
    RC_ASSERT(!error.has_value());
    RC_ASSERT(back == (low | static_cast<std::uint64_t>(tenth) << 63));
  } else {
    RC_ASSERT(error == ModelErrorKind::Malformed);
  }
}

// spec/onnx-import.md section 1 (lengths): a length read as 64 bits is kept when it fits the
// remaining bytes and refused (Malformed) when it does not, whatever its size.
RC_GTEST_PROP(ReaderProperty, LengthsRoundTripOrAreRefused, ()) {
  const auto field = static_cast<std::uint32_t>(*rc::gen::inRange<std::uint32_t>(1, 1u << 29));
  const auto payload_size = *rc::gen::inRange<std::size_t>(0, 64);
  const std::uint64_t claimed = *rc::gen::oneOf(any_u64(), rc::gen::inRange<std::uint64_t>(0, 70));
  const std::string payload(payload_size, 'p');
  const std::string bytes = ProtoWriter().lying_length_field(field, claimed, payload).bytes();
  pb::ParseContext ctx(owned(bytes), "length", "Test", 128);
  pb::WireReader reader(ctx, 0, bytes.size());
  pb::WireField f;
  if (claimed <= payload_size) {
    RC_ASSERT(reader.next(f));
    RC_ASSERT(f.number == field);
    RC_ASSERT(f.wire == pb::WireType::LengthDelimited);
    RC_ASSERT(f.size == claimed);
    RC_ASSERT(f.begin == varint_size(std::uint64_t{field} << 3 | 2) + varint_size(claimed));
  } else {
    try {
      reader.next(f);
      RC_FAIL("a length beyond the data was accepted");
    } catch (const ModelError& e) {
      RC_ASSERT(e.kind() == ModelErrorKind::Malformed);
    }
  }
}

// ---- random small models ---------------------------------------------------------------------

// Raw bytes of `count` elements of `bits` each, packed (spec/onnx-import.md section 3).
std::string raw_bytes(std::uint64_t count, int bits, unsigned seed) {
  const std::uint64_t length = (count * static_cast<std::uint64_t>(bits) + 7) / 8;
  std::string out(static_cast<std::size_t>(length), '\0');
  for (std::size_t i = 0; i < out.size(); ++i) out[i] = static_cast<char>((seed + 37 * i) & 0xFF);
  return out;
}

// A fixed-size element type: code and bits (spec/onnx-import.md section 3).
struct Dtype {
  std::int32_t code;
  int bits;
};
constexpr Dtype kDtypes[] = {{1, 32}, {2, 8}, {3, 8}, {4, 16}, {5, 16}, {6, 32}, {7, 64}, {9, 8}, {10, 16},
                             {11, 64}, {12, 32}, {13, 64}, {14, 64}, {15, 128}, {16, 16}, {17, 8}, {21, 4},
                             {22, 4}, {23, 4}, {24, 8}, {25, 2}, {26, 2}, {27, 6}, {28, 6}};

// A valid model: 1 to 6 nodes, each reading the graph input, an initializer or an earlier
// node's output, written in a random order (so resolution sometimes sorts them), with
// attributes and sometimes an If whose branch reads an outer value. Every graph has a node and
// the model's last field is opset_import (onnx_builder's ModelParts order).
rc::Gen<std::string> small_model() {
  return rc::gen::exec([] {
    onnxb::GraphParts g;
    g.name = "g";
    g.inputs.push_back(onnxb::tensor_value_info("X", 1, {2}));
    std::vector<std::string> values = {"X"};
    const auto n_init = *rc::gen::inRange(0, 3);
    for (int i = 0; i < n_init; ++i) {
      const Dtype dt = *rc::gen::elementOf(std::vector<Dtype>(std::begin(kDtypes), std::end(kDtypes)));
      const auto dims = *rc::gen::container<std::vector<std::int64_t>>(*rc::gen::inRange<std::size_t>(0, 3),
                                                                       rc::gen::inRange<std::int64_t>(0, 4));
      std::uint64_t count = 1;
      for (auto d : dims) count *= static_cast<std::uint64_t>(d);
      const std::string name = "w" + std::to_string(i);
      g.initializers.push_back(onnxb::tensor_raw(name, dt.code, dims, raw_bytes(count, dt.bits, static_cast<unsigned>(i))));
      values.push_back(name);
    }
    const auto n_nodes = *rc::gen::inRange(1, 7);
    std::vector<ProtoWriter> nodes;
    for (int i = 0; i < n_nodes; ++i) {
      const std::string out = "v" + std::to_string(i);
      const std::string a = *rc::gen::elementOf(values);
      std::vector<ProtoWriter> attrs;
      if (*rc::gen::arbitrary<bool>()) attrs.push_back(onnxb::attr_int("axis", *rc::gen::arbitrary<std::int64_t>()));
      if (*rc::gen::arbitrary<bool>()) attrs.push_back(onnxb::attr_float("alpha", *rc::gen::arbitrary<float>()));
      if (*rc::gen::arbitrary<bool>()) attrs.push_back(onnxb::attr_ints("pads", {1, -2, 3}, *rc::gen::arbitrary<bool>()));
      if (*rc::gen::inRange(0, 4) == 0) {
        onnxb::GraphParts branch;
        branch.name = "branch" + std::to_string(i);
        branch.nodes.push_back(onnxb::node("Identity", {a}, {"b" + std::to_string(i)}));
        branch.outputs.push_back(onnxb::tensor_value_info("b" + std::to_string(i), 1, {2}));
        attrs.push_back(onnxb::attr_graph("then_branch", branch.build()));
        attrs.push_back(onnxb::attr_graph("else_branch", branch.build()));
        nodes.push_back(onnxb::node("If", {"X"}, {out}, attrs, {}, "n" + std::to_string(i)));
      } else {
        const std::string op = *rc::gen::elementOf(std::vector<std::string>{"Relu", "Neg", "Identity", "Add"});
        std::vector<std::string> ins = {a};
        if (op == "Add") ins.push_back(*rc::gen::elementOf(values));
        nodes.push_back(onnxb::node(op, ins, {out}, attrs, {}, "n" + std::to_string(i)));
      }
      values.push_back(out);
    }
    g.nodes = nodes;
    if (*rc::gen::arbitrary<bool>()) std::reverse(g.nodes.begin(), g.nodes.end());
    g.outputs.push_back(onnxb::tensor_value_info(values.back(), 1, {2}));
    g.value_info.push_back(onnxb::tensor_value_info("v0", 1, {}));
    return onnxb::model_bytes(g);
  });
}

std::optional<IrModel> try_import(const std::string& bytes) {
  try {
    return import_onnx_bytes(owned(bytes), "property.onnx");
  } catch (const ModelError&) {
    return std::nullopt;
  }
  // Any other exception propagates and fails the property.
}

std::optional<IrModel> try_read(const std::vector<std::byte>& bytes) {
  try {
    return read_onemodel_bytes(owned(bytes), "property.onemodel");
  } catch (const ModelError&) {
    return std::nullopt;
  }
}

// Every strict prefix of a valid ONNX model is refused with a ModelError or reads to the same
// dump as the whole model (with these models a prefix always lacks a node's opset or cuts a
// field, so all are refused; either way never a crash or another exception).
RC_GTEST_PROP(ReaderProperty, OnnxPrefixesAreRefusedOrReadIdentically, ()) {
  const std::string model = *small_model();
  const std::optional<IrModel> whole = try_import(model);
  RC_ASSERT(whole.has_value());
  const std::string dump = dump_model(*whole);
  // The same model in the OneModel format reads back with the same dump (no doc strings here).
  const std::optional<IrModel> converted = try_read(write_onemodel_bytes(*whole));
  RC_ASSERT(converted.has_value());
  RC_ASSERT(dump_model(*converted) == dump);
  for (std::size_t cut = 0; cut < model.size(); ++cut) {
    const std::optional<IrModel> part = try_import(model.substr(0, cut));
    if (part) RC_ASSERT(dump_model(*part) == dump);
  }
}

// `count` distinct positions below `size`, at random (all of them when size <= count).
std::vector<std::size_t> some_positions(std::size_t size, std::size_t count) {
  std::vector<std::size_t> all(size);
  for (std::size_t i = 0; i < size; ++i) all[i] = i;
  if (size <= count) return all;
  const auto picked = *rc::gen::unique<std::vector<std::size_t>>(count, rc::gen::inRange<std::size_t>(0, size));
  return picked;
}

// One-byte corruptions of an ONNX model (48 random positions): refused with a ModelError or
// read; a model that reads has consistent resolution results and converts to the OneModel
// format, reading back with the same dump (spec/dump.md section 10), unless it holds a type the
// format cannot encode (spec/format.md section 2.7), which the writer refuses as Unsupported.
RC_GTEST_PROP(ReaderProperty, OnnxOneByteCorruptionsNeverCrash, ()) {
  const std::string model = *small_model();
  for (std::size_t at : some_positions(model.size(), 48)) {
    std::string corrupt = model;
    corrupt[at] = static_cast<char>(corrupt[at] ^ *rc::gen::inRange(1, 256));
    const std::optional<IrModel> m = try_import(corrupt);
    if (!m) continue;
    RC_ASSERT(testing::resolution_problem(m->graph) == "");
    std::vector<std::byte> file;
    try {
      file = write_onemodel_bytes(*m);
    } catch (const ModelError& e) {
      RC_ASSERT(testing::model_has_unwritable_none(*m));
      RC_ASSERT(e.kind() == ModelErrorKind::Unsupported);
      continue;
    }
    RC_ASSERT(!testing::model_has_unwritable_none(*m));
    const std::optional<IrModel> back = try_read(file);
    RC_ASSERT(back.has_value());
    RC_ASSERT(dump_model(*back) == dump_model(testing::as_converted(*m)));
  }
}

// spec/format.md section 1.1: file_length is the exact length, so every strict prefix of a
// OneModel file is refused (with a ModelError).
RC_GTEST_PROP(ReaderProperty, OneModelPrefixesAreAlwaysRefused, ()) {
  const std::optional<IrModel> m = try_import(*small_model());
  RC_ASSERT(m.has_value());
  const std::vector<std::byte> file = write_onemodel_bytes(*m);
  RC_ASSERT(try_read(file).has_value());
  for (std::size_t cut = 0; cut < file.size(); ++cut) {
    RC_ASSERT(!try_read(std::vector<std::byte>(file.begin(), file.begin() + static_cast<std::ptrdiff_t>(cut))));
  }
}

// One-byte corruptions of a OneModel file (every header byte and 48 random positions after it):
// refused with a ModelError or read, never a crash; a file that reads writes and reads back
// with the same dump.
RC_GTEST_PROP(ReaderProperty, OneModelOneByteCorruptionsNeverCrash, ()) {
  const std::optional<IrModel> m = try_import(*small_model());
  RC_ASSERT(m.has_value());
  const std::vector<std::byte> file = write_onemodel_bytes(*m);
  std::vector<std::size_t> positions = some_positions(file.size() - 64, 48);
  for (std::size_t& p : positions) p += 64;
  for (std::size_t i = 0; i < 64; ++i) positions.push_back(i);
  for (std::size_t at : positions) {
    std::vector<std::byte> corrupt = file;
    corrupt[at] ^= static_cast<std::byte>(*rc::gen::inRange(1, 256));
    const std::optional<IrModel> read = try_read(corrupt);
    if (!read) continue;
    RC_ASSERT(testing::resolution_problem(read->graph) == "");
    const std::optional<IrModel> again = try_read(write_onemodel_bytes(*read));
    RC_ASSERT(again.has_value());
    RC_ASSERT(dump_model(*again) == dump_model(*read));
  }
}

// ---- element counts and byte lengths -------------------------------------------------------

// Dimensions biased to the interesting places: 0 and 1, small values, powers of two and their
// neighbours up to 2^63 - 1 (products near 2^60 and byte lengths near 2^31), and negatives.
rc::Gen<std::int64_t> dimension() {
  return rc::gen::weightedOneOf<std::int64_t>({
      {3, rc::gen::inRange<std::int64_t>(0, 5)},
      {4, rc::gen::apply([](int k, int delta) {
        const u128 p = u128{1} << k;
        const u128 v = delta < 0 ? p - 1 : p + static_cast<unsigned>(delta);
        return static_cast<std::int64_t>(std::min<u128>(v, std::numeric_limits<std::int64_t>::max()));
      }, rc::gen::inRange(1, 64), rc::gen::inRange(-1, 2))},
      {1, rc::gen::element<std::int64_t>(std::numeric_limits<std::int64_t>::max(), -1,
                                         std::numeric_limits<std::int64_t>::min())}});
}

struct Expected {
  bool negative = false;
  u128 count = 0;   // saturated at 2^64 + 1 (anything above 2^60 is refused the same way)
  u128 bytes = 0;   // ceil(count * bits / 8), meaningful when count <= 2^60
};

Expected exact(const std::vector<std::int64_t>& dims, int bits) {
  Expected e;
  const u128 cap = (u128{1} << 64) + 1;
  e.count = 1;
  bool zero = false;
  for (std::int64_t d : dims) {
    if (d < 0) e.negative = true;
    if (d == 0) zero = true;
    if (d > 0) e.count = std::min(cap, e.count * static_cast<u128>(d));
  }
  if (zero) e.count = 0;
  e.bytes = (e.count * static_cast<u128>(bits) + 7) / 8;
  return e;
}

constexpr u128 kMaxTensorBytes = 0x7FFFFFFF;
constexpr std::size_t kSmallBytes = 4096;  // tensors this small get their data; larger ones 1 byte

// spec/onnx-import.md section 3 through import of an initializer with random dims: negative
// dims and more than 2^60 elements are InvalidModel, more than 2^31 - 1 bytes is Unsupported,
// decided from the dims alone; otherwise the data length is checked (InvalidModel at raw_data)
// and a tensor with the right bytes reads with its dims.
RC_GTEST_PROP(ReaderProperty, OnnxElementCountsNeverWrap, ()) {
  const Dtype dt = *rc::gen::elementOf(std::vector<Dtype>(std::begin(kDtypes), std::end(kDtypes)));
  const auto dims = *rc::gen::container<std::vector<std::int64_t>>(*rc::gen::inRange<std::size_t>(0, 7), dimension());
  const Expected e = exact(dims, dt.bits);
  const bool small = !e.negative && e.count <= (u128{1} << 60) && e.bytes <= kSmallBytes;
  RC_TAG(e.negative ? "negative" : e.count > (u128{1} << 60) ? "count > 2^60"
         : e.bytes > kMaxTensorBytes ? "bytes > 2^31-1" : small ? "small, read" : "large, wrong length");
  const std::string raw = small ? raw_bytes(static_cast<std::uint64_t>(e.count), dt.bits, 7) : std::string(1, 'x');
  onnxb::GraphParts g;
  g.initializers.push_back(onnxb::tensor_raw("t", dt.code, dims, raw));
  const std::string model = onnxb::model_bytes(g);
  try {
    const IrModel m = import_onnx_bytes(owned(model), "dims.onnx");
    RC_ASSERT(small);
    RC_ASSERT(m.graph.initializers.at(0).dims == dims);
    RC_ASSERT(static_cast<u128>(m.graph.initializers.at(0).data.size) == e.bytes);
  } catch (const ModelError& err) {
    RC_ASSERT(!small);
    if (e.negative || e.count > (u128{1} << 60)) {
      RC_ASSERT(err.kind() == ModelErrorKind::InvalidModel);
    } else if (e.bytes > kMaxTensorBytes) {
      RC_ASSERT(err.kind() == ModelErrorKind::Unsupported);
    } else {
      RC_ASSERT(err.kind() == ModelErrorKind::InvalidModel);
      RC_ASSERT(err.field_path().find("raw_data") != std::string::npos);
    }
  }
}

void put_le(std::vector<std::byte>& out, std::uint64_t value, int size) {
  for (int i = 0; i < size; ++i) out.push_back(static_cast<std::byte>((value >> (8 * i)) & 0xFF));
}

// A OneModel file assembled from spec/format.md section 1 with one initializer.
std::vector<std::byte> format_file(std::int32_t dtype, const std::vector<std::int64_t>& dims, std::uint64_t length,
                                   std::size_t data_bytes) {
  std::string manifest = R"({"format":"onemodel","version":1,"ir_version":8,"opsets":[{"domain":"","version":13}],)"
                         R"("graph":{"initializers":[{"name":"t","dtype":)" +
                         std::to_string(dtype) + R"(,"dims":[)";
  for (std::size_t i = 0; i < dims.size(); ++i) manifest += (i ? "," : "") + std::to_string(dims[i]);
  manifest += R"(],"data":{"offset":0,"length":)" + std::to_string(length) + "}}]}}";
  const std::uint64_t data_offset = (64 + manifest.size() + 63) / 64 * 64;
  std::vector<std::byte> file;
  for (char c : std::string("ONEMODEL")) file.push_back(static_cast<std::byte>(c));
  put_le(file, 1, 4);
  put_le(file, 0, 4);
  put_le(file, 64, 8);
  put_le(file, manifest.size(), 8);
  put_le(file, data_offset, 8);
  put_le(file, data_bytes, 8);
  put_le(file, data_offset + data_bytes, 8);
  put_le(file, 0, 8);
  for (char c : manifest) file.push_back(static_cast<std::byte>(c));
  file.resize(static_cast<std::size_t>(data_offset), std::byte{0});
  for (std::size_t i = 0; i < data_bytes; ++i) file.push_back(static_cast<std::byte>(i * 13));
  return file;
}

// spec/format.md sections 2.5 and 3.1 through a hand-assembled file: a negative dimension is
// InvalidModel; a count of 2^60 or more is refused; more than 2^31 - 1 bytes is Unsupported;
// otherwise a `length` that matches dims and dtype reads (when the data region holds it), and a
// length one too large is refused.
RC_GTEST_PROP(ReaderProperty, FormatElementCountsNeverWrap, ()) {
  const Dtype dt = *rc::gen::elementOf(std::vector<Dtype>(std::begin(kDtypes), std::end(kDtypes)));
  const auto dims = *rc::gen::container<std::vector<std::int64_t>>(*rc::gen::inRange<std::size_t>(0, 7), dimension());
  const Expected e = exact(dims, dt.bits);
  const bool within = !e.negative && e.count < (u128{1} << 60) && e.bytes <= kMaxTensorBytes;
  const bool small = within && e.bytes <= kSmallBytes;
  // The stated length is the right one wherever it can be written (an int64), so a refusal for
  // size is not a length mismatch.
  const u128 max_length = std::numeric_limits<std::int64_t>::max();
  const std::uint64_t length =
      e.negative || e.count >= (u128{1} << 60) ? 1 : static_cast<std::uint64_t>(std::min(e.bytes, max_length));
  const bool off_by_one = small && *rc::gen::arbitrary<bool>();
  const std::vector<std::byte> file =
      format_file(dt.code, dims, length + (off_by_one ? 1 : 0), small ? static_cast<std::size_t>(length) + 1 : 1);
  try {
    const IrModel m = read_onemodel_bytes(owned(file), "dims.onemodel");
    RC_ASSERT(small && !off_by_one);
    RC_ASSERT(m.graph.initializers.at(0).dims == dims);
    RC_ASSERT(static_cast<u128>(m.graph.initializers.at(0).data.size) == e.bytes);
  } catch (const ModelError& err) {
    RC_ASSERT(!small || off_by_one);
    if (e.negative) {
      RC_ASSERT(err.kind() == ModelErrorKind::InvalidModel);
    } else if (e.count >= (u128{1} << 60)) {
      // Refused; the text does not name the kind of this one.
    } else if (e.bytes > max_length) {
      // Refused; the true length cannot even be written.
    } else if (e.bytes > kMaxTensorBytes) {
      RC_ASSERT(err.kind() == ModelErrorKind::Unsupported);
    } else {
      RC_ASSERT(err.kind() != ModelErrorKind::Unsupported);
    }
  }
}

// The boundaries themselves, once each (spec/onnx-import.md section 3: "must not exceed 2^60";
// spec/format.md section 2.5: "must stay below 2^60").
TEST(ReaderProperty, CountBoundaries) {
  const auto import_dims = [](const std::vector<std::int64_t>& dims) -> std::optional<ModelErrorKind> {
    onnxb::GraphParts g;
    g.initializers.push_back(onnxb::tensor_raw("t", 2, dims, "x"));
    try {
      import_onnx_bytes(owned(onnxb::model_bytes(g)), "b.onnx");
      return std::nullopt;
    } catch (const ModelError& e) {
      return e.kind();
    }
  };
  const std::int64_t p60 = std::int64_t{1} << 60;
  EXPECT_EQ(import_dims({p60}), ModelErrorKind::Unsupported);        // count allowed, 2^60 bytes not
  EXPECT_EQ(import_dims({p60 + 1}), ModelErrorKind::InvalidModel);   // count over 2^60
  EXPECT_EQ(import_dims({std::int64_t{1} << 31}), ModelErrorKind::Unsupported);
  EXPECT_EQ(import_dims({std::int64_t{1} << 32, std::int64_t{1} << 32, 0}), ModelErrorKind::InvalidModel)
      << "zero elements: raw_data of 1 byte is the wrong length, not an overflow";
  EXPECT_EQ(import_dims({(std::int64_t{1} << 31) - 1}), ModelErrorKind::InvalidModel);  // fits; 1 byte is wrong
  EXPECT_EQ(import_dims({1}), std::nullopt);
}

// Found by OnnxOneByteCorruptionsNeverCrash: a sequence type without an element type is "no
// type" inside a type (spec/onnx-import.md section 2) and imports; the format has no encoding
// for it (spec/format.md section 2.7: a Type has a kind, a sequence an inner Type), so the writer
// refuses the model as Unsupported rather than write a file its reader would refuse.
TEST(ReaderProperty, SequenceWithoutElementTypeImportsButCannotBeWritten) {
  onnxb::GraphParts g = onnxb::identity_graph();
  g.value_info.push_back(onnxb::value_info("Y", ProtoWriter().message_field(4, ProtoWriter())));
  const IrModel m = import_onnx_bytes(owned(onnxb::model_bytes(g)), "seq.onnx");
  EXPECT_TRUE(testing::model_has_unwritable_none(m));
  try {
    write_onemodel_bytes(m);
    ADD_FAILURE() << "written";
  } catch (const ModelError& e) {
    EXPECT_EQ(e.kind(), ModelErrorKind::Unsupported);
  }
}

}  // namespace
}  // namespace onemodel
