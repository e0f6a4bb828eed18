// Run profiles (issue 15; onemodel/run_profile.hpp): a RunProfile given in RunOptions records
// every executed node of the main graph once per run, in both engines and modes, at one and two
// threads, without changing a bit of the results; the reference engine's nodes are the model's,
// all reference kernels; the optimized engine labels the linear-pack-fuse node (counted in the
// compiled graph) fused and the operators with an override (find_optimized_op) optimized; timed
// runs after warm-up and reserve() do not grow the profile's storage, and a warm profiled run on
// one thread allocates nothing (as a warm run without a profile, graph-runtime.md section 4);
// class_name() reads the class's own name from a type_info.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <new>
#include <set>
#include <tuple>
#include <utility>

#include "diff/graph_builder.hpp"
#include "onemodel/run_profile.hpp"
#include "onemodel/session.hpp"
#include "optimized/frame/thread_pool.hpp"
#include "optimized/ops/optimized_kernel.hpp"
#include "optimized/runtime/compiled_graph.hpp"
#include "optimized/runtime/node_profile.hpp"
#include "tests/support/compiled_kernels.hpp"

// Counts heap allocations while `g_counting` is set.
#include "tests/support/counting_new.hpp"

namespace onemodel {
namespace {

using graph_builder::GraphBuilder;
using Feeds = std::vector<std::pair<std::string, Tensor>>;

Tensor values(const Shape& shape, std::uint32_t seed) {
  std::vector<float> v(static_cast<std::size_t>(shape.element_count()));
  std::uint32_t state = seed;
  for (float& x : v) {
    state = state * 1664525u + 1013904223u;
    x = (static_cast<float>(state >> 8) / 16777216.0f - 0.5f) * 4.0f;
  }
  return Tensor::from_values<float>(DType::F32, shape, v);
}

// x[4,8] -> MatMul W[8,6] -> Add b[6] -> Relu (linear-pack-fuse: one LinearOp in both modes) ->
// Reshape to [6,4] (a view step) -> Softmax -> Neg.
IrModel small_model() {
  GraphBuilder b(17);
  b.input("x", DType::F32, Shape{4, 8})
      .initializer("w", values(Shape{8, 6}, 1))
      .initializer("bias", values(Shape{6}, 2))
      .initializer("shape", Tensor::from_values<std::int64_t>(DType::I64, Shape{2}, {6, 4}))
      .node("MatMul", {"x", "w"}, {"y"})
      .node("Add", {"y", "bias"}, {"z"})
      .node("Relu", {"z"}, {"r"})
      .node("Reshape", {"r", "shape"}, {"s"})
      .node("Softmax", {"s"}, {"p"})
      .node("Neg", {"p"}, {"out"})
      .output("out", DType::F32);
  return b.build();
}

Feeds feeds() { return {{"x", values(Shape{4, 8}, 3)}}; }

Session make(const IrModel& model, EngineKind engine, ExecutionMode mode, int threads) {
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

class Profiling : public ::testing::TestWithParam<std::tuple<EngineKind, ExecutionMode, int>> {
 protected:
  EngineKind engine() const { return std::get<0>(GetParam()); }
  ExecutionMode mode() const { return std::get<1>(GetParam()); }
  int threads() const { return std::get<2>(GetParam()); }
};

TEST_P(Profiling, EveryNodeOncePerRunAndTheSameBits) {
  const IrModel model = small_model();
  const Session session = make(model, engine(), mode(), threads());
  const std::vector<Tensor> plain = session.run(feeds());
  RunProfile profile;
  RunOptions options;
  options.profile = &profile;
  constexpr std::uint32_t kRuns = 4;
  for (std::uint32_t r = 0; r < kRuns; ++r) {
    const std::vector<Tensor> profiled = session.run(feeds(), options);
    ASSERT_EQ(profiled.size(), plain.size());
    for (std::size_t k = 0; k < plain.size(); ++k) EXPECT_TRUE(same_bits(plain[k], profiled[k])) << "run " << r;
  }
  EXPECT_EQ(profile.runs(), kRuns);
  const std::size_t nodes = profile.nodes().size();
  ASSERT_GT(nodes, 0u);
  EXPECT_LE(nodes, model.graph.nodes.size());
  ASSERT_EQ(profile.timings().size(), kRuns * nodes);
  std::set<std::pair<std::uint32_t, std::uint32_t>> seen;
  std::int64_t previous_end = 0;
  for (std::size_t k = 0; k < profile.timings().size(); ++k) {
    const NodeTiming& timing = profile.timings()[k];
    ASSERT_LT(timing.node, nodes);
    EXPECT_TRUE(seen.insert({timing.run, timing.node}).second) << "run " << timing.run << " node " << timing.node;
    // One thread runs the nodes one after another: each starts after the previous one ended.
    EXPECT_EQ(timing.run, k / nodes);
    EXPECT_EQ(timing.node, k % nodes) << "nodes in the order they first ran";
    EXPECT_EQ(timing.thread, 0u);
    EXPECT_GE(timing.duration_ns, 0);
    EXPECT_GE(timing.start_ns, previous_end);
    previous_end = timing.start_ns + timing.duration_ns;
  }
  // A run without the profile records nothing into it.
  session.run(feeds());
  EXPECT_EQ(profile.timings().size(), kRuns * nodes);
  EXPECT_EQ(profile.runs(), kRuns);
}

TEST_P(Profiling, NodesAreLabelledByWhatRunsThem) {
  const IrModel model = small_model();
  const Session session = make(model, engine(), mode(), threads());
  RunProfile profile;
  RunOptions options;
  options.profile = &profile;
  session.run(feeds(), options);
  const std::vector<ProfiledNode>& nodes = profile.nodes();
  if (engine() == EngineKind::Reference) {
    // Every node of the model, in its order, each run by its reference kernel.
    ASSERT_EQ(nodes.size(), model.graph.nodes.size());
    for (std::size_t k = 0; k < nodes.size(); ++k) {
      EXPECT_EQ(nodes[k].name, model.graph.nodes[k].name);
      EXPECT_EQ(nodes[k].op_type, model.graph.nodes[k].op_type);
      EXPECT_EQ(nodes[k].model_op_type, model.graph.nodes[k].op_type);
      EXPECT_EQ(nodes[k].kind, NodeKernelKind::Reference);
      EXPECT_EQ(nodes[k].kernel_path, "reference");
    }
    return;
  }
  // The compiled graph of the same options tells which nodes linear-pack-fuse made.
  SessionOptions compile_options;
  compile_options.mode = mode();
  opt::ThreadPool pool(1);
  const auto graph = opt::compile_graph(model, compile_options, opt::OptimizedConfig{opt::Isa::Scalar, &pool});
  const std::size_t linear_ops = test::count_kernels(*graph, "LinearOp");
  // linear-pack-fuse preserves bits, so it runs in both modes (graph_passes.cpp).
  EXPECT_EQ(linear_ops, 1u) << "the model no longer fuses as the test expects";
  std::size_t fused = 0;
  for (const ProfiledNode& node : nodes) {
    EXPECT_EQ(node.kernel_path == "reference", node.kind == NodeKernelKind::Reference) << node.op_type;
    if (node.kind != NodeKernelKind::Reference) {
      EXPECT_EQ(node.kernel_path, session.kernel_path()) << node.op_type;
    }
    if (node.kind == NodeKernelKind::Fused) {
      ++fused;
      EXPECT_EQ(node.op_type, "LinearOp");
      continue;
    }
    EXPECT_EQ(node.op_type, node.model_op_type);
    const bool overridden = opt::find_optimized_op("", node.op_type, 17) != nullptr;
    EXPECT_EQ(node.kind, overridden ? NodeKernelKind::Optimized : NodeKernelKind::Reference) << node.op_type;
  }
  EXPECT_EQ(fused, linear_ops);
  EXPECT_EQ(nodes.size(), graph->nodes.size());
}

TEST_P(Profiling, WarmRunsWithinTheReserveDoNotGrowTheProfile) {
  const Session session = make(small_model(), engine(), mode(), threads());
  RunProfile profile;
  RunOptions options;
  options.profile = &profile;
  session.run(feeds(), options);  // warm-up: the plan and the node table
  const std::size_t nodes = profile.nodes().size();
  profile.clear_timings();
  EXPECT_EQ(profile.runs(), 0u);
  EXPECT_TRUE(profile.timings().empty());
  profile.reserve(3 * nodes);
  const NodeTiming* storage = profile.timings().data();
  const std::size_t capacity = profile.timings().capacity();
  for (int r = 0; r < 3; ++r) session.run(feeds(), options);
  EXPECT_EQ(profile.timings().size(), 3 * nodes);
  EXPECT_EQ(profile.timings().data(), storage);
  EXPECT_EQ(profile.timings().capacity(), capacity);
  EXPECT_EQ(profile.nodes().size(), nodes);
  EXPECT_EQ(profile.timings().front().run, 0u);
  EXPECT_EQ(profile.timings().back().run, 2u);
}

TEST(ProfileAllocation, AWarmProfiledSingleThreadedRunAllocatesNothing) {
  for (ExecutionMode mode : {ExecutionMode::Fast, ExecutionMode::Exact}) {
    const Session session = make(small_model(), EngineKind::Optimized, mode, 1);
    const std::vector<std::string> input_names{"x"};
    const std::vector<Tensor> inputs{feeds()[0].second};
    const std::vector<std::string> output_names{"out"};
    std::vector<Tensor> outputs{Tensor::empty(DType::F32, Shape{6, 4})};
    RunProfile profile;
    RunOptions options;
    options.profile = &profile;
    session.run(input_names, inputs, output_names, outputs, options);  // the plan, the node table
    session.run(input_names, inputs, output_names, outputs, options);
    // The control: a warm run without the profile allocates nothing.
    g_allocations = 0;
    g_counting = true;
    session.run(input_names, inputs, output_names, outputs);
    g_counting = false;
    ASSERT_EQ(g_allocations.load(), 0) << "a warm run allocates without a profile: the test cannot tell";
    profile.clear_timings();
    profile.reserve(5 * profile.nodes().size());
    g_allocations = 0;
    g_counting = true;
    for (int r = 0; r < 5; ++r) session.run(input_names, inputs, output_names, outputs, options);
    g_counting = false;
    EXPECT_EQ(g_allocations.load(), 0);
    EXPECT_EQ(profile.timings().size(), 5 * profile.nodes().size());
  }
}

TEST(ProfileAllocation, TheCounterSeesAllocations) {
  g_allocations = 0;
  g_counting = true;
  auto* p = new std::vector<int>(100);
  g_counting = false;
  delete p;
  EXPECT_GE(g_allocations.load(), 2);
}

INSTANTIATE_TEST_SUITE_P(EnginesModesThreads, Profiling,
                         ::testing::Combine(::testing::Values(EngineKind::Optimized, EngineKind::Reference),
                                            ::testing::Values(ExecutionMode::Fast, ExecutionMode::Exact),
                                            ::testing::Values(1, 2)));

struct PlainProbe {
  virtual ~PlainProbe() = default;
};

}  // namespace

namespace profile_probe {
struct NamedProbe {};
}  // namespace profile_probe

namespace {

TEST(ClassName, IsTheClassOwnName) {
  EXPECT_EQ(opt::class_name(typeid(profile_probe::NamedProbe)), "NamedProbe");
  EXPECT_EQ(opt::class_name(typeid(PlainProbe)), "PlainProbe");  // inside an anonymous namespace
  EXPECT_EQ(opt::class_name(typeid(RunProfile)), "RunProfile");
}

}  // namespace
}  // namespace onemodel
