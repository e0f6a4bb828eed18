// The optimized engine's runtime (graph-runtime.md sections 3 to 5): slab offsets, views,
// in-place reuse, constant evaluation, dynamic nodes, the 2 GiB refusal, the plan cache under
// eviction and concurrency, and allocation-free warm runs.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>
#include <optional>
#include <thread>

#include "onemodel/session.hpp"
#include "onemodel/session_error.hpp"
#include "optimized/frame/thread_pool.hpp"
#include "optimized/runtime/compiled_graph.hpp"
#include "optimized/runtime/plan.hpp"
#include "optimized/runtime/slab_allocator.hpp"
#include "diff/graph_builder.hpp"
#include "tests/kernels/two_threads.hpp"
#include "tests/support/same_outputs.hpp"
#include "tests/support/ir_builder.hpp"
#include "tests/support/plan_fixture.hpp"

// Counts heap allocations while `g_counting` is set.
#include "tests/support/counting_new.hpp"

namespace onemodel {
namespace {

using graph_builder::GraphBuilder;
using ir_builder::float_bits;
using ir_builder::int_attr;

Tensor ramp(const Shape& shape, float scale = 0.25f, float offset = -3.0f) {
  std::vector<float> v(static_cast<std::size_t>(shape.element_count()));
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = offset + scale * static_cast<float>(i % 29);
  return Tensor::from_values<float>(DType::F32, shape, v);
}

std::vector<Tensor> run_model(const IrModel& model, EngineKind engine, const std::vector<std::pair<std::string, Tensor>>& feeds,
                              int threads = 1, ExecutionMode mode = ExecutionMode::Exact) {
  SessionOptions options;
  options.engine = engine;
  options.mode = mode;
  options.intra_op_threads = threads;
  return Session::create(model, options).run(feeds);
}


using test::PlanFixture;

TEST(SlabAllocator, BestFitCoalescingAndGrowthAtTheEnd) {
  opt::SlabAllocator slab;
  EXPECT_EQ(slab.allocate(100), 0);    // 128 bytes
  EXPECT_EQ(slab.allocate(200), 128);  // 256 bytes
  EXPECT_EQ(slab.allocate(64), 384);
  EXPECT_EQ(slab.size(), 448);
  slab.release(0, 100);
  slab.release(384, 64);
  // Best fit: the 64-byte hole at 384, not the 128-byte one at 0.
  EXPECT_EQ(slab.allocate(10), 384);
  slab.release(384, 10);
  slab.release(128, 200);
  // 0..448 coalesced into one free block.
  ASSERT_EQ(slab.free_blocks().size(), 1u);
  EXPECT_EQ(slab.free_blocks().begin()->second, 448);
  // Too big for the free block that ends the slab: it grows from there.
  EXPECT_EQ(slab.allocate(1000), 0);
  EXPECT_EQ(slab.size(), 1024);
}

TEST(PlanMemory, AChainReusesBlocksAndKeepsResults) {
  GraphBuilder b;
  b.input("x", DType::F32, Shape{1024});
  std::string prev = "x";
  for (int i = 0; i < 10; ++i) {
    std::string next = "v";
    next += std::to_string(i);  // appended apart: g++ 12 -O3 gives a false -Wrestrict on "v" + string
    b.node(i % 2 == 0 ? "Relu" : "Neg", {prev}, {next});
    prev = next;
  }
  b.output(prev, DType::F32);
  const IrModel model = b.build();
  const Tensor x = ramp(Shape{1024});
  PlanFixture f(model, {x});
  // Two 4 KiB values are alive at once at most: one block is read while the next is written.
  EXPECT_LE(f.plan->slab_bytes(), 2 * 4096);
  EXPECT_GE(f.plan->slab_bytes(), 4096);
  test::expect_same_outputs(run_model(model, EngineKind::Optimized, {{"x", x}}), run_model(model, EngineKind::Reference, {{"x", x}}), "");
}

TEST(PlanMemory, OutputsNeverShareABlockWithAnInputTheyStillRead) {
  // y = x1 + x2 where x1 and x2 die at the Add: the output must not take either block unless in
  // place is allowed; the result must equal the reference either way.
  GraphBuilder b;
  b.input("x", DType::F32, Shape{64});
  b.node("Neg", {"x"}, {"a"}).node("Relu", {"x"}, {"c"}).node("Add", {"a", "c"}, {"y"}).output("y", DType::F32);
  const IrModel model = b.build();
  const Tensor x = ramp(Shape{64});
  PlanFixture f(model, {x});
  const auto& a = f.value("a");
  const auto& c = f.value("c");
  const auto& y = f.value("y");
  ASSERT_EQ(a.kind, opt::ValueKind::Slab);
  EXPECT_NE(a.offset, c.offset);
  if (y.offset == a.offset || y.offset == c.offset) {
    // Only through the kernel's in-place flag.
    EXPECT_GE(f.graph->nodes[2].kernel->in_place_input, 0);
  }
  test::expect_same_outputs(run_model(model, EngineKind::Optimized, {{"x", x}}), run_model(model, EngineKind::Reference, {{"x", x}}), "");
}

TEST(PlanMemory, ViewsShareTheirSourceAndConstantsFold) {
  // Reshape(Neg(x), Shape(z)): the target shape is a plan-time constant (Shape of a static
  // input), so Reshape is a view of Neg's block and nothing is shaped at run time.
  GraphBuilder b;
  b.input("x", DType::F32, Shape{6, 4});
  b.input("z", DType::F32, Shape{3, 8});
  b.node("Neg", {"x"}, {"n"}).node("Shape", {"z"}, {"s"}).node("Reshape", {"n", "s"}, {"r"});
  b.node("Relu", {"r"}, {"y"}).output("y", DType::F32);
  const IrModel model = b.build();
  const Tensor x = ramp(Shape{6, 4});
  const Tensor z = ramp(Shape{3, 8});
  PlanFixture f(model, {x, z});
  EXPECT_EQ(f.value("s").kind, opt::ValueKind::Constant);
  EXPECT_EQ(f.value("r").kind, opt::ValueKind::View);
  EXPECT_EQ(f.value("r").shape, (Shape{3, 8}));
  for (const auto& step : f.plan->steps()) EXPECT_FALSE(step.dynamic) << step.node->ir->op_type;
  // Relu reads the view, so Neg's block lives until Relu: its output may not overlap it.
  EXPECT_NE(f.value("y").offset, f.value("n").offset);
  const auto feeds = std::vector<std::pair<std::string, Tensor>>{{"x", x}, {"z", z}};
  test::expect_same_outputs(run_model(model, EngineKind::Optimized, feeds), run_model(model, EngineKind::Reference, feeds), "");
}

TEST(PlanMemory, LargeConstantResultsAreNotEvaluatedAtPlanTime) {
  // graph-runtime.md section 3 step 2: a result larger than both its inputs and 64 KiB is left
  // to the run; a small one is a constant.
  const Tensor one = Tensor::from_values<float>(DType::F32, Shape{1}, {1.5f});
  GraphBuilder b;
  b.input("x", DType::F32, Shape{1});
  b.initializer("one", one);
  b.initializer("big_shape", Tensor::from_values<std::int64_t>(DType::I64, Shape{1}, {100000}));
  b.initializer("small_shape", Tensor::from_values<std::int64_t>(DType::I64, Shape{1}, {100}));
  b.node("Expand", {"one", "big_shape"}, {"big"}).node("Expand", {"one", "small_shape"}, {"small"});
  b.node("Add", {"big", "x"}, {"y"}).node("Add", {"small", "x"}, {"w"});
  b.output("y", DType::F32).output("w", DType::F32);
  const IrModel model = b.build();
  const Tensor x = Tensor::from_values<float>(DType::F32, Shape{1}, {2.0f});
  PlanFixture f(model, {x});
  EXPECT_EQ(f.value("small").kind, opt::ValueKind::Constant);
  EXPECT_EQ(f.value("big").kind, opt::ValueKind::Slab);
  const auto feeds = std::vector<std::pair<std::string, Tensor>>{{"x", x}};
  test::expect_same_outputs(run_model(model, EngineKind::Optimized, feeds), run_model(model, EngineKind::Reference, feeds), "");
}

TEST(PlanMemory, DynamicNodesAreShapedEachRun) {
  // NonZero's output shape depends on values: it and everything after it are dynamic.
  GraphBuilder b(13);
  b.input("x", DType::F32, Shape{8});
  b.node("NonZero", {"x"}, {"nz"}).node("Cast", {"nz"}, {"f"}, {int_attr("to", 1)}).node("Neg", {"f"}, {"y"});
  b.output("y", DType::F32);
  const IrModel model = b.build();
  SessionOptions options;
  options.mode = ExecutionMode::Exact;
  Session s = Session::create(model, options);
  for (int zeros = 0; zeros < 4; ++zeros) {
    std::vector<float> v(8, 1.0f);
    for (int i = 0; i < zeros; ++i) v[static_cast<std::size_t>(2 * i)] = 0.0f;
    const Tensor x = Tensor::from_values<float>(DType::F32, Shape{8}, v);
    const auto got = s.run({{"x", x}});
    ASSERT_EQ(got[0].shape(), (Shape{1, 8 - zeros}));
    test::expect_same_outputs(got, run_model(model, EngineKind::Reference, {{"x", x}}), "");
  }
}

TEST(PlanMemory, ASlabOverTwoGibibytesIsRefusedBeforeAllocating) {
  // Two 1.6 GB values alive together: the plan is refused (Unsupported) before any memory.
  GraphBuilder b;
  b.input("x", DType::F32, Shape{1});
  b.initializer("shape", Tensor::from_values<std::int64_t>(DType::I64, Shape{1}, {400000000}));
  b.node("Expand", {"x", "shape"}, {"a"}).node("Neg", {"a"}, {"c"}).node("Add", {"a", "c"}, {"y"});
  b.output("y", DType::F32);
  const IrModel model = b.build();
  SessionOptions options;
  Session s = Session::create(model, options);
  const Tensor x = Tensor::from_values<float>(DType::F32, Shape{1}, {1.0f});
  try {
    s.run({{"x", x}});
    FAIL() << "expected SessionError(Unsupported)";
  } catch (const SessionError& e) {
    EXPECT_EQ(e.kind(), SessionErrorKind::Unsupported) << e.message();
    EXPECT_NE(e.message().find("2 GiB"), std::string::npos) << e.message();
  }
}

IrModel matmul_model(std::int64_t m = 4, std::int64_t k = 16, std::int64_t n = 8) {
  GraphBuilder b;
  b.input("x", DType::F32, Shape{m, k});
  b.initializer("w", ramp(Shape{k, n}, 0.125f, -1.0f));
  b.initializer("bias", ramp(Shape{n}, 0.5f, -2.0f));
  b.node("MatMul", {"x", "w"}, {"m"}).node("Add", {"m", "bias"}, {"a"}).node("Relu", {"a"}, {"y"});
  b.output("y", DType::F32);
  return b.build();
}

TEST(PlanCache, EvictionAndConcurrentRunsGiveTheReferenceBits) {
  GraphBuilder b;
  b.input_any_shape("x", DType::F32);
  b.node("Sigmoid", {"x"}, {"s"}).node("Mul", {"s", "x"}, {"m"}).node("Neg", {"m"}, {"y"}).output("y", DType::F32);
  const IrModel model = b.build();
  const std::vector<Shape> shapes{Shape{2, 3}, Shape{17}, Shape{4, 5, 6}, Shape{1000}};
  std::vector<std::vector<Tensor>> expected;
  for (const Shape& shape : shapes) expected.push_back(run_model(model, EngineKind::Reference, {{"x", ramp(shape)}}));

  // One cached plan: every shape change evicts the plan another thread may still be running.
  SessionOptions options;
  options.mode = ExecutionMode::Exact;
  options.max_cached_plans = 1;
  options.intra_op_threads = 2;
  Session session = Session::create(model, options);
  std::atomic<int> mismatches{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 60; ++i) {
        const std::size_t k = static_cast<std::size_t>((t + i) % 4);
        const auto got = session.run({{"x", ramp(shapes[k])}});
        const auto x = got[0].to_vector<float>();
        const auto y = expected[k][0].to_vector<float>();
        if (got[0].shape() != expected[k][0].shape() || std::memcmp(x.data(), y.data(), x.size() * 4) != 0) {
          mismatches.fetch_add(1);
        }
      }
    });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(mismatches.load(), 0);
}

// Plan rule 3 (graph-runtime.md section 5): an output takes its input's block only when that
// block dies at this step and nothing else shares it. In each graph below the in-place candidate
// (Neg of a) runs while a is still needed: read again by a later node, through a Reshape view
// of its block, or as a graph output. At every optimization level the optimized engine must give
// the reference's bits (mutants rt-06 and rt-07, which let the candidate overwrite a, survived the
// earlier tests).
TEST(InPlace, AValueStillNeededIsNeverOverwritten) {
  const Shape shape{4, 8};
  std::vector<std::pair<std::string, IrModel>> models;
  {
    GraphBuilder b(17);
    b.input("x", DType::F32, shape).node("Exp", {"x"}, {"a"}).node("Neg", {"a"}, {"r"});
    b.node("Add", {"a", "r"}, {"out"}).output("out", DType::F32);
    models.emplace_back("read again", b.build());
  }
  {
    GraphBuilder b(17);
    b.input("x", DType::F32, shape)
        .initializer("flat", Tensor::from_values<std::int64_t>(DType::I64, Shape{1}, {32}))
        .node("Exp", {"x"}, {"a"})
        .node("Reshape", {"a", "flat"}, {"v"})
        .node("Neg", {"a"}, {"r"})
        .node("Reshape", {"r", "flat"}, {"rv"})
        .node("Add", {"v", "rv"}, {"out"})
        .output("out", DType::F32);
    models.emplace_back("read through a view", b.build());
  }
  {
    GraphBuilder b(17);
    b.input("x", DType::F32, shape).node("Exp", {"x"}, {"a"}).node("Neg", {"a"}, {"r"});
    b.output("a", DType::F32).output("r", DType::F32);
    models.emplace_back("a graph output", b.build());
  }
  // r = -a, so an a overwritten by r changes every output element (a + r = 0 becomes -2a).
  const Tensor x = ramp(shape);
  for (const auto& [name, model] : models) {
    const auto expected = run_model(model, EngineKind::Reference, {{"x", x}});
    for (OptimizationLevel level : {OptimizationLevel::None, OptimizationLevel::Basic, OptimizationLevel::All}) {
      SCOPED_TRACE(name + " at level " + std::to_string(static_cast<int>(level)));
      SessionOptions options;
      options.mode = ExecutionMode::Exact;
      options.intra_op_threads = 1;
      options.optimization_level = level;
      test::expect_same_outputs(Session::create(model, options).run({{"x", x}}), expected, "");
    }
  }
}

TEST(PlanCache, ResultsDoNotDependOnThreadsOrOnWhetherThePlanWasNew) {
  // Results equal at 1, 2 and 3 intra-op threads and on a new or cached plan. A session's pool
  // shares by estimate, and on a loaded machine a parked worker may wake after the caller ran
  // every chunk (a first try with a 75 M multiply-add product was shared once in six runs), so the
  // multi-thread sessions of the large product are made with every call shared
  // (SessionsAlwaysShare) and the test requires that two threads ran some of its chunks.
  for (const bool large : {false, true}) {
    const IrModel model = large ? matmul_model(384, 512, 384) : matmul_model();
    const Tensor x = large ? ramp(Shape{384, 512}, 0.001f, -0.5f) : ramp(Shape{4, 16});
    const auto reference = run_model(model, EngineKind::Reference, {{"x", x}});
    for (int threads : {1, 2, 3}) {
      SessionOptions options;
      options.mode = ExecutionMode::Exact;
      options.intra_op_threads = threads;
      std::optional<opt::two_threads::SessionsAlwaysShare> split;
      if (large && threads > 1) split.emplace();
      Session s = Session::create(model, options);
      for (int repeat = 0; repeat < 3; ++repeat) test::expect_same_outputs(s.run({{"x", x}}), reference, "");
      if (split) split->require("the large product at " + std::to_string(threads) + " threads");
    }
  }
}

TEST(Allocation, AWarmSingleThreadedRunAllocatesNothing) {
  // graph-runtime.md section 4: once the plan exists and the pools are warm, a run on one
  // intra-op thread allocates nothing (inputs contiguous, outputs given by the caller).
  const IrModel model = matmul_model();
  SessionOptions options;
  options.mode = ExecutionMode::Exact;
  options.intra_op_threads = 1;
  Session session = Session::create(model, options);
  const std::vector<std::string> input_names{"x"};
  const std::vector<Tensor> inputs{ramp(Shape{4, 16})};
  const std::vector<std::string> output_names{"y"};
  std::vector<Tensor> outputs{Tensor::empty(DType::F32, Shape{4, 8})};
  session.run(input_names, inputs, output_names, outputs);  // makes the plan and a run state
  session.run(input_names, inputs, output_names, outputs);
  g_allocations = 0;
  g_counting = true;
  for (int i = 0; i < 5; ++i) session.run(input_names, inputs, output_names, outputs);
  g_counting = false;
  EXPECT_EQ(g_allocations.load(), 0);
  test::expect_same_outputs(outputs, run_model(model, EngineKind::Reference, {{"x", inputs[0]}}), "");
}

TEST(KernelPath, TheSessionReportsThePathAndTheCapLowersIt) {
  const IrModel model = matmul_model();
  SessionOptions options;
  setenv("ONEMODEL_ISA", "scalar", 1);
  const std::string capped = Session::create(model, options).kernel_path();
  unsetenv("ONEMODEL_ISA");
  EXPECT_EQ(capped, "Scalar");
  const std::string best = Session::create(model, options).kernel_path();
  EXPECT_EQ(best, std::string(opt::isa_path_name(opt::available_isas().back())));
  options.engine = EngineKind::Reference;
  EXPECT_EQ(Session::create(model, options).kernel_path(), "Reference");
}

TEST(Allocation, TheCounterSeesAllocations) {
  // The allocation test above can fail: the counter counts.
  g_allocations = 0;
  g_counting = true;
  auto* p = new std::vector<int>(100);
  g_counting = false;
  delete p;
  EXPECT_GE(g_allocations.load(), 2);
}

}  // namespace
}  // namespace onemodel
