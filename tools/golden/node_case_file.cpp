#include "tools/golden/node_case_file.hpp"

#include <algorithm>
#include <fstream>
#include <stdexcept>

#include "core/util/sha256.hpp"

namespace onemodel::golden {

std::string node_case_aggregate(std::vector<std::string> lines) {
  // std::string's < compares bytes as unsigned char, the order of `LC_ALL=C sort`.
  std::sort(lines.begin(), lines.end());
  Sha256 sha;
  for (const std::string& line : lines) {
    sha.update(std::string_view(line));
    sha.update(std::string_view("\n"));
  }
  return to_hex(sha.finish());
}

void write_node_case_file(const std::string& path, const std::vector<std::string>& header,
                          std::vector<std::string> lines) {
  std::sort(lines.begin(), lines.end());
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) throw std::runtime_error("cannot write " + path);
  for (const std::string& line : header) out << "# " << line << "\n";
  for (const std::string& line : lines) out << line << "\n";
  out << "aggregate " << node_case_aggregate(lines) << "\n";
  out.flush();
  if (!out) throw std::runtime_error("cannot write " + path);
}

}  // namespace onemodel::golden
