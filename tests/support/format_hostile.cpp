#include "tests/support/format_hostile.hpp"

#include <cstdint>
#include <cstring>
#include <functional>
#include <stdexcept>

namespace onemodel::test {
namespace {

// Two initializers: w (float [2], 8 bytes at 0) and b (int8 [4], 4 bytes at 64); data region 68.
const std::string kBase =
    R"({"format":"onemodel","version":1,"ir_version":8,"opsets":[{"domain":"","version":17}],)"
    R"("metadata":[{"key":"k","value":"v"}],)"
    R"("graph":{"name":"g","inputs":[{"name":"x","type":{"kind":"tensor","elem":1,"shape":[2]}}],)"
    R"("outputs":[{"name":"y"}],)"
    R"("initializers":[{"name":"w","dtype":1,"dims":[2],"data":{"offset":0,"length":8}},)"
    R"({"name":"b","dtype":3,"dims":[4],"data":{"offset":64,"length":4}},)"
    R"({"name":"s","dtype":8,"dims":[1],"strings":["YQ=="]}],)"
    R"("sparse_initializers":[{"values":{"name":"sp","dtype":3,"dims":[1],"data":{"offset":64,"length":1}},)"
    R"("indices":{"dtype":3,"dims":[1],"data":{"offset":64,"length":1}},"dims":[3]}],)"
    R"("nodes":[{"name":"n0","op":"Add","domain":"","inputs":["x","w"],"outputs":["y"],)"
    R"("attributes":[{"name":"alpha","type":1,"value":1065353216},{"name":"txt","type":3,"value":"YWJj"},)"
    R"({"name":"ints","type":7,"value":[1,2]}]}]}})";

constexpr std::size_t kDataLength = 68;

struct Header {
  std::uint64_t magic_first = 'O';
  std::uint32_t version = 1;
  std::uint32_t flags = 0;
  std::uint64_t manifest_offset = 64;
  std::uint64_t manifest_length = 0;
  std::uint64_t data_offset = 0;
  std::uint64_t data_length = 0;
  std::uint64_t file_length = 0;
  std::uint64_t reserved = 0;
};

void put(std::vector<std::byte>& out, std::size_t at, std::uint64_t value, int size) {
  for (int i = 0; i < size; ++i) out[at + static_cast<std::size_t>(i)] = static_cast<std::byte>((value >> (8 * i)) & 0xFF);
}

// Lays out header, manifest, padding and data, then lets `tweak` change header fields.
std::vector<std::byte> assemble(const std::string& manifest, const std::function<void(Header&)>& tweak = {}) {
  Header h;
  h.manifest_length = manifest.size();
  h.data_offset = (64 + manifest.size() + 63) / 64 * 64;
  h.data_length = kDataLength;
  h.file_length = h.data_offset + kDataLength;
  std::vector<std::byte> out(static_cast<std::size_t>(h.file_length), std::byte{0});
  std::memcpy(out.data() + 64, manifest.data(), manifest.size());
  for (std::size_t i = 0; i < kDataLength; ++i) {
    out[static_cast<std::size_t>(h.data_offset) + i] = static_cast<std::byte>(i + 1);
  }
  if (tweak) tweak(h);
  std::memcpy(out.data(), "ONEMODEL", 8);
  put(out, 8, h.version, 4);
  put(out, 12, h.flags, 4);
  put(out, 16, h.manifest_offset, 8);
  put(out, 24, h.manifest_length, 8);
  put(out, 32, h.data_offset, 8);
  put(out, 40, h.data_length, 8);
  put(out, 48, h.file_length, 8);
  put(out, 56, h.reserved, 8);
  return out;
}

// The base manifest with one piece of text replaced; the piece must be present exactly once.
std::string with(const std::string& from, const std::string& to, std::string manifest = kBase) {
  const std::size_t at = manifest.find(from);
  if (at == std::string::npos || manifest.find(from, at + 1) != std::string::npos) {
    throw std::logic_error("hostile file generator: `" + from + "` not found exactly once");
  }
  manifest.replace(at, from.size(), to);
  return manifest;
}

const std::string kNode0Attrs =
    R"([{"name":"alpha","type":1,"value":1065353216},{"name":"txt","type":3,"value":"YWJj"},{"name":"ints","type":7,"value":[1,2]}])";

// Replaces node n0's attribute list.
std::string with_attrs(const std::string& attrs) { return with(kNode0Attrs, attrs); }

// A graph nested `levels` deep through Graph attributes below the main graph.
std::string nested_graph(int levels) {
  std::string inner = R"({"name":"leaf"})";
  for (int i = 0; i < levels; ++i) {
    inner = R"({"nodes":[{"op":"If","attributes":[{"name":"g","type":5,"value":)" + inner + "}]}]}";
  }
  return inner;
}

std::string nested_type(int sequences) {
  std::string type = R"({"kind":"tensor","elem":1})";
  for (int i = 0; i < sequences; ++i) type = R"({"kind":"sequence","inner":)" + type + "}";
  return type;
}

}  // namespace

std::vector<std::byte> valid_format_file() { return assemble(kBase); }

std::vector<HostileFormatFile> make_hostile_format_files() {
  using K = ModelErrorKind;
  std::vector<HostileFormatFile> files;
  const auto add = [&](const std::string& name, K kind, const std::string& path, std::vector<std::byte> bytes) {
    files.push_back({name, kind, path, std::move(bytes)});
  };
  const auto header = [&](const std::string& name, K kind, const std::string& path,
                          const std::function<void(Header&)>& tweak) { add(name, kind, path, assemble(kBase, tweak)); };
  const auto manifest = [&](const std::string& name, K kind, const std::string& path, const std::string& text) {
    add(name, kind, path, assemble(text));
  };
  const std::vector<std::byte> valid = valid_format_file();
  constexpr std::uint64_t k2To63 = std::uint64_t{1} << 63;

  // ---- spec/format.md section 1.1: the header ------------------------------------------------
  {
    auto b = valid;
    b[0] = std::byte{'X'};
    add("Malformed-bad-magic", K::Malformed, "header.magic", b);
    add("Malformed-empty-file", K::Malformed, "header.magic", {});
    add("Malformed-magic-only", K::Malformed, "header.file_length", std::vector<std::byte>(valid.begin(), valid.begin() + 8));
    add("Malformed-truncated-header", K::Malformed, "header.file_length",
        std::vector<std::byte>(valid.begin(), valid.begin() + 40));
    add("Malformed-truncated-file", K::Malformed, "header.file_length",
        std::vector<std::byte>(valid.begin(), valid.end() - 1));
    add("Malformed-truncated-in-manifest", K::Malformed, "header.file_length",
        std::vector<std::byte>(valid.begin(), valid.begin() + 100));
    auto extended = valid;
    extended.push_back(std::byte{0});
    add("Malformed-extended-file", K::Malformed, "header.file_length", extended);
  }
  header("Unsupported-newer-version", K::Unsupported, "header.version", [](Header& h) { h.version = 2; });
  header("Unsupported-version-0", K::Unsupported, "header.version", [](Header& h) { h.version = 0; });
  header("Unsupported-nonzero-flags", K::Unsupported, "header.flags", [](Header& h) { h.flags = 1; });
  header("Unsupported-high-flag-bit", K::Unsupported, "header.flags", [](Header& h) { h.flags = 0x80000000u; });
  header("Malformed-reserved-nonzero", K::Malformed, "header.reserved", [](Header& h) { h.reserved = 1; });
  header("Malformed-manifest-offset-not-64", K::Malformed, "header.manifest_offset",
         [](Header& h) { h.manifest_offset = 128; });
  header("Malformed-manifest-past-end", K::Malformed, "header.manifest_length",
         [](Header& h) { h.manifest_length = h.file_length; });
  header("Malformed-manifest-length-short", K::Malformed, "manifest", [](Header& h) { h.manifest_length -= 1; });
  header("Malformed-data-offset-misaligned", K::Malformed, "header.data_offset", [](Header& h) {
    h.data_offset += 8;
    h.data_length -= 8;
  });
  header("Malformed-data-offset-overlaps-manifest", K::Malformed, "header.data_offset", [](Header& h) {
    h.data_length += h.data_offset - 64;
    h.data_offset = 64;
  });
  header("Malformed-data-offset-past-end", K::Malformed, "header.data_offset", [](Header& h) {
    h.data_offset = (h.file_length + 64) / 64 * 64;
    h.data_length = 0;
  });
  header("Malformed-data-length-wrong", K::Malformed, "header.data_length", [](Header& h) { h.data_length += 1; });
  header("Malformed-data-length-zero", K::Malformed, "header.data_length", [](Header& h) { h.data_length = 0; });
  header("Malformed-file-length-over-2^63", K::Malformed, "header.file_length",
         [](Header& h) { h.file_length = k2To63; });
  header("Malformed-manifest-length-over-2^63", K::Malformed, "header.manifest_length",
         [](Header& h) { h.manifest_length = ~std::uint64_t{0}; });
  header("Malformed-data-offset-over-2^63", K::Malformed, "header.data_offset",
         [](Header& h) { h.data_offset = k2To63 + 64; });
  header("Malformed-data-length-over-2^63", K::Malformed, "header.data_length",
         [](Header& h) { h.data_length = k2To63; });
  header("Malformed-reserved-over-2^63", K::Malformed, "header.reserved", [](Header& h) { h.reserved = k2To63; });
  header("Malformed-file-length-wrapping", K::Malformed, "header.file_length", [](Header& h) {
    h.file_length = k2To63 - 1;  // below the bound, but not the real length
  });

  // ---- spec/format.md section 1.2: JSON ------------------------------------------------------
  manifest("Malformed-invalid-json-unterminated", K::Malformed, "manifest", kBase.substr(0, kBase.size() - 1));
  manifest("Malformed-json-trailing-comma", K::Malformed, "manifest", with(R"("ints","type":7,"value":[1,2])",
                                                                          R"("ints","type":7,"value":[1,2,])"));
  manifest("Malformed-json-invalid-utf8", K::Malformed, "manifest", with(R"("name":"g")", "\"name\":\"g\xFF\""));
  manifest("Malformed-json-lone-surrogate", K::Malformed, "manifest", with(R"("name":"g")", R"("name":"g\ud800")"));
  manifest("Malformed-json-leading-zero", K::Malformed, "manifest", with(R"("ir_version":8)", R"("ir_version":08)"));
  manifest("Malformed-json-byte-order-mark", K::Malformed, "manifest", "\xEF\xBB\xBF" + kBase);
  manifest("Malformed-json-trailing-text", K::Malformed, "manifest", kBase + "{}");
  manifest("Unsupported-json-depth-over-1024", K::Unsupported, "manifest",
           with(R"("metadata":)", R"("later":)" + std::string(1100, '[') + std::string(1100, ']') + R"(,"metadata":)"));
  manifest("Malformed-root-not-object", K::Malformed, "manifest", "[1]");

  // ---- spec/format.md section 2.1: Model -----------------------------------------------------
  manifest("Malformed-format-wrong", K::Malformed, "manifest.format", with(R"("onemodel")", R"("onnx")"));
  manifest("Malformed-format-missing", K::Malformed, "manifest.format", with(R"("format":"onemodel",)", ""));
  manifest("Malformed-version-differs-from-header", K::Malformed, "manifest.version",
           with(R"("version":1,)", R"("version":2,)"));
  manifest("Malformed-ir-version-missing", K::Malformed, "manifest.ir_version", with(R"("ir_version":8,)", ""));
  manifest("InvalidModel-ir-version-2", K::InvalidModel, "manifest.ir_version",
           with(R"("ir_version":8)", R"("ir_version":2)"));
  manifest("Malformed-ir-version-with-fraction", K::Malformed, "manifest.ir_version",
           with(R"("ir_version":8)", R"("ir_version":8.0)"));
  manifest("Malformed-ir-version-string", K::Malformed, "manifest.ir_version",
           with(R"("ir_version":8)", R"("ir_version":"8")"));
  manifest("Malformed-integer-beyond-int64", K::Malformed, "manifest.opsets[0].version",
           with(R"("version":17)", R"("version":9223372036854775808)"));
  manifest("Malformed-graph-missing", K::Malformed, "manifest.graph", R"({"format":"onemodel","version":1,"ir_version":8})");
  manifest("Malformed-graph-is-array", K::Malformed, "manifest.graph",
           R"({"format":"onemodel","version":1,"ir_version":8,"graph":[]})");
  manifest("Malformed-opsets-not-array", K::Malformed, "manifest.opsets",
           with(R"("opsets":[{"domain":"","version":17}])", R"("opsets":{"domain":"","version":17})"));
  manifest("Malformed-opset-version-missing", K::Malformed, "manifest.opsets[0].version",
           with(R"({"domain":"","version":17})", R"({"domain":""})"));
  manifest("Malformed-metadata-value-not-string", K::Malformed, "manifest.metadata[0].value",
           with(R"("value":"v")", R"("value":7)"));

  // ---- spec/format.md sections 2.2 and 2.3: Graph and Node -----------------------------------
  manifest("Malformed-nodes-not-array", K::Malformed, "manifest.graph.nodes",
           with(R"("nodes":[{"name":"n0")", R"("nodes":{"x":[]},"n":[{"name":"n0")"));
  manifest("Malformed-node-op-missing", K::Malformed, "manifest.graph.nodes[0].op", with(R"("op":"Add",)", ""));
  manifest("Malformed-node-input-not-string", K::Malformed, "manifest.graph.nodes[0].inputs[1]",
           with(R"(["x","w"])", R"(["x",5])"));
  manifest("Malformed-input-name-missing", K::Malformed, "manifest.graph.inputs[0].name",
           with(R"({"name":"x","type")", R"({"type")"));

  // ---- spec/format.md section 2.4: Attribute -------------------------------------------------
  manifest("Malformed-float-attribute-as-decimal", K::Malformed, "manifest.graph.nodes[0].attributes[0].value",
           with(R"("value":1065353216)", R"("value":1.0)"));
  manifest("Malformed-float-attribute-negative-bits", K::Malformed, "manifest.graph.nodes[0].attributes[0].value",
           with(R"("value":1065353216)", R"("value":-1)"));
  manifest("Malformed-float-attribute-bits-over-32", K::Malformed, "manifest.graph.nodes[0].attributes[0].value",
           with(R"("value":1065353216)", R"("value":4294967296)"));
  manifest("Malformed-base64-bad-padding", K::Malformed, "manifest.graph.nodes[0].attributes[1].value",
           with(R"("value":"YWJj")", R"("value":"YWJ")"));
  manifest("Malformed-base64-bad-alphabet", K::Malformed, "manifest.graph.nodes[0].attributes[1].value",
           with(R"("value":"YWJj")", R"("value":"YW-_")"));
  manifest("Malformed-string-tensor-bad-base64", K::Malformed, "manifest.graph.initializers[2].strings[0]",
           with(R"(["YQ=="])", R"(["YQ="])"));
  manifest("Unsupported-unknown-attribute-type", K::Unsupported, "manifest.graph.nodes[0].attributes[0].type",
           with(R"("type":1,"value":1065353216)", R"("type":15,"value":1065353216)"));
  manifest("Unsupported-negative-attribute-type", K::Unsupported, "manifest.graph.nodes[0].attributes[0].type",
           with(R"("type":1,"value":1065353216)", R"("type":-1,"value":1065353216)"));
  manifest("InvalidModel-attribute-type-0", K::InvalidModel, "manifest.graph.nodes[0].attributes[0].type",
           with(R"("type":1,"value":1065353216)", R"("type":0,"value":1065353216)"));
  manifest("Malformed-attribute-type-missing", K::Malformed, "manifest.graph.nodes[0].attributes[0].type",
           with(R"("type":1,"value":1065353216)", R"("value":1065353216)"));
  manifest("Malformed-attribute-value-missing", K::Malformed, "manifest.graph.nodes[0].attributes[0].value",
           with(R"("type":1,"value":1065353216)", R"("type":1)"));
  manifest("Malformed-ints-attribute-not-array", K::Malformed, "manifest.graph.nodes[0].attributes[2].value",
           with(R"("value":[1,2])", R"("value":1)"));
  manifest("Malformed-ints-element-fraction", K::Malformed, "manifest.graph.nodes[0].attributes[2].value[1]",
           with(R"("value":[1,2])", R"("value":[1,2.5])"));
  manifest("Malformed-graph-attribute-not-object", K::Malformed, "manifest.graph.nodes[0].attributes[0].value",
           with(R"("type":1,"value":1065353216)", R"("type":5,"value":"g")"));

  // ---- spec/format.md section 2.5: Tensor ----------------------------------------------------
  manifest("Malformed-tensor-range-outside-data", K::Malformed, "manifest.graph.initializers[1].data",
           with(R"("offset":64,"length":4)", R"("offset":128,"length":4)"));
  manifest("Malformed-tensor-end-past-data", K::Malformed, "manifest.graph.initializers[0].data",
           with(R"("dims":[2],"data":{"offset":0,"length":8})", R"("dims":[20],"data":{"offset":0,"length":80})"));
  manifest("Malformed-tensor-offset-overflow", K::Malformed, "manifest.graph.initializers[1].data",
           with(R"("offset":64,"length":4)", R"("offset":9223372036854775744,"length":4)"));
  manifest("Malformed-tensor-offset-misaligned", K::Malformed, "manifest.graph.initializers[1].data.offset",
           with(R"("offset":64,"length":4)", R"("offset":32,"length":4)"));
  manifest("Malformed-tensor-offset-negative", K::Malformed, "manifest.graph.initializers[1].data.offset",
           with(R"("offset":64,"length":4)", R"("offset":-64,"length":4)"));
  manifest("Malformed-tensor-data-missing", K::Malformed, "manifest.graph.initializers[0].data",
           with(R"(,"data":{"offset":0,"length":8})", ""));
  manifest("Malformed-tensor-dims-missing", K::Malformed, "manifest.graph.initializers[0].dims",
           with(R"("dtype":1,"dims":[2],)", R"("dtype":1,)"));
  manifest("Malformed-tensor-dim-with-exponent", K::Malformed, "manifest.graph.initializers[0].dims[0]",
           with(R"("dtype":1,"dims":[2])", R"("dtype":1,"dims":[2e0])"));
  manifest("InvalidModel-length-dims-mismatch", K::InvalidModel, "manifest.graph.initializers[0].data.length",
           with(R"("offset":0,"length":8)", R"("offset":0,"length":4)"));
  manifest("InvalidModel-negative-dimension", K::InvalidModel, "manifest.graph.initializers[0].dims[0]",
           with(R"("dtype":1,"dims":[2])", R"("dtype":1,"dims":[-2])"));
  manifest("InvalidModel-count-2^60", K::InvalidModel, "manifest.graph.initializers[0].dims",
           with(R"("dtype":1,"dims":[2])", R"("dtype":1,"dims":[1073741824,1073741824])"));
  manifest("InvalidModel-count-overflows-64-bits", K::InvalidModel, "manifest.graph.initializers[0].dims",
           with(R"("dtype":1,"dims":[2])", R"("dtype":1,"dims":[4294967296,4294967296,4294967296])"));
  manifest("Unsupported-tensor-over-2^31-1-bytes", K::Unsupported, "manifest.graph.initializers[0].dims",
           with(R"("dtype":1,"dims":[2])", R"("dtype":1,"dims":[536870912])"));
  manifest("Unsupported-unknown-dtype-29", K::Unsupported, "manifest.graph.initializers[0].dtype",
           with(R"("dtype":1,"dims":[2])", R"("dtype":29,"dims":[2])"));
  manifest("Unsupported-dtype-0", K::Unsupported, "manifest.graph.initializers[0].dtype",
           with(R"("dtype":1,"dims":[2])", R"("dtype":0,"dims":[2])"));
  manifest("InvalidModel-string-count-mismatch", K::InvalidModel, "manifest.graph.initializers[2].strings",
           with(R"(["YQ=="])", R"(["YQ==","YQ=="])"));
  manifest("Malformed-string-tensor-strings-missing", K::Malformed, "manifest.graph.initializers[2].strings",
           with(R"(,"strings":["YQ=="])", ""));

  // ---- spec/format.md sections 2.6 and 2.7: SparseTensor and Type -----------------------------
  manifest("Malformed-sparse-values-missing", K::Malformed, "manifest.graph.sparse_initializers[0].values",
           with(R"("values":{"name":"sp","dtype":3,"dims":[1],"data":{"offset":64,"length":1}},)", ""));
  manifest("InvalidModel-sparse-negative-dims", K::InvalidModel, "manifest.graph.sparse_initializers[0].dims[0]",
           with(R"("dims":[3]})", R"("dims":[-3]})"));
  manifest("Unsupported-unknown-type-kind", K::Unsupported, "manifest.graph.inputs[0].type.kind",
           with(R"("kind":"tensor")", R"("kind":"tensor2")"));
  manifest("Malformed-type-kind-missing", K::Malformed, "manifest.graph.inputs[0].type.kind",
           with(R"("kind":"tensor",)", ""));
  manifest("Malformed-type-elem-missing", K::Malformed, "manifest.graph.inputs[0].type.elem",
           with(R"("elem":1,)", ""));
  manifest("InvalidModel-type-negative-dim", K::InvalidModel, "manifest.graph.inputs[0].type.shape[0]",
           with(R"("shape":[2])", R"("shape":[-1])"));
  manifest("Malformed-type-dim-boolean", K::Malformed, "manifest.graph.inputs[0].type.shape[0]",
           with(R"("shape":[2])", R"("shape":[true])"));

  // ---- spec/format.md section 3.1: nesting ----------------------------------------------------
  // The main graph is level 1; 63 subgraphs below it make 64 (accepted), 64 make 65.
  manifest("Unsupported-graph-nesting-65", K::Unsupported, "manifest.graph.nodes[0].attributes[0].value",
           with_attrs(R"([{"name":"g","type":5,"value":)" + nested_graph(63) + "}]"));
  // An input's type is level 2; each sequence wraps one more.
  manifest("Unsupported-type-nesting-65", K::Unsupported, "manifest.graph.inputs[0].type",
           with(R"({"kind":"tensor","elem":1,"shape":[2]})", nested_type(63)));
  manifest("Unsupported-attribute-type-nesting-65", K::Unsupported, "manifest.graph.nodes[0].attributes[0].value",
           with_attrs(R"([{"name":"t","type":13,"value":)" + nested_type(63) + "}]"));

  // ---- spec/format.md section 3: resolution ---------------------------------------------------
  manifest("InvalidModel-duplicate-initializer", K::InvalidModel, "manifest.graph.initializers[1]",
           with(R"({"name":"b","dtype":3)", R"({"name":"w","dtype":3)"));
  // "" names no value (spec/graph-resolution.md section 1; issue 11, defect 1).
  manifest("InvalidModel-initializer-empty-name", K::InvalidModel, "manifest.graph.initializers[0]",
           with(R"({"name":"w","dtype":1)", R"({"name":"","dtype":1)"));
  manifest("InvalidModel-sparse-initializer-empty-name", K::InvalidModel, "manifest.graph.sparse_initializers[0]",
           with(R"("values":{"name":"sp")", R"("values":{"name":"")"));
  manifest("InvalidModel-graph-output-empty-name", K::InvalidModel, "manifest.graph.outputs[0]",
           with(R"("outputs":[{"name":"y"}])", R"("outputs":[{"name":""}])"));
  manifest("InvalidModel-duplicate-node-output", K::InvalidModel, "manifest.graph.nodes[0].outputs[0]",
           with(R"("outputs":["y"])", R"("outputs":["x"])"));
  manifest("InvalidModel-undefined-node-input", K::InvalidModel, "manifest.graph.nodes[0].inputs[1]",
           with(R"(["x","w"])", R"(["x","nope"])"));
  manifest("InvalidModel-undefined-graph-output", K::InvalidModel, "manifest.graph.outputs[0]",
           with(R"("outputs":[{"name":"y"}])", R"("outputs":[{"name":"nope"}])"));
  manifest("InvalidModel-cycle", K::InvalidModel, "manifest.graph.nodes[",
           with(R"("inputs":["x","w"],"outputs":["y"])",
                R"("inputs":["x","z"],"outputs":["y"]},{"op":"Relu","inputs":["y"],"outputs":["z"])"));
  manifest("InvalidModel-domain-not-in-opsets", K::InvalidModel, "manifest.graph.nodes[0]",
           with(R"("op":"Add","domain":"")", R"("op":"Add","domain":"com.unknown")"));
  manifest("InvalidModel-undefined-name-in-subgraph", K::InvalidModel, "manifest.graph.nodes[0]",
           with_attrs(R"([{"name":"g","type":5,"value":{"outputs":[{"name":"nowhere"}]}}])"));
  return files;
}

}  // namespace onemodel::test
