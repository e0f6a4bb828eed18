// Findings of the operator fuzzer (fuzz/operators_fuzz.cpp), each as a plain test of the rule the
// library broke; the fuzzer's inputs are in fuzz/corpus/operators/regress-*.bin and replayed by
// operator_fuzz_property_test.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>

#include "diff/graph_builder.hpp"
#include "onemodel/session.hpp"
#include "onemodel/session_error.hpp"

namespace onemodel {
namespace {

using graph_builder::GraphBuilder;

SessionErrorKind refusal(const IrModel& model, EngineKind engine, ExecutionMode mode,
                         const std::vector<std::pair<std::string, Tensor>>& feeds) {
  SessionOptions options;
  options.engine = engine;
  options.mode = mode;
  try {
    (void)Session::create(model, options).run(feeds);
  } catch (const SessionError& e) {
    return e.kind();
  }
  ADD_FAILURE() << "the model ran";
  return SessionErrorKind::Disposed;
}

// Pad-11 with pads [0, INT64_MAX, 0, 2] on a [3, 3] input: the output extent 3 + INT64_MAX + 2
// was summed in int64 and wrapped (undefined behaviour; UBSan reported it). An extent beyond
// every limit is Unsupported (spec/session.md section 5), in both engines and modes.
TEST(OperatorFuzzRegressions, PadWithInt64MaxPadsIsRefusedNotWrapped) {
  const std::int64_t big = std::numeric_limits<std::int64_t>::max();
  GraphBuilder builder(11);
  builder.input("x", DType::F32, Shape{3, 3});
  builder.initializer("pads", Tensor::from_values<std::int64_t>(DType::I64, Shape{4}, {0, big, 0, 2}));
  builder.node("Pad", {"x", "pads"}, {"y"});
  builder.output("y", DType::F32);
  const IrModel model = builder.build();
  const std::vector<std::pair<std::string, Tensor>> feeds = {
      {"x", Tensor::zeros(DType::F32, Shape{3, 3})}};
  for (EngineKind engine : {EngineKind::Reference, EngineKind::Optimized}) {
    for (ExecutionMode mode : {ExecutionMode::Exact, ExecutionMode::Fast}) {
      EXPECT_EQ(refusal(model, engine, mode, feeds), SessionErrorKind::Unsupported);
    }
  }
}

}  // namespace
}  // namespace onemodel
