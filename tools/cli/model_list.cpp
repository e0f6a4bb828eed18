#include "tools/cli/model_list.hpp"

#include <filesystem>
#include <fstream>

#include "onemodel/error.hpp"

namespace onemodel::cli {

std::vector<std::string> read_model_list(const std::string& list_path) {
  std::ifstream in(list_path, std::ios::binary);
  if (!in) throw ModelError(ModelErrorKind::Io, "cannot open the list file", list_path);
  std::vector<std::string> paths;
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (!line.empty()) paths.push_back(line);
  }
  if (in.bad()) throw ModelError(ModelErrorKind::Io, "cannot read the list file", list_path);
  return paths;
}

void make_output_dir(const std::string& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) throw ModelError(ModelErrorKind::Io, "cannot create the output folder: " + ec.message(), dir);
}

}  // namespace onemodel::cli
