// The engines fuzzer (DESIGN.md section 1, differential gating): the input bytes choose a small
// random float32 graph (diff/random_graph.hpp); it runs in exact mode in the reference engine and
// in the optimized engine on every instruction-set path the machine has, at 1 and 2 threads. Any
// difference in any bit of any output, or an error in one engine and not the other, is a finding.
#include <cstdlib>
#include <string>
#include <vector>

#include "diff/op_harness.hpp"
#include "diff/random_graph.hpp"
#include "fuzz/fuzz_support.hpp"
#include "onemodel/session.hpp"
#include "onemodel/session_error.hpp"
#include "optimized/frame/isa.hpp"

namespace {

using onemodel::ExecutionMode;
using onemodel::Session;
using onemodel::SessionError;
using onemodel::SessionOptions;
using onemodel::Tensor;

struct Outcome {
  bool ok = false;
  std::string error;
  std::vector<Tensor> outputs;
};

Outcome run(const onemodel::diff::RandomGraph& graph, onemodel::EngineKind engine, int threads) {
  Outcome outcome;
  try {
    SessionOptions options;
    options.mode = ExecutionMode::Exact;
    options.engine = engine;
    options.intra_op_threads = threads;
    Session session = Session::create(graph.model, options);
    outcome.outputs = session.run(graph.feeds);
    outcome.ok = true;
  } catch (const SessionError& e) {
    outcome.error = std::string(onemodel::to_string(e.kind())) + ": " + e.message();
  }
  return outcome;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  onemodel::diff::ByteSource source(data, size);
  const onemodel::diff::RandomGraph graph = onemodel::diff::random_graph(source);
  const Outcome reference = run(graph, onemodel::EngineKind::Reference, 1);
  for (onemodel::opt::Isa isa : onemodel::opt::available_isas()) {
    // isa_name is a valid ONEMODEL_ISA cap for every path (avx512 included).
    setenv("ONEMODEL_ISA", std::string(onemodel::opt::isa_name(isa)).c_str(), 1);
    for (int threads : {1, 2}) {
      const Outcome optimized = run(graph, onemodel::EngineKind::Optimized, threads);
      const std::string where = std::string(onemodel::opt::isa_name(isa)) + " at " + std::to_string(threads) +
                                " thread(s), graph: " + graph.description;
      if (reference.ok != optimized.ok) {
        onemodel::fuzz::finding("one engine failed and the other did not",
                                where + "\nreference: " + reference.error + "\noptimized: " + optimized.error);
      }
      if (!reference.ok) continue;
      const std::string difference = onemodel::diff::first_difference(reference.outputs, optimized.outputs);
      if (!difference.empty()) onemodel::fuzz::finding("the engines' exact bits differ", where + "\n" + difference);
    }
  }
  unsetenv("ONEMODEL_ISA");
  return 0;
}
