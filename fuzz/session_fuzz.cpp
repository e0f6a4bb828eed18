// The session fuzzer (issue 11): the input bytes are a model file, ONNX or OneModel. It is loaded
// through Session::load_bytes (the path a user's file takes), and then read, given inputs made
// from its declared types and shapes (diff/session_fuzz_case.hpp) and run through both engines in
// both modes at 1, 2 and 4 threads on every kernel path (diff/op_fuzz_check.hpp). Required: a typed
// error or an output, never a crash, sanitizer report, hang or other exception; in exact mode the
// engines, thread counts and paths agree bit for bit. Seeds: fuzz/corpus/session (hostile models
// of issue 11) and tools/fuzz/seed_session.sh (backend-test models, the samples, their OneModel
// conversions).
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>

#include "core/tensor/test_byte_limit.hpp"
#include "diff/op_fuzz_check.hpp"
#include "diff/session_fuzz_case.hpp"
#include "fuzz/fuzz_support.hpp"
#include "onemodel/error.hpp"
#include "onemodel/session.hpp"
#include "onemodel/session_error.hpp"
#include "onemodel/tensor_error.hpp"

// A model may legally ask for a 2 GB value from a small file (Expand, ConstantOfShape, Tile).
// Buffers above 16 MiB take the refusal path of buffers above 2^31-1 bytes, as in the operator
// fuzzer (core/tensor/test_byte_limit.hpp), so each execution stays small.
extern "C" int LLVMFuzzerInitialize(int*, char***) {
  onemodel::testing::set_buffer_byte_limit(std::int64_t{16} << 20);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace onemodel;
  try {
    SessionOptions options;
    options.engine = EngineKind::Reference;
    options.intra_op_threads = 1;
    options.max_loop_iterations = 1000;  // a fuzzed loop that never ends stops quickly (spec/values.md 5)
    (void)Session::load_bytes(fuzz::owned_view(data, size), "fuzz.model", options);
  } catch (const ModelError&) {
  } catch (const SessionError&) {
  } catch (const TensorError&) {
  } catch (const std::exception& e) {
    fuzz::finding("Session::load_bytes threw an untyped exception", e.what());
  }
  const diff::OpFuzzCase c = diff::build_session_case({data, size});
  diff::OpFuzzStats stats;
  const std::string finding = diff::check_op_case(c, &stats, fuzz::kCaseBudget);
  // ONEMODEL_SESSIONFUZZ_LOG=1: one line per file (what ran), to see what a corpus reaches.
  static const bool log = std::getenv("ONEMODEL_SESSIONFUZZ_LOG") != nullptr;
  if (log) {
    std::fprintf(stderr, "model exact=%d fast=%d%s %s | %s | %s | %s\n", stats.exact_ran ? 1 : 0,
                 stats.fast_ran ? 1 : 0, stats.over_budget ? " over-budget" : "",
                 c.description.c_str(), c.model_error.c_str(), stats.exact_error.c_str(), stats.fast_error.c_str());
  }
  if (!finding.empty()) fuzz::finding("session fuzzer", finding);
  return 0;
}
