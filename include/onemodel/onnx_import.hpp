// Reading ONNX files into the IR (spec/onnx-import.md). Throws ModelError.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

#include "onemodel/bytes.hpp"
#include "onemodel/ir.hpp"

// The shared library exports what this header declares and nothing else (CMakeLists.txt:
// the library is compiled with -fvisibility=hidden; docs/design.md "Installed package").
#pragma GCC visibility push(default)

namespace onemodel {

struct OnnxImportOptions {
  int max_nesting = 128;  // protobuf message levels, 8 to 250 (spec/onnx-import.md section 1)
  // Where relative external-data locations are resolved. For a file path the default is the
  // model's directory; for bytes, external data is refused unless a directory is named.
  std::optional<std::filesystem::path> external_data_dir;
};

// Imports and resolves (section 4). Files over 1 MiB are memory-mapped; initializers are views.
IrModel import_onnx_file(const std::filesystem::path& path, const OnnxImportOptions& options = {});
// `bytes` is kept alive by the returned model's tensors through its owner.
IrModel import_onnx_bytes(const ByteView& bytes, const std::string& input_name,
                          const OnnxImportOptions& options = {});

}  // namespace onemodel

#pragma GCC visibility pop
