// Errors raised while reading model files (ONNX or the OneModel format).
// spec/errors.md: one error type for everything wrong with a model file; it carries the kind,
// the input's name, the byte offset when known and the field path.
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>

// The shared library exports what this header declares and nothing else (CMakeLists.txt:
// the library is compiled with -fvisibility=hidden; docs/design.md "Installed package").
#pragma GCC visibility push(default)

namespace onemodel {

// spec/errors.md section 1 (from onnx-import.md section 7 and format.md section 3.1).
enum class ModelErrorKind {
  Malformed,     // bytes that are not a well-formed file (protobuf, header, JSON)
  InvalidModel,  // well formed but impossible (undefined or duplicate names, bad lengths)
  Unsupported,   // something this library does not handle (newer version, unknown type, too large)
  ExternalData,  // an external-data reference that is unsafe or does not fit its file
  Io,            // the file could not be read or written
};

const char* to_string(ModelErrorKind kind) noexcept;

class ModelError : public std::runtime_error {
 public:
  // `field_path` is `ModelProto.graph.node[3].attribute[1].t` for ONNX,
  // `manifest.graph.nodes[3].inputs[1]` or `header.flags` for the OneModel format.
  ModelError(ModelErrorKind kind, std::string message, std::string input_name = {},
             std::optional<std::uint64_t> offset = std::nullopt, std::string field_path = {});

  ModelErrorKind kind() const noexcept { return kind_; }
  const std::string& message() const noexcept { return message_; }
  const std::string& input_name() const noexcept { return input_name_; }
  const std::optional<std::uint64_t>& offset() const noexcept { return offset_; }
  const std::string& field_path() const noexcept { return field_path_; }

  // "<Kind>: <message>" then, when known, " (at <field path>, offset <n>, in <input name>)".
  std::string describe() const;

 private:
  ModelErrorKind kind_;
  std::string message_;
  std::string input_name_;
  std::optional<std::uint64_t> offset_;
  std::string field_path_;
};

}  // namespace onemodel

#pragma GCC visibility pop
