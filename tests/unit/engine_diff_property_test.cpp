// Whole-graph differential property (DESIGN.md section 1): random small graphs
// (diff/random_graph.hpp) give the reference engine's exact bits in the optimized engine on every
// instruction-set path at 1 and 2 threads. A failing input's bytes are saved to
// build/counterexamples/graph-<hash>.bin; copied into tests/diff/graph-regressions/ they are
// replayed by the second test.
#include <gtest/gtest.h>
#include <rapidcheck.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "diff/op_harness.hpp"
#include "diff/random_graph.hpp"
#include "onemodel/session.hpp"
#include "onemodel/session_error.hpp"
#include "optimized/frame/isa.hpp"

namespace onemodel::diff {
namespace {

std::vector<Tensor> run_graph(const RandomGraph& graph, EngineKind engine, int threads, std::string& error) {
  try {
    SessionOptions options;
    options.mode = ExecutionMode::Exact;
    options.engine = engine;
    options.intra_op_threads = threads;
    return Session::create(graph.model, options).run(graph.feeds);
  } catch (const SessionError& e) {
    error = std::string(to_string(e.kind())) + ": " + e.message();
    return {};
  }
}

// Empty when every path and thread count gives the reference bits (or both engines refuse the
// graph with the same kind of error). `ran` is set when the reference produced outputs: a graph
// both engines throw on compares nothing, so the property counts the graphs that ran.
std::string engines_differ(const std::vector<std::uint8_t>& bytes, bool* ran = nullptr) {
  ByteSource source(bytes.data(), bytes.size());
  const RandomGraph graph = random_graph(source);
  std::string reference_error;
  const std::vector<Tensor> reference = run_graph(graph, EngineKind::Reference, 1, reference_error);
  if (ran != nullptr) *ran = reference_error.empty();
  std::string found;
  for (opt::Isa isa : opt::available_isas()) {
    // isa_name is a valid ONEMODEL_ISA cap for every path (avx512 included).
    setenv("ONEMODEL_ISA", std::string(opt::isa_name(isa)).c_str(), 1);
    for (int threads : {1, 2}) {
      std::string error;
      const std::vector<Tensor> optimized = run_graph(graph, EngineKind::Optimized, threads, error);
      const std::string where = std::string(opt::isa_name(isa)) + " at " + std::to_string(threads) + " thread(s), " +
                                graph.description + ": ";
      if (reference_error.empty() != error.empty()) {
        found = where + "reference '" + reference_error + "', optimized '" + error + "'";
      } else if (reference_error.empty()) {
        const std::string difference = first_difference(reference, optimized);
        if (!difference.empty()) found = where + difference;
      }
      if (!found.empty()) break;
    }
    if (!found.empty()) break;
  }
  unsetenv("ONEMODEL_ISA");
  return found;
}

void save_failure(const std::vector<std::uint8_t>& bytes) {
  std::uint64_t hash = 1469598103934665603ull;
  for (std::uint8_t b : bytes) hash = (hash ^ b) * 1099511628211ull;
  std::filesystem::create_directories("build/counterexamples");
  std::ofstream out("build/counterexamples/graph-" + std::to_string(hash) + ".bin", std::ios::binary);
  out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
}

TEST(EngineDiff, RandomGraphsGiveTheReferenceBitsEverywhere) {
  int graphs = 0, ran = 0;
  const bool ok = rc::check("random graphs: same exact bits", [&] {
    // Up to 4000 bytes: enough decisions for six operators and their weights.
    const int length = *rc::gen::inRange(0, 4000);
    const auto bytes = *rc::gen::container<std::vector<std::uint8_t>>(static_cast<std::size_t>(length),
                                                                     rc::gen::arbitrary<std::uint8_t>());
    bool graph_ran = false;
    const std::string difference = engines_differ(bytes, &graph_ran);
    ++graphs;
    if (graph_ran) ++ran;
    if (!difference.empty()) save_failure(bytes);
    RC_ASSERT(difference == std::string());
  });
  EXPECT_TRUE(ok);
  // Graphs both engines refuse pass the comparison vacuously: at least 90% must have run.
  EXPECT_GE(graphs, 1);
  EXPECT_GE(10 * ran, 9 * graphs) << ran << " of " << graphs << " random graphs produced outputs";
  std::printf("[ counts   ] %d of %d random graphs produced outputs\n", ran, graphs);
}

TEST(EngineDiff, SavedGraphRegressionsGiveTheReferenceBits) {
  const std::filesystem::path folder = std::filesystem::path(ONEMODEL_SOURCE_DIR) / "tests/diff/graph-regressions";
  int replayed = 0;
  for (const auto& entry : std::filesystem::directory_iterator(folder)) {
    if (entry.path().extension() != ".bin") continue;
    std::ifstream in(entry.path(), std::ios::binary);
    const std::vector<std::uint8_t> bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    EXPECT_EQ(engines_differ(bytes), "") << entry.path().filename();
    ++replayed;
  }
  EXPECT_GE(replayed, 1);
}

}  // namespace
}  // namespace onemodel::diff
