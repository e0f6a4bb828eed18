// A OneModel file assembled by hand from the text of spec/format.md alone (header bytes field
// by field, the manifest written literally, the data bytes), read back with every field checked.
#include <gtest/gtest.h>

#include <bit>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "onemodel/error.hpp"
#include "onemodel/model_format.hpp"

namespace onemodel {
namespace {

void put_le(std::vector<std::byte>& out, std::uint64_t value, int size) {
  for (int i = 0; i < size; ++i) out.push_back(static_cast<std::byte>((value >> (8 * i)) & 0xFF));
}

// spec/format.md section 2.5 / the source text's examples, written out by hand.
const char kManifest[] =
    R"({"format":"onemodel","version":1,"ir_version":8,"producer_name":"hand","producer_version":"0.1",)"
    R"("domain":"test.domain","doc":"written by hand","model_version":5,)"
    R"("opsets":[{"domain":"","version":17},{"domain":"com.example","version":1}],)"
    R"("metadata":[{"key":"k1","value":"v1"},{"key":"a","value":"b"}],)"
    R"("graph":{"name":"g","doc":"graph doc",)"
    R"("inputs":[{"name":"x","type":{"kind":"tensor","elem":1,"shape":[1,"N",null]}},{"name":"w"}],)"
    R"("outputs":[{"name":"y","type":{"kind":"sequence","inner":{"kind":"tensor","elem":7}}}],)"
    R"("value_info":[{"name":"t","type":{"kind":"map","key":8,"inner":{"kind":"opaque","domain":"d","name":"n"}}}],)"
    R"("initializers":[{"name":"w","dtype":1,"dims":[2,2],"data":{"offset":0,"length":16}},)"
    R"({"name":"q","dtype":22,"dims":[3],"doc":"int4","data":{"offset":64,"length":2}},)"
    R"({"name":"s","dtype":8,"dims":[2],"strings":["aGk=",""]}],)"
    R"("sparse_initializers":[{"values":{"name":"sp","dtype":7,"dims":[1],"data":{"offset":128,"length":8}},)"
    R"("indices":{"dtype":7,"dims":[1],"data":{"offset":192,"length":8}},"dims":[4]}],)"
    R"("nodes":[{"name":"n0","op":"Add","domain":"","overload":"","doc":"node doc","inputs":["x","w"],"outputs":["t"],)"
    R"("attributes":[{"name":"f","type":1,"value":1065353216},{"name":"i","type":2,"value":-9007199254740993},)"
    R"({"name":"s","type":3,"doc":"adoc","value":"Ynl0ZXM="},{"name":"fs","type":6,"value":[0,2143289345,4286578688]},)"
    R"({"name":"is","type":7,"value":[1,-2]},{"name":"ss","type":8,"value":["YQ==","YmM="]},)"
    R"({"name":"t","type":4,"value":{"name":"c","dtype":2,"dims":[],"data":{"offset":256,"length":1}}},)"
    R"({"name":"e","type":4,"value":{"dtype":1,"dims":[0,3],"data":{"offset":0,"length":0}}}]},)"
    R"({"name":"n1","op":"If","inputs":["t",""],"outputs":["y"],"attributes":[)"
    R"({"name":"then_branch","type":5,"value":{"name":"sub","outputs":[{"name":"w"}],"nodes":[]}},)"
    R"({"name":"tp","type":13,"value":{"kind":"optional","inner":{"kind":"sparse_tensor","elem":1}}}]}]},)"
    R"("functions":[{"name":"F","domain":"com.example","inputs":["a"],"outputs":["b"],"attribute_names":["alpha"],)"
    R"("attribute_defaults":[{"name":"alpha","type":1,"value":0}],)"
    R"("nodes":[{"op":"Relu","inputs":["a"],"outputs":["b"],"attributes":[{"name":"r","type":1,"ref":"alpha"}]}],)"
    R"("opsets":[{"domain":"","version":17}]}],)"
    R"("a_later_field":{"ignored":[1.5,"x"]}})";

// Header, manifest, zero padding (one block more than needed: data_offset is "at least"),
// then the data region.
std::vector<std::byte> assemble() {
  const std::string manifest = kManifest;
  const std::uint64_t data_offset = (64 + manifest.size() + 63) / 64 * 64 + 64;
  std::vector<std::byte> data(257, std::byte{0});
  const float w[4] = {1.0f, 2.0f, 3.0f, 4.0f};
  for (int i = 0; i < 4; ++i) {
    const std::uint32_t bits = std::bit_cast<std::uint32_t>(w[i]);
    for (int k = 0; k < 4; ++k) data[static_cast<std::size_t>(4 * i + k)] = static_cast<std::byte>((bits >> (8 * k)) & 0xFF);
  }
  data[64] = std::byte{0x21};  // int4 elements 1, 2 (low nibble first), then 3
  data[65] = std::byte{0x03};
  data[128] = std::byte{5};    // int64 5
  data[192] = std::byte{3};    // int64 3
  data[256] = std::byte{0x7F};
  std::vector<std::byte> file;
  for (char c : std::string("ONEMODEL")) file.push_back(static_cast<std::byte>(c));
  put_le(file, 1, 4);                      // version
  put_le(file, 0, 4);                      // flags
  put_le(file, 64, 8);                     // manifest_offset
  put_le(file, manifest.size(), 8);        // manifest_length
  put_le(file, data_offset, 8);            // data_offset
  put_le(file, data.size(), 8);            // data_length
  put_le(file, data_offset + data.size(), 8);  // file_length
  put_le(file, 0, 8);                      // reserved
  EXPECT_EQ(file.size(), 64u);
  for (char c : manifest) file.push_back(static_cast<std::byte>(c));
  file.resize(static_cast<std::size_t>(data_offset), std::byte{0});
  file.insert(file.end(), data.begin(), data.end());
  return file;
}

std::uint32_t bits(float f) { return std::bit_cast<std::uint32_t>(f); }

void check_model(const IrModel& m, const std::byte* file_begin, std::size_t file_size) {
  EXPECT_EQ(m.ir_version, 8);
  EXPECT_EQ(m.producer_name, "hand");
  EXPECT_EQ(m.producer_version, "0.1");
  EXPECT_EQ(m.domain, "test.domain");
  EXPECT_EQ(m.doc_string, "written by hand");
  EXPECT_EQ(m.model_version, 5);
  ASSERT_EQ(m.opset_imports.size(), 2u);
  EXPECT_EQ(m.opset_imports[0].domain, "");
  EXPECT_EQ(m.opset_imports[0].version, 17);
  EXPECT_EQ(m.opset_imports[1].domain, "com.example");
  EXPECT_EQ(m.opset_imports[1].version, 1);
  ASSERT_EQ(m.metadata_props.size(), 2u);
  EXPECT_EQ(m.metadata_props[0], (std::pair<std::string, std::string>{"k1", "v1"}));
  EXPECT_EQ(m.metadata_props[1], (std::pair<std::string, std::string>{"a", "b"}));

  const IrGraph& g = m.graph;
  EXPECT_EQ(g.name, "g");
  EXPECT_EQ(g.doc_string, "graph doc");
  ASSERT_EQ(g.inputs.size(), 2u);
  EXPECT_EQ(g.inputs[0].name, "x");
  EXPECT_EQ(g.inputs[0].type.kind, IrType::Kind::Tensor);
  EXPECT_EQ(g.inputs[0].type.elem_type, 1);
  EXPECT_TRUE(g.inputs[0].type.has_shape);
  ASSERT_EQ(g.inputs[0].type.shape.size(), 3u);
  EXPECT_EQ(g.inputs[0].type.shape[0].kind, IrDim::Kind::Value);
  EXPECT_EQ(g.inputs[0].type.shape[0].value, 1);
  EXPECT_EQ(g.inputs[0].type.shape[1].kind, IrDim::Kind::Param);
  EXPECT_EQ(g.inputs[0].type.shape[1].param, "N");
  EXPECT_EQ(g.inputs[0].type.shape[2].kind, IrDim::Kind::Unknown);
  EXPECT_EQ(g.inputs[1].name, "w");
  EXPECT_EQ(g.inputs[1].type.kind, IrType::Kind::None);
  ASSERT_EQ(g.outputs.size(), 1u);
  EXPECT_EQ(g.outputs[0].type.kind, IrType::Kind::Sequence);
  ASSERT_EQ(g.outputs[0].type.inner.size(), 1u);
  EXPECT_EQ(g.outputs[0].type.inner[0].kind, IrType::Kind::Tensor);
  EXPECT_EQ(g.outputs[0].type.inner[0].elem_type, 7);
  EXPECT_FALSE(g.outputs[0].type.inner[0].has_shape);
  ASSERT_EQ(g.value_info.size(), 1u);
  EXPECT_EQ(g.value_info[0].type.kind, IrType::Kind::Map);
  EXPECT_EQ(g.value_info[0].type.elem_type, 8);
  ASSERT_EQ(g.value_info[0].type.inner.size(), 1u);
  EXPECT_EQ(g.value_info[0].type.inner[0].kind, IrType::Kind::Opaque);
  EXPECT_EQ(g.value_info[0].type.inner[0].opaque_domain, "d");
  EXPECT_EQ(g.value_info[0].type.inner[0].opaque_name, "n");

  const auto in_file = [&](const ByteView& v) {
    return v.data >= file_begin && v.data + v.size <= file_begin + file_size;
  };
  ASSERT_EQ(g.initializers.size(), 3u);
  const IrTensor& w = g.initializers[0];
  EXPECT_EQ(w.name, "w");
  EXPECT_EQ(w.data_type, 1);
  EXPECT_EQ(w.dims, (std::vector<std::int64_t>{2, 2}));
  ASSERT_EQ(w.data.size, 16u);
  EXPECT_TRUE(in_file(w.data));  // a view, not a copy
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(w.data.data) % 64, reinterpret_cast<std::uintptr_t>(file_begin) % 64);
  float values[4];
  std::memcpy(values, w.data.data, 16);
  EXPECT_EQ(values[0], 1.0f);
  EXPECT_EQ(values[3], 4.0f);
  const IrTensor& q = g.initializers[1];
  EXPECT_EQ(q.data_type, 22);
  EXPECT_EQ(q.doc_string, "int4");
  ASSERT_EQ(q.data.size, 2u);
  EXPECT_EQ(q.data.data[0], std::byte{0x21});
  EXPECT_EQ(q.data.data[1], std::byte{0x03});
  const IrTensor& s = g.initializers[2];
  EXPECT_EQ(s.data_type, 8);
  EXPECT_EQ(s.strings, (std::vector<std::string>{"hi", ""}));
  EXPECT_TRUE(s.data.empty());

  ASSERT_EQ(g.sparse_initializers.size(), 1u);
  const IrSparseTensor& sp = g.sparse_initializers[0];
  EXPECT_EQ(sp.values.name, "sp");
  EXPECT_EQ(sp.values.data_type, 7);
  ASSERT_EQ(sp.values.data.size, 8u);
  EXPECT_EQ(sp.values.data.data[0], std::byte{5});
  ASSERT_EQ(sp.indices.data.size, 8u);
  EXPECT_EQ(sp.indices.data.data[0], std::byte{3});
  EXPECT_EQ(sp.indices.name, "");
  EXPECT_EQ(sp.dims, (std::vector<std::int64_t>{4}));

  ASSERT_EQ(g.nodes.size(), 2u);
  const IrNode& n0 = g.nodes[0];
  EXPECT_EQ(n0.name, "n0");
  EXPECT_EQ(n0.op_type, "Add");
  EXPECT_EQ(n0.domain, "");
  EXPECT_EQ(n0.doc_string, "node doc");
  EXPECT_EQ(n0.inputs, (std::vector<std::string>{"x", "w"}));
  EXPECT_EQ(n0.outputs, (std::vector<std::string>{"t"}));
  EXPECT_EQ(n0.opset, 17);
  ASSERT_EQ(n0.attributes.size(), 8u);
  EXPECT_EQ(n0.attributes[0].type, AttrType::Float);
  EXPECT_EQ(n0.attributes[0].f, 1.0f);
  EXPECT_EQ(n0.attributes[1].type, AttrType::Int);
  EXPECT_EQ(n0.attributes[1].i, -9007199254740993LL);
  EXPECT_EQ(n0.attributes[2].type, AttrType::String);
  EXPECT_EQ(n0.attributes[2].s, "bytes");
  EXPECT_EQ(n0.attributes[2].doc_string, "adoc");
  EXPECT_EQ(n0.attributes[3].type, AttrType::Floats);
  ASSERT_EQ(n0.attributes[3].floats.size(), 3u);
  EXPECT_EQ(bits(n0.attributes[3].floats[0]), 0u);
  EXPECT_EQ(bits(n0.attributes[3].floats[1]), 0x7FC00001u);  // NaN payload kept
  EXPECT_EQ(bits(n0.attributes[3].floats[2]), 0xFF800000u);  // -infinity
  EXPECT_EQ(n0.attributes[4].ints, (std::vector<std::int64_t>{1, -2}));
  EXPECT_EQ(n0.attributes[5].strings, (std::vector<std::string>{"a", "bc"}));
  EXPECT_EQ(n0.attributes[6].type, AttrType::Tensor);
  ASSERT_EQ(n0.attributes[6].tensors.size(), 1u);
  EXPECT_EQ(n0.attributes[6].tensors[0].name, "c");
  EXPECT_TRUE(n0.attributes[6].tensors[0].dims.empty());
  ASSERT_EQ(n0.attributes[6].tensors[0].data.size, 1u);
  EXPECT_EQ(n0.attributes[6].tensors[0].data.data[0], std::byte{0x7F});
  ASSERT_EQ(n0.attributes[7].tensors.size(), 1u);
  EXPECT_EQ(n0.attributes[7].tensors[0].dims, (std::vector<std::int64_t>{0, 3}));
  EXPECT_TRUE(n0.attributes[7].tensors[0].data.empty());

  const IrNode& n1 = g.nodes[1];
  EXPECT_EQ(n1.op_type, "If");
  EXPECT_EQ(n1.name, "n1");
  EXPECT_EQ(n1.overload, "");
  EXPECT_EQ(n1.inputs, (std::vector<std::string>{"t", ""}));
  ASSERT_EQ(n1.attributes.size(), 2u);
  EXPECT_EQ(n1.attributes[0].type, AttrType::Graph);
  ASSERT_EQ(n1.attributes[0].graphs.size(), 1u);
  EXPECT_EQ(n1.attributes[0].graphs[0].name, "sub");
  ASSERT_EQ(n1.attributes[0].graphs[0].outputs.size(), 1u);
  EXPECT_EQ(n1.attributes[0].graphs[0].outputs[0].name, "w");
  EXPECT_EQ(n1.attributes[0].graphs[0].captures, (std::vector<std::string>{"w"}));
  EXPECT_EQ(n1.attributes[1].type, AttrType::TypeProto);
  ASSERT_EQ(n1.attributes[1].type_protos.size(), 1u);
  EXPECT_EQ(n1.attributes[1].type_protos[0].kind, IrType::Kind::Optional);
  EXPECT_EQ(n1.attributes[1].type_protos[0].inner.at(0).kind, IrType::Kind::SparseTensor);
  EXPECT_EQ(n1.attributes[1].type_protos[0].inner.at(0).elem_type, 1);

  // Resolution ran (spec/format.md section 3): w is an input with a default initializer.
  ASSERT_TRUE(g.value_index.count("w"));
  EXPECT_EQ(g.values[static_cast<std::size_t>(g.value_index.at("w"))].default_initializer, 0);

  ASSERT_EQ(m.functions.size(), 1u);
  const IrFunction& f = m.functions[0];
  EXPECT_EQ(f.name, "F");
  EXPECT_EQ(f.domain, "com.example");
  EXPECT_EQ(f.inputs, (std::vector<std::string>{"a"}));
  EXPECT_EQ(f.outputs, (std::vector<std::string>{"b"}));
  EXPECT_EQ(f.attribute_names, (std::vector<std::string>{"alpha"}));
  ASSERT_EQ(f.attribute_defaults.size(), 1u);
  EXPECT_EQ(f.attribute_defaults[0].type, AttrType::Float);
  EXPECT_EQ(bits(f.attribute_defaults[0].f), 0u);
  ASSERT_EQ(f.nodes.size(), 1u);
  EXPECT_EQ(f.nodes[0].op_type, "Relu");
  ASSERT_EQ(f.nodes[0].attributes.size(), 1u);
  EXPECT_EQ(f.nodes[0].attributes[0].ref_attr_name, "alpha");
  EXPECT_EQ(f.nodes[0].attributes[0].type, AttrType::Float);
  ASSERT_EQ(f.opset_imports.size(), 1u);
  EXPECT_EQ(f.opset_imports[0].version, 17);
}

TEST(FormatReader, HandAssembledFileFromTheText) {
  const std::vector<std::byte> file = assemble();
  auto owner = std::make_shared<std::vector<std::byte>>(file);
  const ByteView view{owner->data(), owner->size(), owner};
  EXPECT_TRUE(is_onemodel_bytes(view.span()));
  const IrModel m = read_onemodel_bytes(view, "hand.onemodel");
  EXPECT_EQ(m.source_name, "hand.onemodel");
  check_model(m, owner->data(), owner->size());
}

TEST(FormatReader, HandAssembledFileMappedFromDisk) {
  // Padded with trailing data to over 1 MiB so the file is memory-mapped (spec/format.md section 5).
  std::vector<std::byte> file = assemble();
  const std::size_t extra = (1u << 20) + 100;
  file.resize(file.size() + extra, std::byte{0});
  // Patch data_length (offset 40) and file_length (offset 48).
  const auto patch = [&](std::size_t at, std::uint64_t value) {
    for (int i = 0; i < 8; ++i) file[at + static_cast<std::size_t>(i)] = static_cast<std::byte>((value >> (8 * i)) & 0xFF);
  };
  std::uint64_t data_offset = 0;
  for (int i = 0; i < 8; ++i) data_offset |= std::uint64_t{static_cast<std::uint8_t>(file[32 + static_cast<std::size_t>(i)])} << (8 * i);
  patch(40, file.size() - data_offset);
  patch(48, file.size());
  const auto path = std::filesystem::temp_directory_path() /
                    ("onemodel_hand_" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) + ".onemodel");
  {
    std::ofstream out(path, std::ios::binary);
    out.write(reinterpret_cast<const char*>(file.data()), static_cast<std::streamsize>(file.size()));
  }
  const IrModel m = read_onemodel_file(path);
  const IrModel m2 = load_model_file(path);
  std::filesystem::remove(path);
  ASSERT_EQ(m.graph.initializers.size(), 3u);
  EXPECT_EQ(m.graph.initializers[1].data.data[0], std::byte{0x21});
  EXPECT_EQ(m2.graph.nodes.size(), 2u);
  EXPECT_EQ(m.graph.initializers[0].data.owner, m.graph.initializers[1].data.owner);  // one shared mapping
}

TEST(FormatReader, ErrorsCarryKindPathAndOffset) {
  std::vector<std::byte> file = assemble();
  file[12] = std::byte{1};  // flags
  auto owner = std::make_shared<std::vector<std::byte>>(file);
  try {
    read_onemodel_bytes(ByteView{owner->data(), owner->size(), owner}, "x");
    FAIL();
  } catch (const ModelError& e) {
    EXPECT_EQ(e.kind(), ModelErrorKind::Unsupported);
    EXPECT_EQ(e.field_path(), "header.flags");
    EXPECT_EQ(e.offset(), 12u);
    EXPECT_EQ(e.input_name(), "x");
  }
  // An integer with a fraction where the schema wants an integer: the manifest path and offset.
  std::string manifest = kManifest;
  const std::string from = R"("model_version":5,)";
  const std::size_t at = manifest.find(from);
  ASSERT_NE(at, std::string::npos);
  manifest.replace(at, from.size(), R"("model_version":5.0,)");
  std::vector<std::byte> bad;
  const std::uint64_t data_offset = (64 + manifest.size() + 63) / 64 * 64;
  std::vector<std::byte> header = assemble();
  bad.assign(header.begin(), header.begin() + 64);
  for (int i = 0; i < 8; ++i) {
    bad[24 + static_cast<std::size_t>(i)] = static_cast<std::byte>((manifest.size() >> (8 * i)) & 0xFF);
    bad[32 + static_cast<std::size_t>(i)] = static_cast<std::byte>((data_offset >> (8 * i)) & 0xFF);
    bad[40 + static_cast<std::size_t>(i)] = std::byte{0};
    bad[48 + static_cast<std::size_t>(i)] = static_cast<std::byte>((data_offset >> (8 * i)) & 0xFF);
  }
  bad[40] = std::byte{0};
  for (char c : manifest) bad.push_back(static_cast<std::byte>(c));
  bad.resize(static_cast<std::size_t>(data_offset), std::byte{0});
  auto bad_owner = std::make_shared<std::vector<std::byte>>(bad);
  try {
    read_onemodel_bytes(ByteView{bad_owner->data(), bad_owner->size(), bad_owner}, "y");
    FAIL();
  } catch (const ModelError& e) {
    EXPECT_EQ(e.kind(), ModelErrorKind::Malformed);
    EXPECT_EQ(e.field_path(), "manifest.model_version");
    EXPECT_EQ(e.offset(), 64 + at + std::string(R"("model_version":)").size());
  }
}

}  // namespace
}  // namespace onemodel
