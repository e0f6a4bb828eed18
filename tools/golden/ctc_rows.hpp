// The CTC golden rows (spec/ctc.md, issue 16): seeded score arrays decoded greedily and by the
// prefix beam search, each result hashed, so every platform can be compared with
// tests/golden/golden-ctc.txt (`golden --ctc`). The decoder is pure C++ without kernels, so the
// rows depend on the platform's double and float arithmetic and nothing else.
#pragma once

#include <vector>

#include "tools/golden/case_runner.hpp"

namespace onemodel::golden {

// One line per case and decoder: "ctc/<case>/greedy <sha256>" and "ctc/<case>/beam <sha256>".
std::vector<HashLine> ctc_lines();

}  // namespace onemodel::golden
