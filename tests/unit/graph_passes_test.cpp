// Graph passes (graph-passes.md; graph-runtime.md section 6): linear-pack-fuse fuses exactly the
// patterns it should (counted in the compiled graph), and the fused graph gives the bits of the
// unfused graph (OptimizationLevel::None) and of the reference engine in exact mode on every
// instruction-set path at 1 and 2 threads; in fast mode it stays within the operator tolerance of
// the unfused graph and does not depend on the thread count.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <limits>

#include "diff/graph_builder.hpp"
#include "onemodel/session.hpp"
#include "optimized/frame/isa.hpp"
#include "optimized/frame/thread_pool.hpp"
#include "optimized/runtime/compiled_graph.hpp"
#include "tests/support/ir_builder.hpp"
#include "tests/support/same_outputs.hpp"
#include "tests/support/session_runs.hpp"

namespace onemodel {
namespace {

using graph_builder::GraphBuilder;
using ir_builder::float_attr;
using ir_builder::float_bits;
using ir_builder::int_attr;
using ir_builder::ints_attr;
using ir_builder::string_attr;

constexpr std::int64_t kM = 37, kK = 300, kN = 45;  // K crosses a 256-row block, N ragged strips

// Values with specials mixed in: NaN, infinities, -0, and a wide range of magnitudes.
Tensor values(const Shape& shape, std::uint32_t seed, bool specials) {
  std::vector<float> v(static_cast<std::size_t>(shape.element_count()));
  std::uint32_t state = seed;
  for (std::size_t i = 0; i < v.size(); ++i) {
    state = state * 1664525u + 1013904223u;
    v[i] = (static_cast<float>(state >> 8) / 16777216.0f - 0.5f) * 4.0f;
  }
  if (specials && v.size() > 40) {
    v[3] = std::numeric_limits<float>::quiet_NaN();
    v[17] = std::numeric_limits<float>::infinity();
    v[29] = -0.0f;
    v[31] = 1e30f;
  }
  return Tensor::from_values<float>(DType::F32, shape, v);
}

Tensor weights(std::int64_t rows, std::int64_t cols, std::uint32_t seed) { return values(Shape{rows, cols}, seed, false); }

// X [kM, kK] times W [kK, kN]; `tail` appends nodes reading "y" and ending in "out".
GraphBuilder linear_base(std::int64_t opset = 20) {
  GraphBuilder b(opset);
  b.input("x", DType::F32, Shape{kM, kK}).initializer("w", weights(kK, kN, 7));
  return b;
}

struct Case {
  IrModel model;
  std::size_t unfused_nodes;
  std::size_t fused_nodes;
  Shape x_shape = Shape{kM, kK};  // the graph input "x"
};

std::size_t compiled_nodes(const IrModel& model, OptimizationLevel level, ExecutionMode mode) {
  SessionOptions options;
  options.mode = mode;
  options.optimization_level = level;
  opt::ThreadPool pool(1);
  return opt::compile_graph(model, options, opt::OptimizedConfig{opt::Isa::Scalar, &pool})->nodes.size();
}

// Runs at two threads are counted for the RequireSplit of each test (tests/support/session_runs.hpp).
std::vector<Tensor> run(const IrModel& model, EngineKind engine, ExecutionMode mode, OptimizationLevel level,
                        int threads, const test::Feeds& feeds) {
  return test::run_session(model, engine, mode, level, threads, feeds);
}


void expect_close(const std::vector<Tensor>& a, const std::vector<Tensor>& b, const std::string& what) {
  ASSERT_EQ(a.size(), b.size()) << what;
  for (std::size_t i = 0; i < a.size(); ++i) {
    const auto x = a[i].to_vector<float>();
    const auto y = b[i].to_vector<float>();
    ASSERT_EQ(x.size(), y.size());
    for (std::size_t k = 0; k < x.size(); ++k) {
      if (std::isnan(x[k]) || std::isnan(y[k])) {
        ASSERT_TRUE(std::isnan(x[k]) && std::isnan(y[k])) << what << " element " << k;
      } else if (std::isinf(x[k]) || std::isinf(y[k])) {
        ASSERT_EQ(x[k], y[k]) << what << " element " << k;
      } else {
        ASSERT_NEAR(x[k], y[k], 1e-5 + 1e-5 * std::fabs(y[k])) << what << " element " << k;
      }
    }
  }
}

// Runs the case on every path at 1 and 2 threads (see the file comment).
void check_case(const Case& c, const std::string& name) {
  SCOPED_TRACE(name);
  EXPECT_EQ(compiled_nodes(c.model, OptimizationLevel::None, ExecutionMode::Exact), c.unfused_nodes);
  EXPECT_EQ(compiled_nodes(c.model, OptimizationLevel::All, ExecutionMode::Exact), c.fused_nodes);
  EXPECT_EQ(compiled_nodes(c.model, OptimizationLevel::All, ExecutionMode::Fast), c.fused_nodes);
  const std::vector<std::pair<std::string, Tensor>> feeds{{"x", values(c.x_shape, 11, true)}};
  const auto reference = run(c.model, EngineKind::Reference, ExecutionMode::Exact, OptimizationLevel::All, 1, feeds);
  // Every path this machine has (an ONEMODEL_ISA cap per path, avx512 included when present).
  for (const opt::Isa path : opt::available_isas()) {
    const std::string isa(opt::isa_name(path));
    ::setenv("ONEMODEL_ISA", isa.c_str(), 1);
    const auto fast_unfused = run(c.model, EngineKind::Optimized, ExecutionMode::Fast, OptimizationLevel::None, 1, feeds);
    const auto fast_one = run(c.model, EngineKind::Optimized, ExecutionMode::Fast, OptimizationLevel::All, 1, feeds);
    for (int threads : {1, 2}) {
      const std::string where = isa + " threads " + std::to_string(threads);
      const auto fused = run(c.model, EngineKind::Optimized, ExecutionMode::Exact, OptimizationLevel::All, threads, feeds);
      const auto unfused = run(c.model, EngineKind::Optimized, ExecutionMode::Exact, OptimizationLevel::None, threads, feeds);
      test::expect_same_outputs(fused, reference, "exact fused vs reference, " + where);
      test::expect_same_outputs(fused, unfused, "exact fused vs unfused, " + where);
      const auto fast = run(c.model, EngineKind::Optimized, ExecutionMode::Fast, OptimizationLevel::All, threads, feeds);
      test::expect_same_outputs(fast, fast_one, "fast fused at 1 and 2 threads, " + where);
      expect_close(fast, fast_unfused, "fast fused vs unfused, " + where);
    }
  }
  ::unsetenv("ONEMODEL_ISA");
}

Tensor bias(const Shape& shape) { return values(shape, 5, false); }

TEST(LinearPackFuse, MatMulAddAndEachActivation) {
  const test::RequireSplit two_thread_runs_split;
  struct Activation {
    const char* op;
    std::vector<IrAttribute> attributes;
  };
  const std::vector<Activation> activations = {
      {"Relu", {}},
      {"Sigmoid", {}},
      {"Tanh", {}},
      {"LeakyRelu", {float_attr("alpha", 0.25f)}},
      {"HardSigmoid", {float_attr("alpha", 0.3f), float_attr("beta", 0.4f)}},
      {"HardSwish", {}},
      {"Gelu", {}},
      {"Gelu", {string_attr("approximate", "tanh")}},
  };
  for (const Activation& act : activations) {
    GraphBuilder b = linear_base();
    b.initializer("b", bias(Shape{kN}))
        .node("MatMul", {"x", "w"}, {"y"})
        .node("Add", {"y", "b"}, {"z"})
        .node(act.op, {"z"}, {"out"}, act.attributes)
        .output("out", DType::F32);
    check_case(Case{b.build(), 3, 1}, act.op);
  }
}

TEST(LinearPackFuse, ClipWithConstantBoundsAndBiasFirst) {
  const test::RequireSplit two_thread_runs_split;
  GraphBuilder b = linear_base();
  b.initializer("b", bias(Shape{1, kN}))
      .initializer("lo", Tensor::from_values<float>(DType::F32, Shape{}, {-0.5f}))
      .initializer("hi", Tensor::from_values<float>(DType::F32, Shape{}, {1.25f}))
      .node("MatMul", {"x", "w"}, {"y"})
      .node("Add", {"b", "y"}, {"z"})
      .node("Clip", {"z", "lo", "hi"}, {"out"})
      .output("out", DType::F32);
  check_case(Case{b.build(), 3, 1}, "clip");
}

TEST(LinearPackFuse, MatMulWithOnlyAnAddOrOnlyAnActivation) {
  const test::RequireSplit two_thread_runs_split;
  GraphBuilder add = linear_base();
  add.initializer("b", bias(Shape{kN})).node("MatMul", {"x", "w"}, {"y"}).node("Add", {"y", "b"}, {"out"});
  add.output("out", DType::F32);
  check_case(Case{add.build(), 2, 1}, "add only");
  GraphBuilder relu = linear_base();
  relu.node("MatMul", {"x", "w"}, {"y"}).node("Relu", {"y"}, {"out"}).output("out", DType::F32);
  check_case(Case{relu.build(), 2, 1}, "relu only");
}

TEST(LinearPackFuse, GemmWithTransBAndScaledC) {
  const test::RequireSplit two_thread_runs_split;
  GraphBuilder b(20);
  b.input("x", DType::F32, Shape{kM, kK})
      .initializer("w", weights(kN, kK, 9))
      .initializer("c", bias(Shape{kN}))
      .node("Gemm", {"x", "w", "c"}, {"y"}, {int_attr("transB", 1), float_attr("beta", 0.75f)})
      .node("Tanh", {"y"}, {"out"})
      .output("out", DType::F32);
  check_case(Case{b.build(), 2, 1}, "gemm");
  GraphBuilder no_c(20);
  no_c.input("x", DType::F32, Shape{kM, kK})
      .initializer("w", weights(kK, kN, 9))
      .initializer("b", bias(Shape{kN}))
      .node("Gemm", {"x", "w"}, {"y"})
      .node("Add", {"y", "b"}, {"z"})
      .node("Relu", {"z"}, {"out"})
      .output("out", DType::F32);
  check_case(Case{no_c.build(), 3, 1}, "gemm without C");
}

// Near misses: each of these must not fuse (or fuse only up to the blocking value), and still
// give the same bits.
TEST(LinearPackFuse, NearMissesAreLeftAlone) {
  const test::RequireSplit two_thread_runs_split;
  {  // the intermediate is also a graph output: the product stops before the Add
    GraphBuilder b = linear_base();
    b.initializer("b", bias(Shape{kN}))
        .node("MatMul", {"x", "w"}, {"y"})
        .node("Add", {"y", "b"}, {"out"})
        .output("out", DType::F32)
        .output("y", DType::F32);
    check_case(Case{b.build(), 2, 2}, "intermediate is an output");
  }
  {  // a second reader of the product
    GraphBuilder b = linear_base();
    b.initializer("b", bias(Shape{kN}))
        .node("MatMul", {"x", "w"}, {"y"})
        .node("Add", {"y", "b"}, {"z"})
        .node("Mul", {"y", "z"}, {"out"})
        .output("out", DType::F32);
    check_case(Case{b.build(), 3, 3}, "second reader");
  }
  {  // the Add's result read twice: the Add fuses, the activation cannot
    GraphBuilder b = linear_base();
    b.initializer("b", bias(Shape{kN}))
        .node("MatMul", {"x", "w"}, {"y"})
        .node("Add", {"y", "b"}, {"z"})
        .node("Relu", {"z"}, {"r"})
        .node("Mul", {"z", "r"}, {"out"})
        .output("out", DType::F32);
    // linear-pack-fuse takes the Add only; elementwise-chain then makes Relu and Mul, which read
    // only z, one node.
    check_case(Case{b.build(), 4, 2}, "activation input read twice");
  }
  {  // B is not constant (a graph input)
    GraphBuilder b(20);
    b.input("x", DType::F32, Shape{kM, kK})
        .input("w", DType::F32, Shape{kK, kN})
        .initializer("b", bias(Shape{kN}))
        .node("MatMul", {"x", "w"}, {"y"})
        .node("Add", {"y", "b"}, {"out"})
        .output("out", DType::F32);
    const IrModel model = b.build();
    EXPECT_EQ(compiled_nodes(model, OptimizationLevel::All, ExecutionMode::Exact), 2u);
  }
  {  // B is an initializer the caller may replace (also a graph input)
    GraphBuilder b(20);
    b.input("x", DType::F32, Shape{kM, kK})
        .input("w", DType::F32, Shape{kK, kN})
        .initializer("w", weights(kK, kN, 7))
        .node("MatMul", {"x", "w"}, {"y"})
        .node("Relu", {"y"}, {"out"})
        .output("out", DType::F32);
    check_case(Case{b.build(), 2, 2}, "overridable B");
  }
  for (const Shape& shape : {Shape{kM, kN}, Shape{1}, Shape{1, 1}}) {  // a bias of the wrong shape
    GraphBuilder b = linear_base();
    b.initializer("b", bias(shape))
        .node("MatMul", {"x", "w"}, {"y"})
        .node("Add", {"y", "b"}, {"z"})
        .node("Relu", {"z"}, {"out"})
        .output("out", DType::F32);
    // Not a bias, so no LinearOp epilogue; a one-element "bias" and the Relu form an
    // elementwise-chain node instead.
    check_case(Case{b.build(), 3, shape.element_count() == 1 ? 2u : 3u}, "bias of the wrong shape");
  }
  {  // Gemm with alpha != 1
    GraphBuilder b(20);
    b.input("x", DType::F32, Shape{kM, kK})
        .initializer("w", weights(kK, kN, 9))
        .node("Gemm", {"x", "w"}, {"y"}, {float_attr("alpha", 0.5f)})
        .node("Relu", {"y"}, {"out"})
        .output("out", DType::F32);
    check_case(Case{b.build(), 2, 2}, "gemm alpha");
  }
}

TEST(LinearPackFuse, BatchedA) {
  const test::RequireSplit two_thread_runs_split;
  GraphBuilder b(20);
  b.input("x", DType::F32, Shape{kM, kK})
      .initializer("shape", Tensor::from_values<std::int64_t>(DType::I64, Shape{3}, {1, kM, kK}))
      .initializer("w", weights(kK, kN, 3))
      .initializer("b", bias(Shape{1, 1, kN}))
      .node("Reshape", {"x", "shape"}, {"x3"})
      .node("MatMul", {"x3", "w"}, {"y"})
      .node("Add", {"y", "b"}, {"z"})
      .node("Sigmoid", {"z"}, {"out"})
      .output("out", DType::F32);
  check_case(Case{b.build(), 4, 2}, "batched");
}

TEST(LinearPackFuse, NoneLevelRunsNoPass) {
  const test::RequireSplit two_thread_runs_split;
  GraphBuilder b = linear_base();
  b.node("MatMul", {"x", "w"}, {"y"}).node("Relu", {"y"}, {"out"}).output("out", DType::F32);
  const IrModel model = b.build();
  EXPECT_EQ(compiled_nodes(model, OptimizationLevel::None, ExecutionMode::Fast), 2u);
  EXPECT_EQ(compiled_nodes(model, OptimizationLevel::Basic, ExecutionMode::Fast), 2u);
  EXPECT_EQ(compiled_nodes(model, OptimizationLevel::All, ExecutionMode::Fast), 1u);
}

// conv-activation: im2col + product (3x3 with padding and stride, and a 1x1 direct product),
// the direct depthwise kernel (vector walk and the plain fallback for more than 64 taps).
struct ConvCase {
  const char* name;
  Shape x;
  Shape w;
  std::vector<IrAttribute> attributes;
  bool with_bias;
};

std::vector<ConvCase> conv_cases() {
  return {
      {"3x3 padded, stride 2", Shape{2, 3, 13, 11}, Shape{8, 3, 3, 3},
       {ints_attr("pads", {1, 1, 1, 1}), ints_attr("strides", {2, 1})}, true},
      {"1x1 direct, no bias", Shape{1, 5, 17, 19}, Shape{6, 5, 1, 1}, {}, false},
      {"grouped", Shape{1, 4, 9, 9}, Shape{6, 2, 3, 3}, {int_attr("group", 2)}, true},
      {"depthwise x2", Shape{1, 4, 10, 37}, Shape{8, 1, 3, 3}, {int_attr("group", 4), ints_attr("pads", {1, 1, 1, 1})}, true},
      {"depthwise fallback", Shape{1, 3, 12, 12}, Shape{3, 1, 9, 9}, {int_attr("group", 3)}, true},
  };
}

TEST(ConvActivation, EachKernelWithActivations) {
  const test::RequireSplit two_thread_runs_split;
  const std::vector<std::pair<const char*, std::vector<IrAttribute>>> activations = {
      {"Relu", {}}, {"HardSwish", {}}, {"LeakyRelu", {float_attr("alpha", 0.1f)}}, {"Tanh", {}}, {"Gelu", {}}};
  for (const ConvCase& conv : conv_cases()) {
    for (const auto& [op, attributes] : activations) {
      GraphBuilder b(20);
      b.input("x", DType::F32, conv.x).initializer("w", values(conv.w, 21, false));
      std::vector<std::string> inputs{"x", "w"};
      if (conv.with_bias) {
        b.initializer("b", bias(Shape{conv.w[0]}));
        inputs.push_back("b");
      }
      b.node("Conv", inputs, {"y"}, conv.attributes).node(op, {"y"}, {"out"}, attributes).output("out", DType::F32);
      check_case(Case{b.build(), 2, 1, conv.x}, std::string(conv.name) + " " + op);
    }
  }
}

TEST(ConvActivation, ClipAndNearMisses) {
  const test::RequireSplit two_thread_runs_split;
  const Shape x{1, 3, 8, 8};
  GraphBuilder clip(20);
  clip.input("x", DType::F32, x)
      .initializer("w", values(Shape{4, 3, 3, 3}, 21, false))
      .initializer("hi", Tensor::from_values<float>(DType::F32, Shape{}, {0.75f}))
      .node("Conv", {"x", "w"}, {"y"})
      .node("Clip", {"y", "", "hi"}, {"out"})
      .output("out", DType::F32);
  check_case(Case{clip.build(), 2, 1, x}, "clip");
  GraphBuilder output(20);
  output.input("x", DType::F32, x)
      .initializer("w", values(Shape{4, 3, 3, 3}, 21, false))
      .node("Conv", {"x", "w"}, {"y"})
      .node("Relu", {"y"}, {"out"})
      .output("out", DType::F32)
      .output("y", DType::F32);
  check_case(Case{output.build(), 2, 2, x}, "conv result is an output");
  GraphBuilder twice(20);
  twice.input("x", DType::F32, x)
      .initializer("w", values(Shape{4, 3, 3, 3}, 21, false))
      .node("Conv", {"x", "w"}, {"y"})
      .node("Relu", {"y"}, {"r"})
      .node("Add", {"y", "r"}, {"out"})
      .output("out", DType::F32);
  // No conv-activation; Relu and Add read only y: one elementwise-chain node.
  check_case(Case{twice.build(), 3, 2, x}, "conv result read twice");
}

}  // namespace
}  // namespace onemodel
