// Findings of the operator fuzzer (fuzz/operators_fuzz.cpp), each as a plain test of the rule the
// library broke; the fuzzer's inputs are in fuzz/corpus/operators/regress-*.bin and replayed by
// operator_fuzz_property_test.
#include <gtest/gtest.h>

#include <chrono>
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

// Upsample-9 (and Resize) on an input with a zero-size axis and a scale of 5e7 on the other: the
// output [0, 1e8] is empty, yet both engines built the other axis's tap table, one entry per
// output index (10^8 entries with a vector each: seconds and gigabytes; the fuzzer's input took
// 21 s). An empty output is now returned at once. The bound is generous for a loaded machine; the
// fixed code takes milliseconds.
TEST(OperatorFuzzRegressions, ResampleOfAnEmptyOutputBuildsNoTapTables) {
  GraphBuilder builder(9);
  builder.input("x", DType::F32, Shape{0, 2});
  builder.initializer("scales", Tensor::from_values<float>(DType::F32, Shape{2}, {1.0f, 5.0e7f}));
  builder.node("Upsample", {"x", "scales"}, {"y"});
  builder.output("y", DType::F32);
  const IrModel model = builder.build();
  const std::vector<std::pair<std::string, Tensor>> feeds = {{"x", Tensor::zeros(DType::F32, Shape{0, 2})}};
  for (EngineKind engine : {EngineKind::Reference, EngineKind::Optimized}) {
    for (ExecutionMode mode : {ExecutionMode::Exact, ExecutionMode::Fast}) {
      SessionOptions options;
      options.engine = engine;
      options.mode = mode;
      const auto start = std::chrono::steady_clock::now();
      const std::vector<Tensor> y = Session::create(model, options).run(feeds);
      const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      ASSERT_EQ(y.size(), 1u);
      EXPECT_EQ(y[0].shape(), (Shape{0, 100000000}));
      EXPECT_LT(seconds, 2.0);
    }
  }
}

// EyeLike on an input with a zero-size axis: the empty output's storage is null and the kernel
// called memset(nullptr, 0, 0), undefined behaviour that UBSan reports (found by the operator
// fuzzer's third long run, fuzz/corpus/operators/regress-eyelike-empty.bin). The output is the
// empty tensor of the input's shape, in both engines and modes; this test fails under the
// Checked build's UBSan without the fix.
TEST(OperatorFuzzRegressions, EyeLikeOfAnEmptyInputIsEmpty) {
  for (const Shape& shape : {Shape{0, 3}, Shape{2, 0}}) {
    GraphBuilder builder(9);
    builder.input("x", DType::F32, shape);
    builder.node("EyeLike", {"x"}, {"y"});
    builder.output("y", DType::F32);
    const IrModel model = builder.build();
    for (EngineKind engine : {EngineKind::Reference, EngineKind::Optimized}) {
      for (ExecutionMode mode : {ExecutionMode::Exact, ExecutionMode::Fast}) {
        SessionOptions options;
        options.engine = engine;
        options.mode = mode;
        const auto out = Session::create(model, options).run({{"x", Tensor::zeros(DType::F32, shape)}});
        ASSERT_EQ(out.size(), 1u);
        EXPECT_EQ(out[0].shape(), shape);
        EXPECT_EQ(out[0].element_count(), 0);
      }
    }
  }
}

// ScatterElements with an index near INT64_MAX: the offset k * stride was formed before the
// range check refused k (signed overflow, UBSan; found by the operator fuzzer's fourth long run).
// An index outside [-n, n) is InvalidInput (spec/errors.md), in both engines and modes.
TEST(OperatorFuzzRegressions, ScatterElementsIndexNearInt64MaxIsRefusedWithoutOverflow) {
  for (const std::int64_t k : {std::numeric_limits<std::int64_t>::max(), std::numeric_limits<std::int64_t>::min()}) {
    GraphBuilder builder(18);
    builder.input("data", DType::F32, Shape{3, 3});
    builder.input("indices", DType::I64, Shape{1, 2});
    builder.input("updates", DType::F32, Shape{1, 2});
    builder.node("ScatterElements", {"data", "indices", "updates"}, {"y"});
    builder.output("y", DType::F32);
    const IrModel model = builder.build();
    const std::vector<std::pair<std::string, Tensor>> feeds{
        {"data", Tensor::zeros(DType::F32, Shape{3, 3})},
        {"indices", Tensor::from_values<std::int64_t>(DType::I64, Shape{1, 2}, {1, k})},
        {"updates", Tensor::from_values<float>(DType::F32, Shape{1, 2}, {1.0f, 2.0f})}};
    for (EngineKind engine : {EngineKind::Reference, EngineKind::Optimized}) {
      for (ExecutionMode mode : {ExecutionMode::Exact, ExecutionMode::Fast}) {
        EXPECT_EQ(refusal(model, engine, mode, feeds), SessionErrorKind::InvalidInput) << k;
      }
    }
  }
}

}  // namespace
}  // namespace onemodel
