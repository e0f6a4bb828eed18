// Run control (spec/session.md section 8, issue 11 defect 7): a run cancelled from another thread,
// or past its deadline, ends with Cancelled in both engines and both modes; a deadline already
// passed stops the run before any node; a deadline far ahead changes no bit; a cancelled run
// leaves the session able to run again with the same results.
#include <gtest/gtest.h>

#include <chrono>
#include <cstring>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

#include "core/ir/resolve.hpp"
#include "onemodel/session.hpp"
#include "tests/support/ir_builder.hpp"

namespace onemodel {
namespace {

using namespace ir_builder;
using Clock = std::chrono::steady_clock;

// x float[1] -> Expand to [n, n] (a small file, a large product) -> a chain of `k` MatMuls,
// m1 = A A, m2 = m1 A, ... With x = 1/n every product is A again, so the output is finite.
IrModel matmul_chain_model(std::int64_t n, int k) {
  IrModel m = expanded_input_model(1, {n, n}, "a");
  std::string previous = "a";
  for (int i = 0; i < k; ++i) {
    const std::string out = i + 1 == k ? "y" : "m" + std::to_string(i);
    IrNode product = node("MatMul", {previous, "a"}, {out});
    product.name = "matmul_" + std::to_string(i);
    m.graph.nodes.push_back(product);
    previous = out;
  }
  m.graph.outputs = {tensor_value_info("y", 1, {fixed_dim(n), fixed_dim(n)})};
  resolve_model(m, FieldPathStyle::Onnx);
  return m;
}

std::vector<std::pair<std::string, Tensor>> feed(std::int64_t n) {
  return {{"x", Tensor::from_values<float>(DType::F32, Shape{1}, {1.0f / static_cast<float>(n)})}};
}

Session make(const IrModel& model, EngineKind engine, ExecutionMode mode, int threads = 2) {
  SessionOptions options;
  options.engine = engine;
  options.mode = mode;
  options.intra_op_threads = threads;
  return Session::create(model, options);
}

bool same_bits(const Tensor& a, const Tensor& b) {
  if (!(a.shape() == b.shape()) || a.dtype() != b.dtype()) return false;
  const std::vector<float> x = a.to_vector<float>();
  const std::vector<float> y = b.to_vector<float>();
  return std::memcmp(x.data(), y.data(), x.size() * sizeof(float)) == 0;
}

SessionErrorKind kind_of_run(const Session& session, const std::vector<std::pair<std::string, Tensor>>& inputs,
                             const RunOptions& options) {
  try {
    session.run(inputs, options);
  } catch (const SessionError& e) {
    return e.kind();
  }
  return SessionErrorKind::Disposed;  // stands for "no error": never thrown by these runs
}

class Cancellation : public ::testing::TestWithParam<std::tuple<EngineKind, ExecutionMode>> {
 protected:
  EngineKind engine() const { return std::get<0>(GetParam()); }
  ExecutionMode mode() const { return std::get<1>(GetParam()); }
};

TEST_P(Cancellation, ALongRunCancelledFromAnotherThreadEndsCancelled) {
  // 48 products of 384 x 384 (about 2.7 G multiply-adds): seconds in the Checked build, about 20 ms
  // in a Release build at two threads on a fast core, so the other thread cancels after 2 ms (a
  // token cancelled before the run starts also ends it cancelled).
  const std::int64_t n = 384;
  const Session session = make(matmul_chain_model(n, 48), engine(), mode());
  CancelToken token;
  RunOptions options;
  options.cancel = &token;
  std::thread canceller([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
    token.cancel();
  });
  const SessionErrorKind kind = kind_of_run(session, feed(n), options);
  canceller.join();
  EXPECT_EQ(kind, SessionErrorKind::Cancelled);
}

TEST_P(Cancellation, AfterARunCancelledMidwayTheSessionRunsAgainWithTheSameBits) {
  // Cancelled at different points of a run (or not at all, when the run is quicker than the
  // delay): whatever the run left in the session (its plan, its run state, its arena), the next
  // run without a token gives the bits of a new session.
  const std::int64_t n = 96;
  const IrModel model = matmul_chain_model(n, 12);
  const std::vector<Tensor> expected = make(model, engine(), mode()).run(feed(n));
  const Session session = make(model, engine(), mode());
  for (int delay_us : {0, 200, 1000, 3000, 10000}) {
    CancelToken token;
    RunOptions options;
    options.cancel = &token;
    std::thread canceller([&] {
      std::this_thread::sleep_for(std::chrono::microseconds(delay_us));
      token.cancel();
    });
    try {
      session.run(feed(n), options);
    } catch (const SessionError& e) {
      EXPECT_EQ(e.kind(), SessionErrorKind::Cancelled) << e.what();
    }
    canceller.join();
    const std::vector<Tensor> after = session.run(feed(n));
    ASSERT_EQ(after.size(), 1u);
    EXPECT_TRUE(same_bits(after[0], expected[0])) << "after a cancel at " << delay_us << " us";
    // A reset token runs to the end too.
    token.reset();
    EXPECT_TRUE(same_bits(session.run(feed(n), options)[0], expected[0]));
  }
  // The product of matrices of 1/n is the same matrix (ONNX MatMul), up to rounding.
  EXPECT_NEAR(expected[0].to_vector<float>()[5], 1.0f / static_cast<float>(n), 1e-6f);
}

TEST_P(Cancellation, ADeadlineAlreadyPassedStopsTheRunBeforeAnyNode) {
  // A one-byte memory limit refuses the first allocation of any node (ResourceExhausted); with a
  // deadline already passed the run is Cancelled instead, so no node began.
  SessionOptions options;
  options.engine = engine();
  options.mode = mode();
  options.memory_limit_bytes = 1;
  const Session session = Session::create(matmul_chain_model(16, 2), options);
  EXPECT_EQ(kind_of_run(session, feed(16), RunOptions{}), SessionErrorKind::ResourceExhausted);
  RunOptions past;
  past.deadline = Clock::now() - std::chrono::seconds(1);
  EXPECT_EQ(kind_of_run(session, feed(16), past), SessionErrorKind::Cancelled);
  CancelToken token;
  token.cancel();
  RunOptions cancelled;
  cancelled.cancel = &token;
  EXPECT_EQ(kind_of_run(session, feed(16), cancelled), SessionErrorKind::Cancelled);
}

TEST_P(Cancellation, ADeadlineFarAheadChangesNoBit) {
  const IrModel model = matmul_chain_model(48, 4);
  const Session session = make(model, engine(), mode());
  const std::vector<Tensor> plain = session.run(feed(48));
  CancelToken token;
  RunOptions options;
  options.cancel = &token;
  options.deadline = Clock::now() + std::chrono::hours(1);
  const std::vector<Tensor> controlled = session.run(feed(48), options);
  ASSERT_EQ(plain.size(), 1u);
  ASSERT_EQ(controlled.size(), 1u);
  EXPECT_TRUE(same_bits(plain[0], controlled[0]));
}

TEST_P(Cancellation, ADeadlineThatPassesDuringALongRunEndsItCancelled) {
  const std::int64_t n = 384;
  const Session session = make(matmul_chain_model(n, 48), engine(), mode());
  RunOptions options;
  options.deadline = Clock::now() + std::chrono::milliseconds(20);
  EXPECT_EQ(kind_of_run(session, feed(n), options), SessionErrorKind::Cancelled);
}

INSTANTIATE_TEST_SUITE_P(
    EnginesAndModes, Cancellation,
    ::testing::Combine(::testing::Values(EngineKind::Optimized, EngineKind::Reference),
                       ::testing::Values(ExecutionMode::Fast, ExecutionMode::Exact)),
    [](const auto& info) {
      return std::string(std::get<0>(info.param) == EngineKind::Optimized ? "Optimized" : "Reference") +
             (std::get<1>(info.param) == ExecutionMode::Fast ? "Fast" : "Exact");
    });

TEST(RunControlVisit, ACancelledVisitingRunShowsNoOutput) {
  const Session session = make(matmul_chain_model(16, 2), EngineKind::Optimized, ExecutionMode::Exact);
  CancelToken token;
  token.cancel();
  RunOptions options;
  options.cancel = &token;
  const std::vector<std::string> input_names{"x"}, output_names{"y"};
  const std::vector<Tensor> inputs{feed(16)[0].second};
  int seen = 0;
  try {
    session.run_visit(input_names, inputs, output_names, [&](std::size_t, const Tensor&) { ++seen; }, options);
    FAIL() << "a cancelled run finished";
  } catch (const SessionError& e) {
    EXPECT_EQ(e.kind(), SessionErrorKind::Cancelled);
  }
  EXPECT_EQ(seen, 0);
}

}  // namespace
}  // namespace onemodel
