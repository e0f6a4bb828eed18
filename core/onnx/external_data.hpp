// External tensor data (spec/onnx-import.md section 5): the checks on `location`, the resolution
// inside the external-data directory, and one loaded (memory-mapped from 1 MiB on) view per file
// and import, shared by every tensor that refers to it.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/protobuf/parse_context.hpp"
#include "onemodel/bytes.hpp"

namespace onemodel::onnx {

// spec/onnx-import.md section 5 rule 1. Returns why `location` is not an acceptable relative
// path, or nullptr when it is.
const char* location_problem(std::string_view location) noexcept;

// spec/onnx-import.md section 5 rule 3: a non-negative decimal integer that fits in int64.
std::optional<std::uint64_t> parse_decimal(std::string_view text) noexcept;

class ExternalDataStore {
 public:
  // `directory`: the external-data directory, or none (external data is then refused).
  explicit ExternalDataStore(std::optional<std::filesystem::path> directory)
      : directory_(std::move(directory)) {}

  // The bytes of one external tensor. `entries` are the tensor's `external_data` key/value
  // pairs, `expected_length` its expected byte length, `offset` the tensor's position for
  // errors (ctx's path names the tensor). Throws ModelError(ExternalData).
  ByteView view(pb::ParseContext& ctx, std::uint64_t offset,
                const std::vector<std::pair<std::string, std::string>>& entries,
                std::uint64_t expected_length);

  std::size_t files_loaded() const noexcept { return files_.size(); }

 private:
  const ByteView& load(pb::ParseContext& ctx, std::uint64_t offset, const std::string& location);

  std::optional<std::filesystem::path> directory_;
  std::optional<std::filesystem::path> resolved_directory_;
  std::map<std::string, ByteView> files_;  // by resolved path
};

}  // namespace onemodel::onnx
