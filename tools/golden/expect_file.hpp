// The expected-hash file (tests/golden/golden-exact.txt): one `<name> <sha256>` per line; blank
// lines and lines starting with '#' are ignored.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "tools/golden/case_runner.hpp"

namespace onemodel::golden {

// Name -> hash. Throws std::runtime_error when the file cannot be read or a line is malformed.
std::map<std::string, std::string> read_expect_file(const std::string& path);

struct Comparison {
  std::vector<std::string> differing;     // produced and expected, with different hashes
  std::vector<std::string> unexpected;    // produced, but no expected line
  std::vector<std::string> not_produced;  // expected, but not produced (only when asked to check)
  bool ok() const { return differing.empty() && unexpected.empty() && not_produced.empty(); }
};

// Compares `lines` with `expected`. With `require_all` every expected line must be produced too
// (the full set); the reduced and filtered sets produce a subset.
Comparison compare_lines(const std::vector<HashLine>& lines, const std::map<std::string, std::string>& expected,
                         bool require_all);

}  // namespace onemodel::golden
