#include "tools/golden/expect_file.hpp"

#include <fstream>
#include <set>
#include <sstream>
#include <stdexcept>

namespace onemodel::golden {

std::map<std::string, std::string> read_expect_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot read " + path);
  std::map<std::string, std::string> expected;
  std::string line;
  int number = 0;
  while (std::getline(in, line)) {
    ++number;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.empty() || line[0] == '#') continue;
    std::istringstream fields(line);
    std::string name, hash, extra;
    if (!(fields >> name >> hash) || (fields >> extra)) {
      throw std::runtime_error(path + ":" + std::to_string(number) + ": expected `<name> <hash>`");
    }
    if (!expected.emplace(name, hash).second) {
      throw std::runtime_error(path + ":" + std::to_string(number) + ": duplicate name " + name);
    }
  }
  return expected;
}

Comparison compare_lines(const std::vector<HashLine>& lines, const std::map<std::string, std::string>& expected,
                         bool require_all) {
  Comparison result;
  std::set<std::string> produced;
  for (const HashLine& line : lines) {
    produced.insert(line.name);
    const auto it = expected.find(line.name);
    if (it == expected.end()) {
      result.unexpected.push_back(line.name);
    } else if (it->second != line.hash) {
      result.differing.push_back(line.name);
    }
  }
  if (require_all) {
    for (const auto& [name, hash] : expected) {
      if (produced.count(name) == 0) result.not_produced.push_back(name);
    }
  }
  return result;
}

}  // namespace onemodel::golden
