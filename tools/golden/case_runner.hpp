// Runs one golden case once in exact mode through the public Session API and hashes each output.
#pragma once

#include <string>
#include <vector>

#include "onemodel/session.hpp"
#include "tools/golden/golden_case.hpp"

namespace onemodel::golden {

struct HashLine {
  std::string name;  // "<case>/<output>"
  std::string hash;  // tensor_hash(), not_exact_marker(), or "error"
};

struct CaseResult {
  std::vector<HashLine> lines;
  std::string kernel_path;  // Session::kernel_path(), empty when no session was made
  std::string error;        // what went wrong, empty when the case ran (or was refused as not exact)
};

// `options.mode` is forced to exact. A graph refused with SessionError(ExactModeUnavailable)
// prints the marker for each of its outputs; any other failure prints "error" for each.
CaseResult run_case(const GoldenCase& golden_case, SessionOptions options);

}  // namespace onemodel::golden
