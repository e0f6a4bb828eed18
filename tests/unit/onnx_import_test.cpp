// Importing ONNX files into the IR (spec/onnx-import.md section 2). Facts about real models
// were read with the `onnx` Python package (onnx.load and the message fields) by hand; the
// field rules are checked on models built with the test protobuf writer.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <memory>
#include <string>

#include "onemodel/error.hpp"
#include "onemodel/onnx_import.hpp"
#include "tests/support/onnx_builder.hpp"

namespace onemodel {
namespace {

namespace fs = std::filesystem;
using testing::ProtoWriter;
using namespace testing::onnxb;

const fs::path kBackend = ONEMODEL_BACKEND_TEST_DIR;

ByteView bytes_of(const std::string& s) {
  auto owner = std::make_shared<std::string>(s);
  return ByteView{reinterpret_cast<const std::byte*>(owner->data()), owner->size(), owner};
}

std::string hex(const ByteView& v, std::size_t n) {
  static const char* digits = "0123456789abcdef";
  std::string out;
  for (std::size_t i = 0; i < n && i < v.size; ++i) {
    const auto b = static_cast<unsigned>(v.data[i]);
    out += digits[b >> 4];
    out += digits[b & 15];
  }
  return out;
}

TEST(OnnxImportBackend, TestAdd) {
  // onnx.load: ir_version 7, producer 'backend-test', opset ('', 14), one Add, inputs x, y
  // of float [3, 4, 5].
  IrModel m = import_onnx_file(kBackend / "node/test_add/model.onnx");
  EXPECT_EQ(m.ir_version, 7);
  EXPECT_EQ(m.producer_name, "backend-test");
  ASSERT_EQ(m.opset_imports.size(), 1u);
  EXPECT_EQ(m.opset_imports[0].domain, "");
  EXPECT_EQ(m.opset_imports[0].version, 14);
  EXPECT_EQ(m.graph.name, "test_add");
  ASSERT_EQ(m.graph.nodes.size(), 1u);
  EXPECT_EQ(m.graph.nodes[0].op_type, "Add");
  EXPECT_EQ(m.graph.nodes[0].opset, 14);
  ASSERT_EQ(m.graph.inputs.size(), 2u);
  EXPECT_EQ(m.graph.inputs[1].name, "y");
  const IrType& t = m.graph.inputs[0].type;
  EXPECT_EQ(t.kind, IrType::Kind::Tensor);
  EXPECT_EQ(t.elem_type, 1);
  ASSERT_TRUE(t.has_shape);
  ASSERT_EQ(t.shape.size(), 3u);
  EXPECT_EQ(t.shape[0].kind, IrDim::Kind::Value);
  EXPECT_EQ(t.shape[2].value, 5);
  EXPECT_EQ(m.source_name, (kBackend / "node/test_add/model.onnx").string());
}

TEST(OnnxImportBackend, ConstantTensorAttributeFromFloatData) {
  // onnx.load: Constant with attribute value (type 4), a float [5, 5] tensor in float_data
  // (25 entries, no raw_data) whose first value is 1.764052391052246, bytes 78cce13f 68e1cc3e.
  IrModel m = import_onnx_file(kBackend / "node/test_constant/model.onnx");
  const IrAttribute& a = m.graph.nodes.at(0).attributes.at(0);
  EXPECT_EQ(a.name, "value");
  EXPECT_EQ(a.type, AttrType::Tensor);
  ASSERT_EQ(a.tensors.size(), 1u);
  const IrTensor& t = a.tensors[0];
  EXPECT_EQ(t.data_type, 1);
  EXPECT_EQ(t.dims, (std::vector<std::int64_t>{5, 5}));
  EXPECT_EQ(t.data.size, 100u);
  EXPECT_EQ(hex(t.data, 8), "78cce13f68e1cc3e");
}

TEST(OnnxImportBackend, IfSubgraphs) {
  // onnx.load: If with else_branch and then_branch (type 5), one Constant each.
  IrModel m = import_onnx_file(kBackend / "node/test_if/model.onnx");
  const IrNode& n = m.graph.nodes.at(0);
  EXPECT_EQ(n.op_type, "If");
  ASSERT_EQ(n.attributes.size(), 2u);
  EXPECT_EQ(n.attributes[0].name, "else_branch");
  EXPECT_EQ(n.attributes[0].type, AttrType::Graph);
  ASSERT_EQ(n.attributes[0].graphs.size(), 1u);
  EXPECT_EQ(n.attributes[0].graphs[0].nodes.at(0).op_type, "Constant");
}

TEST(OnnxImportBackend, LightModelInitializersAreRawDataViews) {
  // onnx.load: ir_version 3, 848 initializers, 1746 nodes; the first initializer
  // conv1/bn_b_0 is float [64] in raw_data beginning 96a1c33d 3a2a243d.
  IrModel m = import_onnx_file(kBackend / "light/light_densenet121.onnx");
  EXPECT_EQ(m.ir_version, 3);
  EXPECT_EQ(m.graph.initializers.size(), 848u);
  EXPECT_EQ(m.graph.nodes.size(), 1746u);
  const IrTensor& t = m.graph.initializers[0];
  EXPECT_EQ(t.name, "conv1/bn_b_0");
  EXPECT_EQ(t.dims, (std::vector<std::int64_t>{64}));
  EXPECT_EQ(t.data.size, 256u);
  EXPECT_EQ(hex(t.data, 8), "96a1c33d3a2a243d");
  // The whole file is one mapping: every initializer shares the same owner.
  for (const IrTensor& other : m.graph.initializers) {
    if (!other.data.empty()) {
      EXPECT_EQ(other.data.owner.get(), t.data.owner.get());
    }
  }
}

TEST(OnnxImportBackend, AlexnetInt64Initializer) {
  // onnx.load: the first initializer conv1_b_0__SHAPE is int64 [1], raw bytes 60000000 00000000.
  IrModel m = import_onnx_file(kBackend / "light/light_bvlc_alexnet.onnx");
  const IrTensor& t = m.graph.initializers.at(0);
  EXPECT_EQ(t.name, "conv1_b_0__SHAPE");
  EXPECT_EQ(t.data_type, 7);
  EXPECT_EQ(hex(t.data, 8), "6000000000000000");
}

// --- Field rules on built models.

TEST(OnnxImportFields, RawDataIsAViewIntoTheInput) {
  GraphParts g = identity_graph();
  g.initializers.push_back(tensor_raw("W", 1, {2}, std::string("\x00\x00\x80\x3F\x00\x00\x00\x40", 8)));
  ByteView input = bytes_of(model_bytes(g));
  IrModel m = import_onnx_bytes(input, "m");
  const IrTensor& t = m.graph.initializers.at(0);
  ASSERT_EQ(t.data.size, 8u);
  EXPECT_GE(t.data.data, input.data);
  EXPECT_LE(t.data.data + t.data.size, input.data + input.size);
  EXPECT_EQ(t.data.owner.get(), input.owner.get());
}

TEST(OnnxImportFields, LastOccurrenceWinsAndMessagesAreNotMerged) {
  GraphParts first = identity_graph();
  first.name = "first";
  first.nodes.push_back(node("Identity", {"Y"}, {"Z"}));
  GraphParts second = identity_graph();
  second.name = "second";
  ModelParts mp;
  mp.graph = first.build();
  ProtoWriter w = mp.build();
  w.bytes_field(2, "later-producer").message_field(7, second.build()).int_field(1, 9);
  IrModel m = import_onnx_bytes(bytes_of(w.bytes()), "m");
  EXPECT_EQ(m.producer_name, "later-producer");
  EXPECT_EQ(m.ir_version, 9);
  EXPECT_EQ(m.graph.name, "second");
  EXPECT_EQ(m.graph.nodes.size(), 1u);  // merging would have kept the first graph's two nodes
}

TEST(OnnxImportFields, UnknownFieldsAndWrongWireTypesAreSkipped) {
  ModelParts mp;
  mp.graph = identity_graph().build();
  ProtoWriter w = mp.build();
  w.int_field(2, 5)            // producer_name as a varint: wrong wire type, skipped
      .bytes_field(1, "x")     // ir_version as bytes: skipped, the earlier value stays
      .int_field(999, 1)       // unknown, each wire type
      .fixed32_field(998, 1)
      .fixed64_field(997, 1)
      .bytes_field(996, "junk")
      .bytes_field(20, "training_info is skipped");
  IrModel m = import_onnx_bytes(bytes_of(w.bytes()), "m");
  EXPECT_EQ(m.producer_name, "onemodel-tests");
  EXPECT_EQ(m.ir_version, 8);
}

TEST(OnnxImportFields, ModelFieldsMetadataAndFunctions) {
  ModelParts mp;
  mp.graph = identity_graph().build();
  ProtoWriter w = mp.build();
  w.bytes_field(3, "1.0").bytes_field(4, "org.example").int_field(5, 42).bytes_field(6, "doc")
      .message_field(14, ProtoWriter().bytes_field(1, "k1").bytes_field(2, "v1"))
      .message_field(14, ProtoWriter().bytes_field(1, "k0").bytes_field(2, "v0"));
  ProtoWriter fn;
  fn.bytes_field(1, "MyFn").bytes_field(4, "a").bytes_field(5, "b").bytes_field(6, "alpha")
      .message_field(7, node("Identity", {"a"}, {"b"}))
      .message_field(9, ProtoWriter().int_field(2, 13))
      .bytes_field(10, "local").bytes_field(13, "ov")
      .message_field(11, attr_float("beta", 0.5f))
      .bytes_field(8, "fdoc");
  w.message_field(25, fn);
  IrModel m = import_onnx_bytes(bytes_of(w.bytes()), "m");
  EXPECT_EQ(m.producer_version, "1.0");
  EXPECT_EQ(m.domain, "org.example");
  EXPECT_EQ(m.model_version, 42);
  EXPECT_EQ(m.doc_string, "doc");
  ASSERT_EQ(m.metadata_props.size(), 2u);
  EXPECT_EQ(m.metadata_props[0], (std::pair<std::string, std::string>{"k1", "v1"}));
  ASSERT_EQ(m.functions.size(), 1u);
  const IrFunction& f = m.functions[0];
  EXPECT_EQ(f.name, "MyFn");
  EXPECT_EQ(f.domain, "local");
  EXPECT_EQ(f.overload, "ov");
  EXPECT_EQ(f.doc_string, "fdoc");
  EXPECT_EQ(f.inputs, std::vector<std::string>{"a"});
  EXPECT_EQ(f.outputs, std::vector<std::string>{"b"});
  EXPECT_EQ(f.attribute_names, std::vector<std::string>{"alpha"});
  ASSERT_EQ(f.attribute_defaults.size(), 1u);
  EXPECT_EQ(f.attribute_defaults[0].f, 0.5f);
  ASSERT_EQ(f.nodes.size(), 1u);
  ASSERT_EQ(f.opset_imports.size(), 1u);
  EXPECT_EQ(f.opset_imports[0].version, 13);
}

IrAttribute only_attribute(const ProtoWriter& attribute) {
  GraphParts g = identity_graph();
  g.nodes[0] = node("Identity", {"X"}, {"Y"}, {attribute});
  IrModel m = import_onnx_bytes(bytes_of(model_bytes(g)), "m");
  return m.graph.nodes.at(0).attributes.at(0);
}

TEST(OnnxImportAttributes, TypeIsInferredInTheSpecifiedOrder) {
  EXPECT_EQ(only_attribute(attr_int("a", 3, false)).type, AttrType::Int);
  EXPECT_EQ(only_attribute(attr_float("a", 1.5f, false)).type, AttrType::Float);
  EXPECT_EQ(only_attribute(attr_ints("a", {1, 2}, false)).type, AttrType::Ints);
  // f before i, i before s, a scalar before any repeated field.
  EXPECT_EQ(only_attribute(ProtoWriter().bytes_field(1, "a").int_field(3, 1).float_field(2, 2.0f)).type, AttrType::Float);
  EXPECT_EQ(only_attribute(ProtoWriter().bytes_field(1, "a").bytes_field(4, "s").int_field(3, 1)).type, AttrType::Int);
  EXPECT_EQ(only_attribute(ProtoWriter().bytes_field(1, "a").packed_varints(8, {1}).bytes_field(4, "s")).type, AttrType::String);
  // floats before ints before strings.
  EXPECT_EQ(only_attribute(ProtoWriter().bytes_field(1, "a").bytes_field(9, "s").packed_varints(8, {1})).type, AttrType::Ints);
  EXPECT_EQ(only_attribute(ProtoWriter().bytes_field(1, "a").packed_varints(8, {1}).packed_floats(7, {1.0f})).type, AttrType::Floats);
  const IrAttribute s = only_attribute(ProtoWriter().bytes_field(1, "a").bytes_field(9, "x").bytes_field(9, "\xFF"));
  EXPECT_EQ(s.type, AttrType::Strings);
  EXPECT_EQ(s.strings, (std::vector<std::string>{"x", "\xFF"}));  // bytes: not decoded
}

TEST(OnnxImportAttributes, DeclaredTypeWinsAndAbsentScalarReadsZero) {
  const IrAttribute a = only_attribute(ProtoWriter().bytes_field(1, "a").int_field(20, 2));
  EXPECT_EQ(a.type, AttrType::Int);
  EXPECT_EQ(a.i, 0);
  const IrAttribute b = only_attribute(ProtoWriter().bytes_field(1, "a").int_field(20, 3));
  EXPECT_EQ(b.type, AttrType::String);
  EXPECT_EQ(b.s, "");
  const IrAttribute c = only_attribute(ProtoWriter().bytes_field(1, "a").float_field(2, 2.0f).int_field(3, 7).int_field(20, 2));
  EXPECT_EQ(c.type, AttrType::Int);
  EXPECT_EQ(c.i, 7);
  EXPECT_EQ(c.f, 0.0f);
  const IrAttribute d = only_attribute(ProtoWriter().bytes_field(1, "a").int_field(3, -5).int_field(20, 2));
  EXPECT_EQ(d.i, -5);
}

TEST(OnnxImportAttributes, RefAttrNameCarriesNoValue) {
  const IrAttribute a = only_attribute(ProtoWriter().bytes_field(1, "a").bytes_field(21, "outer").int_field(20, 4));
  EXPECT_EQ(a.ref_attr_name, "outer");
  EXPECT_EQ(a.type, AttrType::Tensor);
  EXPECT_TRUE(a.tensors.empty());
  const IrAttribute b = only_attribute(ProtoWriter().bytes_field(1, "a").bytes_field(21, "outer"));
  EXPECT_EQ(b.type, AttrType::Undefined);
}

TEST(OnnxImportTypes, EveryTypeKind) {
  ProtoWriter dim_param_shape;
  dim_param_shape.message_field(1, ProtoWriter().bytes_field(2, "N"))
      .message_field(1, ProtoWriter())                                     // unknown
      .message_field(1, ProtoWriter().bytes_field(2, "M").int_field(1, 4));  // last set wins: 4
  ProtoWriter tensor = ProtoWriter().message_field(1, ProtoWriter().int_field(1, 1).message_field(2, dim_param_shape));
  ProtoWriter no_shape = ProtoWriter().message_field(1, ProtoWriter().int_field(1, 7));
  ProtoWriter scalar = ProtoWriter().message_field(1, ProtoWriter().int_field(1, 7).message_field(2, ProtoWriter()));
  ProtoWriter sequence = ProtoWriter().message_field(4, ProtoWriter().message_field(1, tensor));
  ProtoWriter map = ProtoWriter().message_field(5, ProtoWriter().int_field(1, 8).message_field(2, no_shape));
  ProtoWriter optional = ProtoWriter().message_field(9, ProtoWriter().message_field(1, sequence));
  ProtoWriter sparse = ProtoWriter().message_field(8, ProtoWriter().int_field(1, 1));
  ProtoWriter opaque = ProtoWriter().message_field(7, ProtoWriter().bytes_field(1, "d").bytes_field(2, "n"));
  ProtoWriter oneof_last = ProtoWriter().message_field(1, ProtoWriter().int_field(1, 1)).message_field(7, ProtoWriter());
  GraphParts g = identity_graph();
  for (auto [name, type] : {std::pair{"a", tensor}, {"b", no_shape}, {"c", scalar}, {"d", sequence}, {"e", map},
                            {"f", optional}, {"g", sparse}, {"h", opaque}, {"i", oneof_last}, {"j", ProtoWriter()}}) {
    g.value_info.push_back(value_info(name, type));
  }
  IrModel m = import_onnx_bytes(bytes_of(model_bytes(g)), "m");
  const auto& v = m.graph.value_info;
  ASSERT_EQ(v.size(), 10u);
  EXPECT_EQ(v[0].type.kind, IrType::Kind::Tensor);
  ASSERT_EQ(v[0].type.shape.size(), 3u);
  EXPECT_EQ(v[0].type.shape[0].kind, IrDim::Kind::Param);
  EXPECT_EQ(v[0].type.shape[0].param, "N");
  EXPECT_EQ(v[0].type.shape[1].kind, IrDim::Kind::Unknown);
  EXPECT_EQ(v[0].type.shape[2].kind, IrDim::Kind::Value);
  EXPECT_EQ(v[0].type.shape[2].value, 4);
  EXPECT_FALSE(v[1].type.has_shape);
  EXPECT_TRUE(v[2].type.has_shape);
  EXPECT_TRUE(v[2].type.shape.empty());
  EXPECT_EQ(v[3].type.kind, IrType::Kind::Sequence);
  ASSERT_EQ(v[3].type.inner.size(), 1u);
  EXPECT_EQ(v[3].type.inner[0].kind, IrType::Kind::Tensor);
  EXPECT_EQ(v[4].type.kind, IrType::Kind::Map);
  EXPECT_EQ(v[4].type.elem_type, 8);
  EXPECT_EQ(v[4].type.inner.at(0).elem_type, 7);
  EXPECT_EQ(v[5].type.kind, IrType::Kind::Optional);
  EXPECT_EQ(v[5].type.inner.at(0).kind, IrType::Kind::Sequence);
  EXPECT_EQ(v[6].type.kind, IrType::Kind::SparseTensor);
  EXPECT_EQ(v[7].type.kind, IrType::Kind::Opaque);
  EXPECT_EQ(v[7].type.opaque_domain, "d");
  EXPECT_EQ(v[7].type.opaque_name, "n");
  EXPECT_EQ(v[8].type.kind, IrType::Kind::Opaque);
  EXPECT_EQ(v[9].type.kind, IrType::Kind::None);
}

TEST(OnnxImportTensors, SparseInitializerKeptAsWritten) {
  ProtoWriter sparse;
  sparse.message_field(1, tensor_floats("S", {2}, {1.0f, 2.0f}))
      .message_field(2, tensor_header("", 7, {2}).packed_varints(7, {1, 5}))
      .packed_varints(3, {2, 3});
  ProtoWriter graph = identity_graph().build();
  graph.message_field(15, sparse);
  ModelParts mp;
  mp.graph = graph;
  IrModel m = import_onnx_bytes(bytes_of(mp.build().bytes()), "m");
  ASSERT_EQ(m.graph.sparse_initializers.size(), 1u);
  const IrSparseTensor& s = m.graph.sparse_initializers[0];
  EXPECT_EQ(s.dims, (std::vector<std::int64_t>{2, 3}));
  EXPECT_EQ(s.values.name, "S");
  EXPECT_EQ(s.values.data.size, 8u);
  EXPECT_EQ(s.indices.data.size, 16u);
}

TEST(OnnxImportErrors, OffsetsAreFromTheStartOfTheFile) {
  GraphParts g = identity_graph();
  g.nodes[0] = node("Identity", {"X"}, {"Y"}, {}, {}, "bad\xC0");
  const std::string bytes = model_bytes(g);
  try {
    import_onnx_bytes(bytes_of(bytes), "m");
    FAIL();
  } catch (const ModelError& e) {
    EXPECT_EQ(e.kind(), ModelErrorKind::Malformed);
    EXPECT_EQ(e.field_path(), "ModelProto.graph.node[0].name");
    ASSERT_TRUE(e.offset().has_value());
    EXPECT_EQ(bytes.find("bad\xC0") + 3, *e.offset());
  }
}

TEST(OnnxImportErrors, MissingFileIsIo) {
  try {
    import_onnx_file("/nonexistent/model.onnx");
    FAIL();
  } catch (const ModelError& e) {
    EXPECT_EQ(e.kind(), ModelErrorKind::Io);
  }
}

// Every model of the backend test data imports (the onnx package loads them all).
TEST(OnnxImportBackend, EveryBackendModelImports) {
  std::size_t count = 0;
  for (const auto& entry : fs::recursive_directory_iterator(kBackend)) {
    if (entry.path().extension() != ".onnx") continue;
    ++count;
    try {
      (void)import_onnx_file(entry.path());
    } catch (const ModelError& e) {
      ADD_FAILURE() << entry.path() << ": " << e.describe();
    }
  }
  EXPECT_GE(count, 1900u);
  RecordProperty("models", static_cast<int>(count));
}

}  // namespace
}  // namespace onemodel
