// Packed weights shared within a session (optimized/runtime/weight_packs.hpp, issue 15): nodes
// reading one constant matrix -- by its own name again, or through Identity views -- get one
// packed copy, made once. Checked by the bits (every reader's output is the reference engine's in
// exact mode on every path at 1 and 2 threads, and level All's equals level None's in fast mode)
// and by the count of packs a session makes while it is created and first run: one where every
// reader reads the matrix the same way, one per reader without sharing.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "diff/graph_builder.hpp"
#include "onemodel/session.hpp"
#include "optimized/frame/isa.hpp"
#include "optimized/runtime/weight_packs.hpp"
#include "tests/support/ir_builder.hpp"
#include "tests/support/same_outputs.hpp"
#include "tests/support/session_runs.hpp"

namespace onemodel {
namespace {

using graph_builder::GraphBuilder;
using ir_builder::int_attr;
using test::Feeds;

Tensor floats(const Shape& shape, std::uint32_t seed, float range = 4.0f) {
  std::vector<float> v(static_cast<std::size_t>(shape.element_count()));
  for (float& x : v) {
    seed = seed * 1664525u + 1013904223u;
    x = (static_cast<float>(seed >> 8) / 16777216.0f - 0.5f) * range;
  }
  return Tensor::from_values<float>(DType::F32, shape, v);
}

constexpr std::int64_t kM = 48, kK = 160, kN = 96;

// One weight W [K, N] read by five products: MatMul(x, W) and MatMul(x2, W) (the name read
// twice), MatMul(x, Identity(W)), Gemm(x, Identity(Identity(W))) with a bias, and a 3-D MatMul
// of x3 [2, M, K] through Identity; plus V [N, K] read by Gemm with transB = 1 (another layout:
// a pack of its own). At level All linear-pack-fuse makes each product a LinearOp; at level None
// the MatMul and Gemm overrides pack in prepare().
IrModel shared_weight_model() {
  GraphBuilder b(17);
  b.input("x", DType::F32, Shape{kM, kK})
      .input("x2", DType::F32, Shape{kM, kK})
      .input("x3", DType::F32, Shape{2, kM, kK})
      .initializer("w", floats(Shape{kK, kN}, 11))
      .initializer("v", floats(Shape{kN, kK}, 13))
      .initializer("c", floats(Shape{kN}, 17))
      .node("Identity", {"w"}, {"w1"})
      .node("Identity", {"w1"}, {"w2"})
      .node("MatMul", {"x", "w"}, {"y0"})
      .node("MatMul", {"x2", "w"}, {"y1"})
      .node("MatMul", {"x", "w1"}, {"y2"})
      .node("Gemm", {"x", "w2", "c"}, {"y3"})
      .node("MatMul", {"x3", "w1"}, {"y4"})
      .node("Gemm", {"x2", "v"}, {"y5"}, {int_attr("transB", 1)})
      .output("y0", DType::F32)
      .output("y1", DType::F32)
      .output("y2", DType::F32)
      .output("y3", DType::F32)
      .output("y4", DType::F32)
      .output("y5", DType::F32);
  return b.build();
}

Feeds feeds() {
  return {{"x", floats(Shape{kM, kK}, 3)}, {"x2", floats(Shape{kM, kK}, 5)}, {"x3", floats(Shape{2, kM, kK}, 7)}};
}

// The packs a session of `model` makes on this thread while it is created and first run.
std::uint64_t packs_made(const IrModel& model, OptimizationLevel level, ExecutionMode mode, int threads) {
  const std::uint64_t before = opt::WeightPacks::packs_made_on_this_thread();
  (void)test::run_session(model, EngineKind::Optimized, mode, level, threads, feeds());
  return opt::WeightPacks::packs_made_on_this_thread() - before;
}

TEST(SharedWeightPacks, EveryReaderOfOneWeightGetsTheReferenceBits) {
  const test::RequireSplit two_thread_runs_split;
  const IrModel model = shared_weight_model();
  const auto reference =
      test::run_session(model, EngineKind::Reference, ExecutionMode::Exact, OptimizationLevel::All, 1, feeds());
  for (const opt::Isa path : opt::available_isas()) {
    const std::string isa(opt::isa_name(path));
    ::setenv("ONEMODEL_ISA", isa.c_str(), 1);
    for (const ExecutionMode mode : {ExecutionMode::Fast, ExecutionMode::Exact}) {
      const auto unfused = test::run_session(model, EngineKind::Optimized, mode, OptimizationLevel::None, 1, feeds());
      for (const OptimizationLevel level : {OptimizationLevel::None, OptimizationLevel::All}) {
        for (int threads : {1, 2}) {
          const std::string where = isa + (mode == ExecutionMode::Exact ? " exact" : " fast") +
                                    (level == OptimizationLevel::All ? " level All" : " level None") + " threads " +
                                    std::to_string(threads);
          const auto got = test::run_session(model, EngineKind::Optimized, mode, level, threads, feeds());
          if (mode == ExecutionMode::Exact) test::expect_same_outputs(got, reference, "reference, " + where);
          test::expect_same_outputs(got, unfused, "level None one thread, " + where);
        }
      }
    }
  }
  ::unsetenv("ONEMODEL_ISA");
}

TEST(SharedWeightPacks, OnePackPerWeightAndLayout) {
  // W is read five times the same way (two of them through one Identity, one through two, one as
  // the only matrix of a batched product): one pack. V is read transposed: one more. Without
  // sharing (or with Identity copying W) the session makes six.
  const IrModel model = shared_weight_model();
  for (const OptimizationLevel level : {OptimizationLevel::None, OptimizationLevel::All}) {
    for (const ExecutionMode mode : {ExecutionMode::Fast, ExecutionMode::Exact}) {
      for (int threads : {1, 2}) {
        EXPECT_EQ(packs_made(model, level, mode, threads), 2u)
            << (level == OptimizationLevel::All ? "level All" : "level None")
            << (mode == ExecutionMode::Exact ? " exact" : " fast") << " threads " << threads;
      }
    }
  }
}

TEST(SharedWeightPacks, SessionsDoNotShareAndReleasedPacksAreMadeAgain) {
  // The table is the session's: a second session packs its weights itself, and a pack nobody
  // holds any more is never handed out (the first session is gone before the second is made).
  const IrModel model = shared_weight_model();
  EXPECT_EQ(packs_made(model, OptimizationLevel::All, ExecutionMode::Exact, 1), 2u);
  EXPECT_EQ(packs_made(model, OptimizationLevel::All, ExecutionMode::Exact, 1), 2u);
}

}  // namespace
}  // namespace onemodel
