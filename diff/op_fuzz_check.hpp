// The operator fuzzer's oracle (fuzz/operators_fuzz.cpp, tests/unit/operator_fuzz_property_test.cpp):
// one case from diff/op_fuzz_case.hpp run through both engines, in exact and fast mode, at 1, 2
// and 4 threads, the optimized engine on every kernel path the CPU has (ONEMODEL_ISA is read when
// a session is made, so it is set before each one). Required (issue 10): each run ends in an
// output or a typed error (SessionError, ModelError, TensorError), and
//   - exact mode: every run succeeds or every run fails, and the outputs are bit-identical
//     between the engines, the thread counts and the paths;
//   - fast mode: on each path the outputs are bit-identical at 1, 2 and 4 threads (DESIGN.md:
//     fast mode stays independent of the thread count), and the engines agree on success and
//     on the outputs' element types and shapes.
// Crashes, sanitizer reports and hangs are caught by the caller's process (libFuzzer, ASan).
#pragma once

#include <chrono>
#include <string>

#include "diff/op_fuzz_case.hpp"

namespace onemodel::diff {

// What a passing case exercised: whether the reference engine produced outputs in each mode.
struct OpFuzzStats {
  bool exact_ran = false;
  bool fast_ran = false;
  std::string exact_error;  // the reference engine's refusal in exact mode, when it refused
  std::string fast_error;   // the same in fast mode
  // The case's runs passed its time budget and it was set aside unjudged (check_op_case).
  bool over_budget = false;
};

// Empty when the case passes, else what went wrong and where, with the case's description.
// `budget` bounds the wall time of the case's sessions and runs: the deadline is the case's start
// plus `budget`; no session is made once it has passed, and each run gets it as
// RunOptions::deadline. A session not made or a run stopped by it (SessionError(Cancelled)) sets
// the whole case aside, judged neither passing nor failing, with stats->over_budget set. A fuzzer
// needs this because a small file may legally ask for much work (800 nodes to compile, or a
// 2048x2048 MatMul from an Expand), which thirty-odd sessions under the sanitizers would carry past
// libFuzzer's per-input timeout, its sign of a hang. The default is no budget: every case is judged.
std::string check_op_case(const OpFuzzCase& c, OpFuzzStats* stats = nullptr,
                          std::chrono::steady_clock::duration budget = std::chrono::steady_clock::duration::max());

}  // namespace onemodel::diff
