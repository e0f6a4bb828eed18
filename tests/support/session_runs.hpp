// One run of a model through a new session, for the graph and pass tests. Runs at two or more
// intra-op threads really use two threads: the session is made while a SessionsAlwaysShare lives
// (its pool shares every call of two or more chunks), and the calling test fails unless at least
// one call of the run had chunks run by two threads (issue 10: a "2 threads" run that stayed on
// the caller compared one thread with itself).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "onemodel/session.hpp"
#include "tests/kernels/two_threads.hpp"

namespace onemodel::test {

using Feeds = std::vector<std::pair<std::string, Tensor>>;

inline std::vector<Tensor> run_session(const IrModel& model, EngineKind engine, ExecutionMode mode,
                                       OptimizationLevel level, int threads, const Feeds& feeds) {
  SessionOptions options;
  options.engine = engine;
  options.mode = mode;
  options.optimization_level = level;
  options.intra_op_threads = threads;
  if (threads < 2 || engine != EngineKind::Optimized) return Session::create(model, options).run(feeds);
  const opt::two_threads::SessionsAlwaysShare split;
  std::vector<Tensor> outputs = Session::create(model, options).run(feeds);
  split.require(std::string("a run at ") + std::to_string(threads) + " intra-op threads");
  return outputs;
}

}  // namespace onemodel::test
