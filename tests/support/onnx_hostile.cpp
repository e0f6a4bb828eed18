#include "tests/support/onnx_hostile.hpp"

#include <fstream>

#include "tests/support/onnx_builder.hpp"

namespace onemodel::testing {

namespace {

using onnxb::GraphParts;
using onnxb::ModelParts;

std::string with_initializer(const ProtoWriter& tensor) {
  GraphParts g = onnxb::identity_graph();
  g.initializers.push_back(tensor);
  return onnxb::model_bytes(g);
}

std::string with_node_attribute(const ProtoWriter& attribute) {
  GraphParts g;
  g.nodes.push_back(onnxb::node("Identity", {"X"}, {"Y"}, {attribute}));
  g.inputs.push_back(onnxb::tensor_value_info("X", 1, {2}));
  g.outputs.push_back(onnxb::tensor_value_info("Y", 1, {2}));
  return onnxb::model_bytes(g);
}

// A model whose node name is `name_bytes` (for the UTF-8 cases).
std::string with_node_name(const std::string& name_bytes) {
  GraphParts g;
  g.nodes.push_back(onnxb::node("Identity", {"X"}, {"Y"}, {}, {}, name_bytes));
  g.inputs.push_back(onnxb::tensor_value_info("X", 1, {2}));
  g.outputs.push_back(onnxb::tensor_value_info("Y", 1, {2}));
  return onnxb::model_bytes(g);
}

// A valid model followed by `tail` (a field of ModelProto written by hand).
std::string valid_then(const std::string& tail) { return onnxb::minimal_model_bytes() + tail; }

std::string external_model(const std::vector<std::pair<std::string, std::string>>& entries,
                           std::vector<std::int64_t> dims = {2}) {
  return with_initializer(onnxb::tensor_external("W", 1, dims, entries));
}

const std::string kEightBytes(8, '\x01');

}  // namespace

std::vector<HostileModel> hostile_onnx_models() {
  using K = ModelErrorKind;
  std::vector<HostileModel> v;
  auto add = [&](std::string name, K kind, std::string bytes) {
    v.push_back(HostileModel{std::move(name), kind, std::move(bytes), {}, {}, {}, true});
    return &v.back();
  };

  // --- Malformed: the protobuf wire rules (spec/onnx-import.md section 1).
  add("Malformed-varint-overflow", K::Malformed, valid_then(std::string("\x28") + std::string(9, '\xFF') + "\x02"));
  add("Malformed-varint-11-bytes", K::Malformed, valid_then(std::string("\x28") + std::string(10, '\x80') + "\x01"));
  add("Malformed-varint-truncated", K::Malformed, valid_then("\x28\x80\x80"));
  add("Malformed-key-truncated", K::Malformed, valid_then("\x80"));
  add("Malformed-key-over-32-bits", K::Malformed, valid_then(encode_varint((std::uint64_t{1} << 32) | 0) + "\x00"));
  add("Malformed-length-past-end", K::Malformed, valid_then(ProtoWriter().lying_length_field(6, 100, "abc").bytes()));
  add("Malformed-length-huge", K::Malformed, valid_then(ProtoWriter().lying_length_field(6, ~std::uint64_t{0} >> 1, "abc").bytes()));
  add("Malformed-group-start", K::Malformed, valid_then(ProtoWriter().key(30, 3).bytes()));
  add("Malformed-group-end", K::Malformed, valid_then(ProtoWriter().key(30, 4).bytes()));
  add("Malformed-wire-type-6", K::Malformed, valid_then(ProtoWriter().key(30, 6).bytes()));
  add("Malformed-wire-type-7", K::Malformed, valid_then(ProtoWriter().key(30, 7).bytes()));
  add("Malformed-field-zero", K::Malformed, valid_then(ProtoWriter().key(0, 0).varint(1).bytes()));
  add("Malformed-fixed32-truncated", K::Malformed, valid_then(ProtoWriter().key(30, 5).raw("\x01\x02").bytes()));
  add("Malformed-fixed64-truncated", K::Malformed, valid_then(ProtoWriter().key(30, 1).raw("\x01\x02\x03").bytes()));
  {
    // A length inside a node that runs past the node (but not past the file).
    GraphParts g = onnxb::identity_graph();
    g.nodes[0].lying_length_field(3, 5, "ab");
    g.nodes.push_back(onnxb::node("Identity", {"Y"}, {"Z"}));
    add("Malformed-length-past-message", K::Malformed, onnxb::model_bytes(g));
  }
  {
    // Value types nested 200 levels deep (sequence of sequence of ...), past the default 128.
    ProtoWriter t = onnxb::tensor_type(1, {2});
    for (int i = 0; i < 200; ++i) t = ProtoWriter().message_field(4, ProtoWriter().message_field(1, t));
    GraphParts g = onnxb::identity_graph();
    g.value_info.push_back(onnxb::value_info("Y", t));
    add("Malformed-nesting-past-limit", K::Malformed, onnxb::model_bytes(g));
  }
  add("Malformed-utf8-invalid-byte", K::Malformed, with_node_name("n\xFF"));
  add("Malformed-utf8-overlong", K::Malformed, with_node_name("\xC0\xAF"));
  add("Malformed-utf8-surrogate", K::Malformed, with_node_name("\xED\xA0\x80"));
  add("Malformed-utf8-above-max", K::Malformed, with_node_name("\xF4\x90\x80\x80"));
  add("Malformed-utf8-truncated", K::Malformed, with_node_name("ab\xE2\x82"));
  add("Malformed-packed-float-length", K::Malformed,
      with_initializer(onnxb::tensor_header("W", 1, {1}).bytes_field(4, std::string("\x00\x00\x80\x3F\x00", 5))));
  add("Malformed-packed-varint-truncated", K::Malformed,
      with_initializer(onnxb::tensor_header("W", 7, {1}).bytes_field(7, "\x80")));

  // --- InvalidModel: model checks, tensor rules, attributes, resolution.
  {
    ModelParts m;
    m.with_ir_version = false;
    m.graph = onnxb::identity_graph().build();
    add("InvalidModel-ir-version-missing", K::InvalidModel, m.build().bytes());
    m.with_ir_version = true;
    m.ir_version = 2;
    add("InvalidModel-ir-version-below-3", K::InvalidModel, m.build().bytes());
    m.ir_version = 8;
    m.with_graph = false;
    add("InvalidModel-graph-missing", K::InvalidModel, m.build().bytes());
  }
  add("InvalidModel-negative-dimension", K::InvalidModel, with_initializer(onnxb::tensor_raw("W", 1, {2, -1}, "")));
  add("InvalidModel-count-over-2-pow-60", K::InvalidModel,
      with_initializer(onnxb::tensor_raw("W", 2, {std::int64_t{1} << 31, std::int64_t{1} << 30}, "")));
  add("InvalidModel-raw-data-wrong-length", K::InvalidModel, with_initializer(onnxb::tensor_raw("W", 1, {2}, "1234567")));
  add("InvalidModel-mixed-raw-and-typed", K::InvalidModel,
      with_initializer(onnxb::tensor_raw("W", 1, {2}, kEightBytes).packed_floats(4, {1.0f, 2.0f})));
  add("InvalidModel-mixed-external-and-raw", K::InvalidModel,
      with_initializer(onnxb::tensor_external("W", 1, {2}, {{"location", "w.bin"}}).bytes_field(9, kEightBytes)));
  add("InvalidModel-wrong-typed-field", K::InvalidModel,
      with_initializer(onnxb::tensor_header("W", 1, {2}).packed_varints(7, {1, 2})));
  add("InvalidModel-int32-data-for-int64", K::InvalidModel,
      with_initializer(onnxb::tensor_header("W", 7, {2}).packed_varints(5, {1, 2})));
  add("InvalidModel-typed-data-wrong-count", K::InvalidModel,
      with_initializer(onnxb::tensor_header("W", 1, {3}).packed_floats(4, {1.0f, 2.0f})));
  add("InvalidModel-strings-count-mismatch", K::InvalidModel,
      with_initializer(onnxb::tensor_header("W", 8, {3}).bytes_field(6, "a").bytes_field(6, "b")));
  add("InvalidModel-strings-in-raw-data", K::InvalidModel, with_initializer(onnxb::tensor_raw("W", 8, {1}, "a")));
  add("InvalidModel-tensor-without-data", K::InvalidModel, with_initializer(onnxb::tensor_header("W", 1, {2})));
  add("InvalidModel-tensor-without-data-type", K::InvalidModel,
      with_initializer(ProtoWriter().int_field(1, 1).bytes_field(8, "W").bytes_field(9, "abcd")));
  add("InvalidModel-six-bit-entry-count", K::InvalidModel,
      with_initializer(onnxb::tensor_header("W", 27, {4}).packed_varints(5, {1, 2, 3})));
  {
    ProtoWriter sparse;
    sparse.message_field(1, onnxb::tensor_floats("v", {1}, {1.0f}))
        .message_field(2, onnxb::tensor_header("i", 7, {1}).packed_varints(7, {0}))
        .int_field(3, -4);
    GraphParts g = onnxb::identity_graph();
    ProtoWriter gw = g.build();
    gw.message_field(15, sparse);
    ModelParts m;
    m.graph = gw;
    add("InvalidModel-sparse-negative-dimension", K::InvalidModel, m.build().bytes());
  }
  // Found by the onnx_reader fuzzer: a sparse initializer without its values (or indices).
  for (const bool keep_values : {false, true}) {
    ProtoWriter sparse;
    if (keep_values) sparse.message_field(1, onnxb::tensor_floats("v", {1}, {1.0f}));
    if (!keep_values) sparse.message_field(2, onnxb::tensor_header("i", 7, {1}).packed_varints(7, {0}));
    sparse.int_field(3, 4);
    GraphParts g = onnxb::identity_graph();
    ProtoWriter gw = g.build();
    gw.message_field(15, sparse);
    ModelParts m;
    m.graph = gw;
    add(keep_values ? "InvalidModel-sparse-without-indices" : "InvalidModel-sparse-without-values", K::InvalidModel,
        m.build().bytes());
  }
  add("InvalidModel-attribute-without-type-or-value", K::InvalidModel,
      with_node_attribute(ProtoWriter().bytes_field(1, "alpha")));
  add("InvalidModel-tensor-attribute-without-t", K::InvalidModel,
      with_node_attribute(ProtoWriter().bytes_field(1, "value").int_field(20, 4)));
  add("InvalidModel-graph-attribute-without-g", K::InvalidModel,
      with_node_attribute(ProtoWriter().bytes_field(1, "body").int_field(20, 5)));
  add("InvalidModel-type-attribute-without-tp", K::InvalidModel,
      with_node_attribute(ProtoWriter().bytes_field(1, "type").int_field(20, 13)));
  {
    GraphParts g = onnxb::identity_graph();
    g.nodes[0] = onnxb::node("Identity", {"missing"}, {"Y"});
    add("InvalidModel-undefined-node-input", K::InvalidModel, onnxb::model_bytes(g));
  }
  {
    GraphParts g = onnxb::identity_graph();
    g.outputs.push_back(onnxb::tensor_value_info("nowhere", 1, {2}));
    add("InvalidModel-undefined-graph-output", K::InvalidModel, onnxb::model_bytes(g));
  }
  // "" names no value (spec/graph-resolution.md section 1); an initializer named "" crashed the
  // optimized engine's compile_graph (issue 11, defect 1).
  add("InvalidModel-initializer-empty-name", K::InvalidModel, with_initializer(onnxb::tensor_floats("", {2}, {1.0f, 2.0f})));
  {
    GraphParts g = onnxb::identity_graph();
    g.initializers.push_back(onnxb::tensor_floats("", {2}, {1.0f, 2.0f}));
    g.outputs.push_back(onnxb::tensor_value_info("", 1, {2}));
    add("InvalidModel-graph-output-empty-name", K::InvalidModel, onnxb::model_bytes(g));
  }
  {
    GraphParts g = onnxb::identity_graph();
    g.inputs.push_back(onnxb::tensor_value_info("X", 1, {2}));
    add("InvalidModel-duplicate-input-name", K::InvalidModel, onnxb::model_bytes(g));
  }
  {
    GraphParts g = onnxb::identity_graph();
    g.nodes.push_back(onnxb::node("Identity", {"X"}, {"Y"}));
    add("InvalidModel-duplicate-node-output", K::InvalidModel, onnxb::model_bytes(g));
  }
  {
    GraphParts g;
    g.nodes.push_back(onnxb::node("Add", {"X", "B"}, {"A"}));
    g.nodes.push_back(onnxb::node("Identity", {"A"}, {"B"}));
    g.nodes.push_back(onnxb::node("Identity", {"A"}, {"Y"}));
    g.inputs.push_back(onnxb::tensor_value_info("X", 1, {2}));
    g.outputs.push_back(onnxb::tensor_value_info("Y", 1, {2}));
    add("InvalidModel-cycle", K::InvalidModel, onnxb::model_bytes(g));
  }
  {
    GraphParts g = onnxb::identity_graph();
    g.nodes[0] = onnxb::node("Custom", {"X"}, {"Y"}, {}, "com.example");
    add("InvalidModel-domain-not-imported", K::InvalidModel, onnxb::model_bytes(g));
  }

  // --- Unsupported (spec/onnx-import.md section 3).
  add("Unsupported-tensor-over-2-gib", K::Unsupported,
      with_initializer(onnxb::tensor_raw("W", 1, {std::int64_t{1} << 29}, "")));
  add("Unsupported-segment", K::Unsupported,
      with_initializer(onnxb::tensor_raw("W", 1, {2}, kEightBytes)
                           .message_field(3, ProtoWriter().int_field(1, 0).int_field(2, 2))));
  add("Unsupported-unknown-data-type", K::Unsupported, with_initializer(onnxb::tensor_raw("W", 99, {2}, kEightBytes)));

  // --- ExternalData (spec/onnx-import.md section 5).
  auto ext = [&](std::string name, std::vector<std::pair<std::string, std::string>> entries) {
    HostileModel* h = add(std::move(name), K::ExternalData, external_model(entries));
    h->files.push_back({"w.bin", kEightBytes + kEightBytes});
    h->outside_files.push_back({"secret.bin", kEightBytes});
    return h;
  };
  ext("ExternalData-dotdot", {{"location", "../outside/secret.bin"}});
  ext("ExternalData-dotdot-backslash", {{"location", "sub\\..\\..\\outside\\secret.bin"}});
  ext("ExternalData-dotdot-only", {{"location", ".."}});
  ext("ExternalData-absolute", {{"location", "/etc/passwd"}});
  ext("ExternalData-drive-letter", {{"location", "C:w.bin"}});
  ext("ExternalData-backslash-rooted", {{"location", "\\w.bin"}});
  ext("ExternalData-nul", {{"location", std::string("w.bin\0x", 7)}});
  ext("ExternalData-empty-location", {{"location", ""}});
  ext("ExternalData-no-location", {{"offset", "0"}});
  ext("ExternalData-symlink-escape", {{"location", "link.bin"}})->symlinks.push_back({"link.bin", "outside/secret.bin"});
  ext("ExternalData-symlink-dir-escape", {{"location", "linkdir/secret.bin"}})->symlinks.push_back({"linkdir", "outside"});
  ext("ExternalData-missing-file", {{"location", "absent.bin"}});
  ext("ExternalData-directory", {{"location", "sub"}})->files.push_back({"sub/x.bin", "x"});
  ext("ExternalData-offset-length-past-end", {{"location", "w.bin"}, {"offset", "12"}});
  ext("ExternalData-offset-past-end", {{"location", "w.bin"}, {"offset", "100"}});
  ext("ExternalData-length-mismatch", {{"location", "w.bin"}, {"length", "4"}});
  ext("ExternalData-offset-not-decimal", {{"location", "w.bin"}, {"offset", "0x4"}});
  ext("ExternalData-offset-negative", {{"location", "w.bin"}, {"offset", "-1"}});
  ext("ExternalData-length-not-decimal", {{"location", "w.bin"}, {"length", "8 "}});
  ext("ExternalData-offset-overflow", {{"location", "w.bin"}, {"offset", "99999999999999999999"}});
  return v;
}

std::filesystem::path write_hostile_case(const HostileModel& model, const std::filesystem::path& case_dir) {
  namespace fs = std::filesystem;
  const fs::path model_dir = case_dir / "model";
  const fs::path outside_dir = case_dir / "outside";
  fs::create_directories(model_dir);
  fs::create_directories(outside_dir);
  auto write = [](const fs::path& p, const std::string& bytes) {
    fs::create_directories(p.parent_path());
    std::ofstream out(p, std::ios::binary);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  };
  for (const auto& [path, bytes] : model.files) write(model_dir / path, bytes);
  for (const auto& [path, bytes] : model.outside_files) write(outside_dir / path, bytes);
  for (const auto& [link, target] : model.symlinks) {
    const fs::path absolute_target = fs::absolute(case_dir / target);
    if (fs::is_directory(absolute_target)) fs::create_directory_symlink(absolute_target, model_dir / link);
    else fs::create_symlink(absolute_target, model_dir / link);
  }
  const fs::path path = model_dir / (model.name + ".onnx");
  write(path, model.bytes);
  return path;
}

}  // namespace onemodel::testing
