// One run of a model through a new session, for the graph and pass tests, and the proof that
// their "2 threads" runs used two threads (issue 10: a two-thread run that stayed on the caller
// compared one thread with itself). A run at two or more intra-op threads is made while a
// SessionsAlwaysShare lives (its pool shares every call of two or more chunks) and is counted,
// with whether some call of it had chunks run by two threads. A test declares a RequireSplit at
// its top: at its end the test fails if it made two-thread runs and none of them was split.
// Single runs may stay on one thread (a graph too small for two chunks); a whole test may not.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "onemodel/session.hpp"
#include "tests/kernels/two_threads.hpp"

namespace onemodel::test {

using Feeds = std::vector<std::pair<std::string, Tensor>>;

struct SplitTally {
  std::uint64_t runs = 0;   // optimized-engine runs at two or more threads
  std::uint64_t split = 0;  // of those, runs with a call shared by two threads
};

inline SplitTally& split_tally() {
  static SplitTally tally;
  return tally;
}

inline std::vector<Tensor> run_session(const IrModel& model, EngineKind engine, ExecutionMode mode,
                                       OptimizationLevel level, int threads, const Feeds& feeds) {
  SessionOptions options;
  options.engine = engine;
  options.mode = mode;
  options.optimization_level = level;
  options.intra_op_threads = threads;
  if (threads < 2 || engine != EngineKind::Optimized) return Session::create(model, options).run(feeds);
  const opt::two_threads::SessionsAlwaysShare sharing;
  std::vector<Tensor> outputs = Session::create(model, options).run(feeds);
  ++split_tally().runs;
  if (sharing.shared_calls() > 0) ++split_tally().split;
  return outputs;
}

class RequireSplit {
 public:
  RequireSplit() : before_(split_tally()) {}
  ~RequireSplit() {
    const std::uint64_t runs = split_tally().runs - before_.runs;
    const std::uint64_t split = split_tally().split - before_.split;
    if (runs > 0) {
      opt::two_threads::require_shared(split, std::to_string(runs) + " runs at two threads, " + std::to_string(split) +
                                                  " of them split");
    }
  }
  RequireSplit(const RequireSplit&) = delete;
  RequireSplit& operator=(const RequireSplit&) = delete;

 private:
  SplitTally before_;
};

}  // namespace onemodel::test
