// The operator fuzzer (issue 10): the input bytes choose a row of the operator table and build a
// one-node model from it (diff/op_fuzz_case.hpp: attributes inside and outside the schema, ranks 0
// to 6 with zero-size axes and broadcasting, extreme integers, NaN, infinities, subnormals, -0);
// diff/op_fuzz_check.hpp runs it through both engines in both modes at 1, 2 and 4 threads on every
// kernel path. A run must end in an output or a typed error; exact-mode bits must agree
// everywhere. Anything else aborts with the case's description, and libFuzzer keeps the input.
#include <cstdint>
#include <cstdio>
#include <cstdlib>

#include "core/tensor/test_byte_limit.hpp"
#include "diff/op_fuzz_case.hpp"
#include "diff/op_fuzz_check.hpp"
#include "fuzz/fuzz_support.hpp"

// Inputs hold at most 4096 elements, but a node may legally ask for a 2 GB output (Expand,
// Range, Resize). Buffers above 16 MiB take the same refusal path as buffers above 2^31-1 bytes
// (core/tensor/test_byte_limit.hpp), so every execution stays small and fast.
extern "C" int LLVMFuzzerInitialize(int*, char***) {
  onemodel::testing::set_buffer_byte_limit(std::int64_t{16} << 20);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  onemodel::diff::ByteSource source(data, size);
  const onemodel::diff::OpFuzzCase c = onemodel::diff::build_op_case(source);
  onemodel::diff::OpFuzzStats stats;
  const std::string finding = onemodel::diff::check_op_case(c, &stats, onemodel::fuzz::kCaseBudget);
  // ONEMODEL_OPFUZZ_LOG=1: one line per case (what ran), to see what a corpus covers.
  static const bool log = std::getenv("ONEMODEL_OPFUZZ_LOG") != nullptr;
  if (log) {
    std::fprintf(stderr, "case exact=%d fast=%d%s %s%s\n", stats.exact_ran ? 1 : 0, stats.fast_ran ? 1 : 0,
                 stats.over_budget ? " over-budget" : "",
                 c.description.c_str(), (" | " + c.model_error + " | " + stats.exact_error + " | " + stats.fast_error).c_str());
  }
  if (!finding.empty()) onemodel::fuzz::finding("operator fuzzer", finding);
  return 0;
}
