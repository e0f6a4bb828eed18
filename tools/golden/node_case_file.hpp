// The committed node-case file (tests/golden/node-cases-exact.txt): comment lines starting with
// '#', one `case/<name> <sha256>` line per case in name order, and a last line
// `aggregate <sha256>`: the SHA-256 of the case lines sorted bytewise, each followed by one "\n"
// (golden-hashes.md, "Result": "the SHA-256 over the sorted `case/<name> <hash>` lines"). So
// `grep '^case/' FILE | LC_ALL=C sort | sha256sum` recomputes it with no code of this project.
#pragma once

#include <string>
#include <vector>

namespace onemodel::golden {

// The aggregate of `lines` ("case/<name> <hash>" each, any order) as above.
std::string node_case_aggregate(std::vector<std::string> lines);

// Writes the file: `header` lines (each given without its "# "), the case lines sorted, then the
// aggregate line. Throws std::runtime_error when the file cannot be written.
void write_node_case_file(const std::string& path, const std::vector<std::string>& header,
                          std::vector<std::string> lines);

}  // namespace onemodel::golden
