// The protobuf wire rules of spec/onnx-import.md section 1. Expected values come from the
// protobuf encoding specification (protobuf.dev/programming-guides/encoding): 150 is `96 01`,
// the packed example `22 06 03 8E 02 9E A7 05` is [3, 270, 86942], -1 as int32 is ten bytes.
#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/protobuf/field_values.hpp"
#include "core/protobuf/parse_context.hpp"
#include "core/protobuf/utf8.hpp"
#include "core/protobuf/wire_reader.hpp"
#include "onemodel/onnx_import.hpp"
#include "tests/support/onnx_builder.hpp"
#include "tests/support/protobuf_writer.hpp"

namespace onemodel {
namespace {

using pb::ParseContext;
using pb::WireField;
using pb::WireReader;
using pb::WireType;

ByteView bytes_of(const std::string& s) {
  auto owner = std::make_shared<std::string>(s);
  return ByteView{reinterpret_cast<const std::byte*>(owner->data()), owner->size(), owner};
}

struct Input {
  explicit Input(const std::string& s, int max_nesting = 128)
      : ctx(bytes_of(s), "test", "Msg", max_nesting) {}
  WireReader reader() { return WireReader(ctx, 0, ctx.input().size); }
  ParseContext ctx;
};

ModelError expect_error(const std::function<void()>& f) {
  try {
    f();
  } catch (const ModelError& e) {
    return e;
  }
  ADD_FAILURE() << "no ModelError";
  return ModelError(ModelErrorKind::Io, "none");
}

std::uint64_t one_varint(const std::string& s) {
  Input in(s);
  WireReader r = in.reader();
  const std::uint64_t v = r.read_varint();
  EXPECT_TRUE(r.at_end());
  return v;
}

TEST(ProtobufVarint, SpecificationExamples) {
  EXPECT_EQ(one_varint("\x01"), 1u);
  EXPECT_EQ(one_varint("\x96\x01"), 150u);
  EXPECT_EQ(one_varint(std::string("\x00", 1)), 0u);
  EXPECT_EQ(one_varint("\x7F"), 127u);
  EXPECT_EQ(one_varint("\x80\x01"), 128u);
  // 2^64 - 1: nine 0xFF and a tenth byte 0x01.
  EXPECT_EQ(one_varint(std::string(9, '\xFF') + "\x01"), ~std::uint64_t{0});
  // 2^63: nine 0x80 and a tenth byte 0x01.
  EXPECT_EQ(one_varint(std::string(9, '\x80') + "\x01"), std::uint64_t{1} << 63);
}

TEST(ProtobufVarint, OverlongEncodingsAreAccepted) {
  EXPECT_EQ(one_varint(std::string("\x81\x80\x00", 3)), 1u);
  EXPECT_EQ(one_varint(std::string(9, '\x80') + std::string("\x00", 1)), 0u);
}

TEST(ProtobufVarint, TenthByteAboveOneOverflows) {
  for (char tenth : {'\x02', '\x7F', '\x80', '\xFF'}) {
    Input in(std::string(9, '\xFF') + tenth + "\x01");
    WireReader r = in.reader();
    ModelError e = expect_error([&] { r.read_varint(); });
    EXPECT_EQ(e.kind(), ModelErrorKind::Malformed);
    EXPECT_EQ(e.offset(), 0u);
  }
}

TEST(ProtobufVarint, TruncatedIsAnErrorAtItsStart) {
  Input in("\x08\x96");  // key 1/varint, then a varint cut off
  WireReader r = in.reader();
  WireField f;
  ModelError e = expect_error([&] { r.next(f); });
  EXPECT_EQ(e.kind(), ModelErrorKind::Malformed);
  EXPECT_EQ(e.offset(), 1u);
  EXPECT_EQ(e.field_path(), "Msg");
  EXPECT_EQ(e.input_name(), "test");
}

TEST(ProtobufKey, FieldNumberAndWireType) {
  // 08 96 01: field 1, varint 150 (the specification's first example).
  Input in("\x08\x96\x01");
  WireReader r = in.reader();
  WireField f;
  ASSERT_TRUE(r.next(f));
  EXPECT_EQ(f.number, 1u);
  EXPECT_EQ(f.wire, WireType::Varint);
  EXPECT_EQ(f.value, 150u);
  EXPECT_FALSE(r.next(f));
}

TEST(ProtobufKey, LargestFieldNumberIs32BitKey) {
  // Field 2^29 - 1 with wire type 5: key 0xFFFFFFFD fits in 32 bits.
  Input in(testing::encode_varint(0xFFFFFFFDu) + std::string("\x01\x02\x03\x04", 4));
  WireReader r = in.reader();
  WireField f;
  ASSERT_TRUE(r.next(f));
  EXPECT_EQ(f.number, (1u << 29) - 1);
  EXPECT_EQ(f.wire, WireType::Fixed32);
  EXPECT_EQ(f.value, 0x04030201u);
}

TEST(ProtobufKey, KeyOver32BitsIsAnError) {
  Input in(testing::encode_varint(std::uint64_t{1} << 32) + std::string("\x00", 1));
  WireReader r = in.reader();
  WireField f;
  EXPECT_EQ(expect_error([&] { r.next(f); }).kind(), ModelErrorKind::Malformed);
}

TEST(ProtobufKey, FieldZeroIsAnError) {
  Input in(std::string("\x00\x01", 2));
  WireReader r = in.reader();
  WireField f;
  EXPECT_EQ(expect_error([&] { r.next(f); }).kind(), ModelErrorKind::Malformed);
}

TEST(ProtobufKey, WireTypes3467AreErrors) {
  for (std::uint32_t wire : {3u, 4u, 6u, 7u}) {
    Input in(testing::ProtoWriter().key(1, wire).varint(0).bytes());
    WireReader r = in.reader();
    WireField f;
    ModelError e = expect_error([&] { r.next(f); });
    EXPECT_EQ(e.kind(), ModelErrorKind::Malformed) << wire;
    EXPECT_EQ(e.offset(), 0u);
  }
}

TEST(ProtobufFixed, LittleEndianAndTruncation) {
  Input in(std::string("\x09\x01\x02\x03\x04\x05\x06\x07\x08\x15\xAA\xBB\xCC\xDD", 14));
  WireReader r = in.reader();
  WireField f;
  ASSERT_TRUE(r.next(f));
  EXPECT_EQ(f.wire, WireType::Fixed64);
  EXPECT_EQ(f.value, 0x0807060504030201u);
  ASSERT_TRUE(r.next(f));
  EXPECT_EQ(f.wire, WireType::Fixed32);
  EXPECT_EQ(f.value, 0xDDCCBBAAu);
  Input cut(std::string("\x15\xAA\xBB\xCC", 4));
  WireReader r2 = cut.reader();
  EXPECT_EQ(expect_error([&] { r2.next(f); }).kind(), ModelErrorKind::Malformed);
}

TEST(ProtobufLength, StringExampleAndRemainderCheck) {
  // 12 07 74 65 73 74 69 6e 67: field 2, "testing".
  Input in("\x12\x07testing");
  WireReader r = in.reader();
  WireField f;
  ASSERT_TRUE(r.next(f));
  std::string s;
  ASSERT_TRUE(pb::get_string(in.ctx, f, "s", s));
  EXPECT_EQ(s, "testing");

  Input longer("\x12\x08testing");
  WireReader r2 = longer.reader();
  ModelError e = expect_error([&] { r2.next(f); });
  EXPECT_EQ(e.kind(), ModelErrorKind::Malformed);
  EXPECT_EQ(e.offset(), 1u);  // the length varint
}

TEST(ProtobufLength, HugeLengthIsComparedNotAllocated) {
  Input in(std::string("\x12") + std::string(9, '\xFF') + "\x01" + "abc");
  WireReader r = in.reader();
  WireField f;
  EXPECT_EQ(expect_error([&] { r.next(f); }).kind(), ModelErrorKind::Malformed);
}

TEST(ProtobufLength, ReaderStaysInsideItsRange) {
  // The range is the first 3 bytes; the length 2 at byte 1 would fit in the buffer but not
  // in the range.
  Input in("\x12\x02" "abcdef");
  WireReader r(in.ctx, 0, 3);
  WireField f;
  EXPECT_EQ(expect_error([&] { r.next(f); }).kind(), ModelErrorKind::Malformed);
}

TEST(ProtobufIntegers, Int32KeepsLow32Bits) {
  std::int32_t v = 0;
  WireField f;
  f.wire = WireType::Varint;
  f.value = ~std::uint64_t{0};  // -1 as written by protobuf for an int32 (ten bytes)
  ASSERT_TRUE(pb::get_int32(f, v));
  EXPECT_EQ(v, -1);
  f.value = (std::uint64_t{1} << 32) + 5;
  ASSERT_TRUE(pb::get_int32(f, v));
  EXPECT_EQ(v, 5);
  std::int64_t w = 0;
  ASSERT_TRUE(pb::get_int64(f, w));
  EXPECT_EQ(w, (std::int64_t{1} << 32) + 5);
  f.wire = WireType::LengthDelimited;
  EXPECT_FALSE(pb::get_int32(f, v));  // wrong wire type: skipped by the caller
}

TEST(ProtobufRepeated, PackedAndUnpackedMixed) {
  // Unpacked 1, the specification's packed example [3, 270, 86942], unpacked 7.
  Input in(std::string("\x20\x01\x22\x06\x03\x8E\x02\x9E\xA7\x05\x20\x07", 12));
  WireReader r = in.reader();
  WireField f;
  std::vector<std::uint64_t> values;
  while (r.next(f)) ASSERT_TRUE(pb::append_varints(in.ctx, f, "v", values));
  EXPECT_EQ(values, (std::vector<std::uint64_t>{1, 3, 270, 86942, 7}));
}

TEST(ProtobufRepeated, PackedFixedMustBeWholeElements) {
  testing::ProtoWriter w;
  w.fixed32_field(4, 0x3F800000u).bytes_field(4, std::string("\x00\x00\x00\x40\x00\x00\x40\x40", 8));
  Input in(w.bytes());
  WireReader r = in.reader();
  WireField f;
  std::vector<std::uint32_t> bits;
  while (r.next(f)) ASSERT_TRUE(pb::append_fixed32(in.ctx, f, "floats", bits));
  EXPECT_EQ(bits, (std::vector<std::uint32_t>{0x3F800000u, 0x40000000u, 0x40400000u}));

  Input bad(testing::ProtoWriter().bytes_field(4, "abcde").bytes());
  WireReader r2 = bad.reader();
  ASSERT_TRUE(r2.next(f));
  ModelError e = expect_error([&] { pb::append_fixed32(bad.ctx, f, "floats", bits); });
  EXPECT_EQ(e.kind(), ModelErrorKind::Malformed);
  EXPECT_EQ(e.field_path(), "Msg.floats");
}

TEST(ProtobufRepeated, TruncatedPackedVarint) {
  Input in(std::string("\x22\x02\x01\x80", 4));
  WireReader r = in.reader();
  WireField f;
  ASSERT_TRUE(r.next(f));
  std::vector<std::uint64_t> values;
  ModelError e = expect_error([&] { pb::append_varints(in.ctx, f, "v", values); });
  EXPECT_EQ(e.kind(), ModelErrorKind::Malformed);
  EXPECT_EQ(e.offset(), 3u);
}

TEST(ProtobufUtf8, ValidAndInvalidSequences) {
  auto first_bad = [](const std::string& s) {
    return pb::first_invalid_utf8({reinterpret_cast<const std::byte*>(s.data()), s.size()});
  };
  // Valid: ASCII, U+00E9, U+20AC, U+1F600, U+10FFFF, U+D7FF, U+E000.
  for (const std::string s : {"abc", "\xC3\xA9", "\xE2\x82\xAC", "\xF0\x9F\x98\x80", "\xF4\x8F\xBF\xBF",
                              "\xED\x9F\xBF", "\xEE\x80\x80", ""}) {
    EXPECT_EQ(first_bad(s), s.size()) << s;
  }
  // Invalid: overlongs, surrogates, above U+10FFFF, lone continuation, truncated, F5..FF.
  for (const std::string s : {"\xC0\x80", "\xC1\xBF", "\xE0\x80\x80", "\xE0\x9F\xBF", "\xF0\x80\x80\x80",
                              "\xF0\x8F\xBF\xBF", "\xED\xA0\x80", "\xED\xBF\xBF", "\xF4\x90\x80\x80",
                              "\xF5\x80\x80\x80", "\xFF", "\x80", "\xE2\x82", "\xC3\x28"}) {
    EXPECT_EQ(first_bad("ok" + s), 2u) << s;
  }
}

TEST(ProtobufUtf8, StringFieldErrorNamesFieldAndOffset) {
  Input in("\x0a\x03" "a\xC0\x80");
  WireReader r = in.reader();
  WireField f;
  ASSERT_TRUE(r.next(f));
  std::string s;
  ModelError e = expect_error([&] { pb::get_string(in.ctx, f, "name", s); });
  EXPECT_EQ(e.kind(), ModelErrorKind::Malformed);
  EXPECT_EQ(e.field_path(), "Msg.name");
  EXPECT_EQ(e.offset(), 3u);
  std::string b;
  EXPECT_TRUE(pb::get_bytes(in.ctx, f, b));  // bytes fields are never decoded
  EXPECT_EQ(b, "a\xC0\x80");
}

// Nests `levels` messages in field 1 and reads them recursively.
int read_nested(ParseContext& ctx, WireReader& r) {
  int deepest = 0;
  WireField f;
  while (r.next(f)) {
    pb::read_message(ctx, f, "m", -1, [&](WireReader& sub) { deepest = 1 + read_nested(ctx, sub); });
  }
  return deepest;
}

std::string nested(int levels) {
  testing::ProtoWriter w;
  for (int i = 0; i < levels; ++i) w = testing::ProtoWriter().message_field(1, w);
  return w.bytes();
}

TEST(ProtobufNesting, LimitIsInclusive) {
  for (int limit : {8, 128, 250}) {
    Input ok(nested(limit), limit);
    WireReader r = ok.reader();
    EXPECT_EQ(read_nested(ok.ctx, r), limit);
    Input deep(nested(limit + 1), limit);
    WireReader r2 = deep.reader();
    ModelError e = expect_error([&] { read_nested(deep.ctx, r2); });
    EXPECT_EQ(e.kind(), ModelErrorKind::Malformed);
  }
}

TEST(ProtobufNesting, OptionOutsideEightTo250IsRefused) {
  const std::string model = testing::onnxb::minimal_model_bytes();
  for (int bad : {7, 251, 0, -1}) {
    OnnxImportOptions o;
    o.max_nesting = bad;
    EXPECT_THROW(import_onnx_bytes(bytes_of(model), "m", o), std::invalid_argument) << bad;
  }
  for (int good : {8, 250}) {
    OnnxImportOptions o;
    o.max_nesting = good;
    EXPECT_NO_THROW(import_onnx_bytes(bytes_of(model), "m", o)) << good;
  }
}

TEST(ProtobufNesting, GraphInAttributeCostsThreeLevels) {
  // ModelProto > graph (1) > node (2) > attribute (3) > g (4) > node (5) > attribute (6) > g (7)
  // > node and output (8); a type on the innermost output adds level 9.
  using namespace testing::onnxb;
  auto untyped = [](const std::string& name) { return testing::ProtoWriter().bytes_field(1, name); };
  auto model_with = [&](bool typed_leaf) {
    GraphParts leaf;
    leaf.name = "leaf";
    leaf.nodes.push_back(node("Identity", {"C"}, {"Z"}));
    leaf.outputs.push_back(typed_leaf ? tensor_value_info("Z", 9, {}) : untyped("Z"));
    GraphParts middle;
    middle.name = "middle";
    middle.nodes.push_back(node("If", {"C"}, {"M"}, {attr_graph("then_branch", leaf.build()), attr_graph("else_branch", leaf.build())}));
    middle.outputs.push_back(untyped("M"));
    GraphParts top;
    top.nodes.push_back(node("If", {"C"}, {"Y"}, {attr_graph("then_branch", middle.build()), attr_graph("else_branch", middle.build())}));
    top.inputs.push_back(untyped("C"));
    top.outputs.push_back(untyped("Y"));
    return bytes_of(model_bytes(top));
  };
  OnnxImportOptions eight;
  eight.max_nesting = 8;
  OnnxImportOptions nine;
  nine.max_nesting = 9;
  EXPECT_NO_THROW(import_onnx_bytes(model_with(false), "m", eight));
  ModelError e = expect_error([&] { import_onnx_bytes(model_with(true), "m", eight); });
  EXPECT_EQ(e.kind(), ModelErrorKind::Malformed);
  EXPECT_EQ(e.field_path(), "ModelProto.graph.node[0].attribute[0].g.node[0].attribute[0].g.output[0].type");
  // type is level 9, its tensor_type level 10 and that one's shape level 11.
  EXPECT_THROW(import_onnx_bytes(model_with(true), "m", nine), ModelError);
  OnnxImportOptions ten;
  ten.max_nesting = 10;
  EXPECT_THROW(import_onnx_bytes(model_with(true), "m", ten), ModelError);
  OnnxImportOptions eleven;
  eleven.max_nesting = 11;
  EXPECT_NO_THROW(import_onnx_bytes(model_with(true), "m", eleven));
}

TEST(ProtobufSize, ModelsOver2GiBMinus1AreRefusedBeforeReading) {
  auto owner = std::make_shared<std::string>("x");
  // The size lies: nothing may be read, the size alone decides.
  ByteView big{reinterpret_cast<const std::byte*>(owner->data()), std::size_t{0x80000000u}, owner};
  ModelError e = expect_error([&] { import_onnx_bytes(big, "big"); });
  EXPECT_EQ(e.kind(), ModelErrorKind::Unsupported);
}

}  // namespace
}  // namespace onemodel
