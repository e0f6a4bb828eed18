#include "onemodel/onnx_import.hpp"

#include <stdexcept>

#include "core/io/file_bytes.hpp"
#include "core/ir/resolve.hpp"
#include "core/onnx/external_data.hpp"
#include "core/onnx/import_context.hpp"
#include "core/onnx/message_parsers.hpp"

namespace onemodel {

namespace {

// spec/onnx-import.md section 1 (size): protobuf's own limit.
constexpr std::uint64_t kMaxModelBytes = 0x7FFFFFFFu;

IrModel import_bytes(const ByteView& bytes, const std::string& input_name, int max_nesting,
                     std::optional<std::filesystem::path> external_dir) {
  // spec/onnx-import.md section 1 (nesting): MaxNesting is 8 to 250.
  if (max_nesting < 8 || max_nesting > 250) {
    throw std::invalid_argument("OnnxImportOptions::max_nesting must be 8 to 250, not " + std::to_string(max_nesting));
  }
  if (bytes.size > kMaxModelBytes) {
    throw ModelError(ModelErrorKind::Unsupported,
                     "model of " + std::to_string(bytes.size) + " bytes exceeds 2^31-1 bytes", input_name, 0, "ModelProto");
  }
  pb::ParseContext pctx(bytes, input_name, "ModelProto", max_nesting);
  onnx::ExternalDataStore external(std::move(external_dir));
  onnx::ImportContext ctx{pctx, external};
  pb::WireReader reader(pctx, 0, bytes.size);
  IrModel model = onnx::parse_model(ctx, reader);
  model.source_name = input_name;
  // spec/onnx-import.md section 4 (spec/graph-resolution.md).
  resolve_model(model, FieldPathStyle::Onnx);
  return model;
}

}  // namespace

IrModel import_onnx_file(const std::filesystem::path& path, const OnnxImportOptions& options) {
  ByteView bytes = load_file_bytes(path);  // mapped from 1 MiB on (spec/onnx-import.md section 6)
  std::filesystem::path dir;
  if (options.external_data_dir) {
    dir = *options.external_data_dir;
  } else {
    dir = path.parent_path();
    if (dir.empty()) dir = ".";
  }
  return import_bytes(bytes, path.string(), options.max_nesting, dir);
}

IrModel import_onnx_bytes(const ByteView& bytes, const std::string& input_name, const OnnxImportOptions& options) {
  return import_bytes(bytes, input_name, options.max_nesting, options.external_data_dir);
}

}  // namespace onemodel
