// Entry points of the OneModel format (spec/format.md sections 1, 4 and 5).
#include "onemodel/model_format.hpp"

#include <cstring>
#include <fstream>

#include "core/format/data_layout.hpp"
#include "core/format/header.hpp"
#include "core/format/manifest_reader.hpp"
#include "core/format/manifest_writer.hpp"
#include "core/io/file_bytes.hpp"
#include "core/ir/resolve.hpp"
#include "core/session/compact_weights.hpp"
#include "core/json/json_reader.hpp"
#include "onemodel/error.hpp"
#include "onemodel/onnx_import.hpp"

namespace onemodel {

bool is_onemodel_bytes(std::span<const std::byte> first_bytes) noexcept {
  return first_bytes.size() >= 8 && std::memcmp(first_bytes.data(), "ONEMODEL", 8) == 0;
}

IrModel read_onemodel_bytes(const ByteView& bytes, const std::string& input_name) {
  // spec/format.md section 1.1: the header is checked in full before anything else is read.
  const FormatHeader header = read_header(bytes.span(), input_name);
  const std::string_view manifest_text(reinterpret_cast<const char*>(bytes.data) + header.manifest_offset,
                                       static_cast<std::size_t>(header.manifest_length));
  JsonValue root;
  try {
    JsonLimits limits;
    limits.max_bytes = kMaxManifestBytes;
    root = parse_json(manifest_text, limits);
  } catch (const JsonError& e) {
    // spec/format.md section 3.1: invalid JSON is Malformed; too deep JSON is too much nesting.
    throw ModelError(e.limit_exceeded() ? ModelErrorKind::Unsupported : ModelErrorKind::Malformed,
                     std::string("manifest: ") + e.what(), input_name, header.manifest_offset + e.offset(),
                     "manifest");
  }
  ManifestContext context;
  context.input_name = input_name;
  context.header_version = header.version;
  context.manifest_offset = header.manifest_offset;
  context.data_region = bytes.slice(static_cast<std::size_t>(header.data_offset),
                                    static_cast<std::size_t>(header.data_length));
  IrModel model = read_manifest(root, context);
  // spec/format.md section 3: names resolve exactly as for an ONNX file.
  resolve_model(model, FieldPathStyle::Manifest);
  // spec/format.md section 2.5: a compact mark is untrusted input like any other field; one on a
  // tensor that cannot be a compact weight is InvalidModel.
  std::ptrdiff_t bad = -1;
  const std::string reason = check_compact_marks(model, bad);
  if (!reason.empty()) {
    throw ModelError(ModelErrorKind::InvalidModel, reason, input_name, std::nullopt,
                     "manifest.graph.initializers[" + std::to_string(bad) + "].compact");
  }
  return model;
}

IrModel read_onemodel_file(const std::filesystem::path& path) {
  // spec/format.md section 5: files of 1 MiB or more are mapped; tensors are views of the mapping.
  const ByteView bytes = load_file_bytes(path);
  return read_onemodel_bytes(bytes, path.string());
}

std::vector<std::byte> write_onemodel_bytes(const IrModel& model) {
  // spec/format.md section 4: offsets first (section 1.3 order), then the manifest, then the
  // header, padding and tensors.
  const DataLayout layout = plan_data_layout(model);
  const std::string manifest = write_manifest(model, layout);
  FormatHeader header;
  header.manifest_length = manifest.size();
  header.data_offset = (kHeaderBytes + manifest.size() + kDataAlignment - 1) / kDataAlignment * kDataAlignment;
  header.data_length = layout.data_length;
  header.file_length = header.data_offset + header.data_length;
  std::vector<std::byte> out(static_cast<std::size_t>(header.file_length), std::byte{0});
  const auto encoded = encode_header(header);
  std::memcpy(out.data(), encoded.data(), encoded.size());
  std::memcpy(out.data() + kHeaderBytes, manifest.data(), manifest.size());
  for (const IrTensor* tensor : layout.order) {
    const TensorPlacement& placement = layout.placements.at(tensor);
    std::memcpy(out.data() + header.data_offset + placement.offset, tensor->data.data,
                static_cast<std::size_t>(placement.length));
  }
  return out;
}

void write_onemodel_file(const IrModel& model, const std::filesystem::path& path) {
  const std::vector<std::byte> bytes = write_onemodel_bytes(model);
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) throw ModelError(ModelErrorKind::Io, "cannot open the file for writing", path.string());
  out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  out.close();
  if (!out) throw ModelError(ModelErrorKind::Io, "cannot write the file", path.string());
}

void convert_onnx_to_onemodel(const std::filesystem::path& onnx_path, const std::filesystem::path& output_path) {
  // spec/format.md section 4: external data, already loaded by the importer, is copied in.
  const IrModel model = import_onnx_file(onnx_path);
  write_onemodel_file(model, output_path);
}

IrModel load_model_file(const std::filesystem::path& path) {
  // spec/format.md section 5: the first eight bytes choose the format.
  const std::string prefix = read_file_prefix(path, 8);
  if (is_onemodel_bytes(std::as_bytes(std::span<const char>(prefix.data(), prefix.size())))) {
    return read_onemodel_file(path);
  }
  return import_onnx_file(path);
}

}  // namespace onemodel
