// Hostile ONNX files generated from code (spec/onnx-import.md section 8): each is named
// `<Kind>-<case>` and must be refused with exactly that kind. Cases that need files beside the
// model (external data, symbolic links) carry them and are written out by write_hostile_case().
#pragma once

#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "onemodel/error.hpp"

namespace onemodel::testing {

struct HostileModel {
  std::string name;                 // "<Kind>-<case>"
  ModelErrorKind kind;
  std::string bytes;                // the model file
  // Files written beside the model (`model/<path>`) and outside its directory (`outside/<path>`).
  std::vector<std::pair<std::string, std::string>> files;
  std::vector<std::pair<std::string, std::string>> outside_files;
  // Symbolic links beside the model: link name -> target (a path relative to the case folder,
  // made absolute when written, e.g. "outside/secret.bin").
  std::vector<std::pair<std::string, std::string>> symlinks;
  bool has_field_path = true;       // the error names a field
};

std::vector<HostileModel> hostile_onnx_models();

// Writes `model` under `case_dir` (case_dir/model/<name>.onnx plus its files) and returns the
// model's path.
std::filesystem::path write_hostile_case(const HostileModel& model, const std::filesystem::path& case_dir);

}  // namespace onemodel::testing
