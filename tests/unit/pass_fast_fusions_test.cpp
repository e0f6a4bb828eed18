// The fast-mode passes of graph-passes.md (`conv-batchnorm-fold`, `gelu`, `attention`; they do not
// preserve bits) and the "Memory" rule of `linear-pack-fuse`:
//  - each fusion fires on the exported patterns (nodes counted in the compiled graph) and not when
//    an intermediate has another reader or a constant is wrong;
//  - in fast mode the fused graph stays within a tolerance of the unfused graph (level None) and
//    gives the same bits at 1 and 2 threads, on every kernel path;
//  - in exact mode the passes never run: the compiled graph is the one before these passes and
//    the results are the reference engine's bits, at 1 and 2 threads.
// Tolerance: scaled error max|fused - unfused| / max(1, max|unfused|) <= 1e-5. The fused forms
// change only roundings: gelu's erf (a few ulp of the result), attention's online softmax and
// multiply by the reciprocal of the scale (kernels-attention.md "Accuracy": ~3e-6 absolute on
// outputs of magnitude ~3), conv-batchnorm-fold's scale moved before the sum (an ulp per term of
// the convolution's sum, relative to the largest output).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <limits>
#include <typeinfo>

#include "diff/graph_builder.hpp"
#include "onemodel/model_format.hpp"
#include "onemodel/session.hpp"
#include "onemodel/session_error.hpp"
#include "optimized/frame/isa.hpp"
#include "optimized/frame/thread_pool.hpp"
#include "optimized/kernels/elementwise/elementwise.hpp"
#include "optimized/runtime/compiled_graph.hpp"
#include "tests/support/compiled_kernels.hpp"
#include "tests/support/ir_builder.hpp"
#include "tests/support/same_outputs.hpp"
#include "tests/support/session_runs.hpp"
#include "core/conformance/npy.hpp"

namespace onemodel {
namespace {

using graph_builder::GraphBuilder;
using ir_builder::float_attr;
using ir_builder::float_bits;
using ir_builder::int_attr;
using ir_builder::ints_attr;

using Feeds = std::vector<std::pair<std::string, Tensor>>;

Tensor values(const Shape& shape, std::uint32_t seed, float range = 4.0f) {
  std::vector<float> v(static_cast<std::size_t>(shape.element_count()));
  std::uint32_t state = seed;
  for (float& x : v) {
    state = state * 1664525u + 1013904223u;
    x = (static_cast<float>(state >> 8) / 16777216.0f - 0.5f) * range;
  }
  return Tensor::from_values<float>(DType::F32, shape, v);
}

Tensor scalar(float v) { return Tensor::from_values<float>(DType::F32, Shape{}, {v}); }

std::unique_ptr<opt::CompiledGraph> compiled(const IrModel& model, ExecutionMode mode, OptimizationLevel level = OptimizationLevel::All) {
  SessionOptions options;
  options.mode = mode;
  options.optimization_level = level;
  static opt::ThreadPool pool(1);
  return opt::compile_graph(model, options, opt::OptimizedConfig{opt::Isa::Scalar, &pool});
}

// Nodes of the compiled graph whose kernel's class name contains `kind` ("GeluOp",
// "AttentionFusedOp", "LinearOp"); and all nodes.
using test::count_kernels;

// Runs at two threads are counted for the RequireSplit of each test (tests/support/session_runs.hpp).
std::vector<Tensor> run(const IrModel& model, EngineKind engine, ExecutionMode mode, OptimizationLevel level,
                        int threads, const test::Feeds& feeds) {
  return test::run_session(model, engine, mode, level, threads, feeds);
}


double scaled_error(const std::vector<float>& x, const std::vector<float>& y) {
  double diff = 0.0, scale = 1.0;
  for (std::size_t k = 0; k < x.size(); ++k) {
    diff = std::max(diff, std::fabs(static_cast<double>(x[k]) - y[k]));
    scale = std::max(scale, std::fabs(static_cast<double>(y[k])));
  }
  return diff / scale;
}

void expect_scaled(const std::vector<Tensor>& a, const std::vector<Tensor>& b, double tolerance, const std::string& what) {
  ASSERT_EQ(a.size(), b.size()) << what;
  for (std::size_t i = 0; i < a.size(); ++i) {
    ASSERT_EQ(a[i].shape(), b[i].shape()) << what;
    const auto x = a[i].to_vector<float>();
    const auto y = b[i].to_vector<float>();
    for (std::size_t k = 0; k < x.size(); ++k) {
      ASSERT_EQ(std::isfinite(x[k]), std::isfinite(y[k])) << what << " element " << k;
    }
    EXPECT_LE(scaled_error(x, y), tolerance) << what << " output " << i;
  }
}

// Counts, then results on every path at 1 and 2 threads (see the file comment). `fused_kind`
// nodes are expected `fused_count` times in fast mode and never in exact mode.
void check(const IrModel& model, const Feeds& feeds, std::size_t unfused_nodes, std::size_t fast_nodes,
           const char* fused_kind, std::size_t fused_count, const std::string& name, std::size_t exact_count = 0) {
  const double tolerance = 1e-5;
  SCOPED_TRACE(name);
  const auto exact_graph = compiled(model, ExecutionMode::Exact);
  const auto fast_graph = compiled(model, ExecutionMode::Fast);
  EXPECT_EQ(compiled(model, ExecutionMode::Fast, OptimizationLevel::None)->nodes.size(), unfused_nodes);
  EXPECT_EQ(fast_graph->nodes.size(), fast_nodes);
  EXPECT_EQ(count_kernels(*fast_graph, fused_kind), fused_count);
  EXPECT_EQ(count_kernels(*exact_graph, fused_kind), exact_count);
  const auto reference = run(model, EngineKind::Reference, ExecutionMode::Exact, OptimizationLevel::All, 1, feeds);
  // Every path this machine has (an ONEMODEL_ISA cap per path, avx512 included when present).
  for (const opt::Isa path : opt::available_isas()) {
    const std::string isa(opt::isa_name(path));
    ::setenv("ONEMODEL_ISA", isa.c_str(), 1);
    const auto fast_one = run(model, EngineKind::Optimized, ExecutionMode::Fast, OptimizationLevel::All, 1, feeds);
    const auto unfused = run(model, EngineKind::Optimized, ExecutionMode::Fast, OptimizationLevel::None, 1, feeds);
    expect_scaled(fast_one, unfused, tolerance, "fast fused vs unfused, " + isa);
    for (int threads : {1, 2}) {
      const std::string where = isa + " threads " + std::to_string(threads);
      const auto fast = run(model, EngineKind::Optimized, ExecutionMode::Fast, OptimizationLevel::All, threads, feeds);
      test::expect_same_outputs(fast, fast_one, "fast fused at 1 and 2 threads, " + where);
      const auto exact = run(model, EngineKind::Optimized, ExecutionMode::Exact, OptimizationLevel::All, threads, feeds);
      test::expect_same_outputs(exact, reference, "exact vs reference, " + where);
    }
  }
  ::unsetenv("ONEMODEL_ISA");
}

// ---- gelu ----------------------------------------------------------------------------------

constexpr std::int64_t kRows = 37, kCols = 45;
// The GELU graphs' input: 18,000 elements, two element-wise chunks (ew::kChunkElements = 16384),
// so their runs at two threads are split between two threads.
constexpr std::int64_t kGeluRows = 4, kGeluCols = 4500;

// x -> Div(x, sqrt2) -> Erf -> Add 1 -> the two Muls in the given grouping ("bert": Mul(Mul(x, e),
// 0.5); "half-first": Mul(Mul(x, 0.5), e); "inner-half": Mul(x, Mul(e, 0.5))), constants as
// initializers or Constant nodes (torch's form).
GraphBuilder gelu_graph(const std::string& grouping, bool constant_nodes, float root = 1.4142135f, float half = 0.5f) {
  GraphBuilder b(17);
  b.input("x", DType::F32, Shape{kGeluRows, kGeluCols});
  if (constant_nodes) {
    b.node("Constant", {}, {"root"}, {float_attr("value_float", root)})
        .node("Constant", {}, {"one"}, {float_attr("value_float", 1.0f)})
        .node("Constant", {}, {"half"}, {float_attr("value_float", half)});
  } else {
    b.initializer("root", scalar(root)).initializer("one", scalar(1.0f)).initializer("half", scalar(half));
  }
  b.node("Div", {"x", "root"}, {"t"}).node("Erf", {"t"}, {"erf"}).node("Add", {"one", "erf"}, {"e"});
  if (grouping == "bert") {
    b.node("Mul", {"x", "e"}, {"m"}).node("Mul", {"m", "half"}, {"out"});
  } else if (grouping == "half-first") {
    b.node("Mul", {"x", "half"}, {"m"}).node("Mul", {"m", "e"}, {"out"});
  } else {
    b.node("Mul", {"e", "half"}, {"m"}).node("Mul", {"x", "m"}, {"out"});
  }
  return b;
}

Feeds gelu_feeds() { return {{"x", values(Shape{kGeluRows, kGeluCols}, 11, 8.0f)}}; }

TEST(GeluPass, FiresOnEachOperandOrder) {
  const test::RequireSplit two_thread_runs_split;
  for (const char* grouping : {"bert", "half-first", "inner-half"}) {
    for (bool constant_nodes : {false, true}) {
      GraphBuilder b = gelu_graph(grouping, constant_nodes);
      b.output("out", DType::F32);
      // Constant nodes become plan constants; they stay nodes of the compiled graph until unread.
      check(b.build(), gelu_feeds(), constant_nodes ? 8 : 5, 1, "GeluOp", 1,
            std::string(grouping) + (constant_nodes ? " constant nodes" : " initializers"));
    }
  }
}

// The fused node computes the fast-mode GELU of the Gelu override and the epilogues (UnaryArgs
// fast, docs/design.md "Fast-mode GELU"), bit for bit, on every path: a GeluOp that ran the exact
// sequence in fast mode would be a different function from the same GELU fused into a product.
TEST(GeluPass, FusedNodeIsTheFastModeGelu) {
  GraphBuilder b = gelu_graph("bert", false);
  b.output("out", DType::F32);
  const IrModel model = b.build();
  const Feeds feeds = gelu_feeds();
  const std::vector<float> x = feeds[0].second.to_vector<float>();
  for (const opt::Isa path : opt::available_isas()) {
    const std::string isa(opt::isa_name(path));
    ::setenv("ONEMODEL_ISA", isa.c_str(), 1);
    const auto fast = run(model, EngineKind::Optimized, ExecutionMode::Fast, OptimizationLevel::All, 1, feeds);
    std::vector<float> want(x.size());
    opt::ew::unary_f32_run(path, opt::ew::for_mode(opt::ew::UnaryArgs{opt::ew::UnaryOp::GeluErf}, false), x.data(),
                           want.data(), x.size());
    const std::vector<float> got = fast[0].to_vector<float>();
    ASSERT_EQ(got.size(), want.size()) << isa;
    for (std::size_t k = 0; k < got.size(); ++k) {
      ASSERT_EQ(float_bits(got[k]), float_bits(want[k])) << isa << " element " << k;
    }
  }
  ::unsetenv("ONEMODEL_ISA");
}

TEST(GeluPass, NearMissesAreLeftAlone) {
  const test::RequireSplit two_thread_runs_split;
  {  // a constant off by more than 1e-6 relative
    GraphBuilder b = gelu_graph("bert", false, 1.4142135f, 0.4999f);
    b.output("out", DType::F32);
    // Not a Gelu, but still a chain of element-wise operators reading x: elementwise-chain makes
    // it one node (bit-preserving, so the bits checked are the separate operators').
    check(b.build(), gelu_feeds(), 5, 1, "GeluOp", 0, "half is 0.4999");
  }
  {
    GraphBuilder b = gelu_graph("bert", false, 1.41f);
    b.output("out", DType::F32);
    check(b.build(), gelu_feeds(), 5, 1, "GeluOp", 0, "root is 1.41");
  }
  {  // the erf term also read by another node
    GraphBuilder b = gelu_graph("bert", false);
    b.node("Add", {"out", "e"}, {"out2"}).output("out2", DType::F32);
    check(b.build(), gelu_feeds(), 6, 1, "GeluOp", 0, "erf term read twice");
  }
  {  // an intermediate is a graph output
    GraphBuilder b = gelu_graph("bert", false);
    b.output("out", DType::F32).output("m", DType::F32);
    // elementwise-chain stops at the output m: one node up to m, then the last Mul.
    check(b.build(), gelu_feeds(), 5, 2, "GeluOp", 0, "intermediate is an output");
  }
}

// MatMul + bias + the exported GELU: gelu runs first, then linear-pack-fuse puts the Gelu in the
// packed product's epilogue (graph-passes.md pass table): one node in fast mode.
TEST(GeluPass, CombinesWithLinearPackFuse) {
  const test::RequireSplit two_thread_runs_split;
  constexpr std::int64_t kK = 300;
  GraphBuilder b(17);
  b.input("a", DType::F32, Shape{kRows, kK})
      .initializer("w", values(Shape{kK, kCols}, 3, 0.2f))
      .initializer("bias", values(Shape{kCols}, 5))
      .initializer("root", scalar(1.4142135f))
      .initializer("one", scalar(1.0f))
      .initializer("half", scalar(0.5f))
      .node("MatMul", {"a", "w"}, {"y"})
      .node("Add", {"bias", "y"}, {"x"})
      .node("Div", {"x", "root"}, {"t"})
      .node("Erf", {"t"}, {"erf"})
      .node("Add", {"erf", "one"}, {"e"})
      .node("Mul", {"x", "e"}, {"m"})
      .node("Mul", {"m", "half"}, {"out"})
      .output("out", DType::F32);
  const IrModel model = b.build();
  const auto fast = compiled(model, ExecutionMode::Fast);
  ASSERT_EQ(fast->nodes.size(), 1u);
  EXPECT_EQ(count_kernels(*fast, "LinearOp"), 1u);
  // Exact mode: linear-pack-fuse takes the MatMul and its bias only; elementwise-chain makes the
  // exported GELU's five operators one node with their own bits.
  EXPECT_EQ(compiled(model, ExecutionMode::Exact)->nodes.size(), 2u);
  check(model, {{"a", values(Shape{kRows, kK}, 13)}}, 7, 1, "LinearOp", 1, "matmul bias gelu", 1);
}

// The tanh form, 0.5 * x * (1 + tanh(sqrt(2/pi) * (x + 0.044715 * x^3))), as torch writes it for
// gelu(approximate='tanh') at opset 17 ("torch": x * (x * x), Mul(0.5, Mul(x, e)), constants
// first) and as GPT-2's exports do ("gpt2": Pow(x, 3), Mul(Mul(x, 0.5), e)), from `source` (x or
// a product's result). `cube_scale` is 0.044715 unless a near miss asks otherwise.
void add_gelu_tanh(GraphBuilder& b, const std::string& form, const std::string& source, float cube_scale = 0.044715f) {
  b.initializer("c", scalar(cube_scale)).initializer("k", scalar(0.7978846f)).initializer("one", scalar(1.0f));
  b.initializer("half", scalar(0.5f));
  if (form == "torch") {
    b.node("Mul", {source, source}, {"sq"}).node("Mul", {source, "sq"}, {"cube"}).node("Mul", {"c", "cube"}, {"ct"});
    b.node("Add", {source, "ct"}, {"inner"}).node("Mul", {"k", "inner"}, {"u"}).node("Tanh", {"u"}, {"th"});
    b.node("Add", {"one", "th"}, {"e"}).node("Mul", {source, "e"}, {"m"}).node("Mul", {"half", "m"}, {"out"});
  } else {
    b.initializer("three", scalar(3.0f));
    b.node("Pow", {source, "three"}, {"cube"}).node("Mul", {"cube", "c"}, {"ct"});
    b.node("Add", {source, "ct"}, {"inner"}).node("Mul", {"inner", "k"}, {"u"}).node("Tanh", {"u"}, {"th"});
    b.node("Add", {"th", "one"}, {"e"}).node("Mul", {source, "half"}, {"m"}).node("Mul", {"m", "e"}, {"out"});
  }
}

TEST(GeluPass, TanhFormFiresOnTorchAndGpt2Exports) {
  const test::RequireSplit two_thread_runs_split;
  for (const char* form : {"torch", "gpt2"}) {
    GraphBuilder b(17);
    b.input("x", DType::F32, Shape{kGeluRows, kGeluCols});
    add_gelu_tanh(b, form, "x");
    b.output("out", DType::F32);
    check(b.build(), gelu_feeds(), std::string(form) == "torch" ? 9 : 8, 1, "GeluOp", 1, form);
  }
  {  // 0.0447 is not 0.044715: not a Gelu (elementwise-chain takes the torch form in one node)
    GraphBuilder b(17);
    b.input("x", DType::F32, Shape{kGeluRows, kGeluCols});
    add_gelu_tanh(b, "torch", "x", 0.0447f);
    b.output("out", DType::F32);
    check(b.build(), gelu_feeds(), 9, 1, "GeluOp", 0, "cube scale 0.0447");
  }
  {  // the cube is x * (x * y) with y another tensor: not a Gelu of x
    GraphBuilder b(17);
    b.input("x", DType::F32, Shape{kGeluRows, kGeluCols}).input("z", DType::F32, Shape{kGeluRows, kGeluCols});
    add_gelu_tanh(b, "torch", "x");
    IrModel model = b.output("out", DType::F32).build();
    for (IrNode& node : model.graph.nodes) {
      if (node.outputs[0] == "sq") node.inputs = {"x", "z"};
    }
    const auto fast = compiled(model, ExecutionMode::Fast);
    EXPECT_EQ(count_kernels(*fast, "GeluOp"), 0u);
  }
}

// MatMul + bias + the tanh form: one packed product with the Gelu tanh kernel in its epilogue.
TEST(GeluPass, TanhFormCombinesWithLinearPackFuse) {
  const test::RequireSplit two_thread_runs_split;
  constexpr std::int64_t kK = 300;
  GraphBuilder b(17);
  b.input("a", DType::F32, Shape{kRows, kK})
      .initializer("w", values(Shape{kK, kCols}, 3, 0.2f))
      .initializer("bias", values(Shape{kCols}, 5))
      .node("MatMul", {"a", "w"}, {"y"})
      .node("Add", {"y", "bias"}, {"x"});
  add_gelu_tanh(b, "gpt2", "x");
  const IrModel model = b.output("out", DType::F32).build();
  const auto fast = compiled(model, ExecutionMode::Fast);
  ASSERT_EQ(fast->nodes.size(), 1u);
  EXPECT_EQ(count_kernels(*fast, "LinearOp"), 1u);
  check(model, {{"a", values(Shape{kRows, kK}, 13)}}, 10, 1, "LinearOp", 1, "matmul bias gelu tanh", 1);
}

// ---- attention -----------------------------------------------------------------------------

constexpr std::int64_t kB = 2, kS = 37, kH = 3, kD = 16, kSk = 70;

struct AttentionOptions {
  bool split_q = true, split_v = true, merge = true;
  bool k_from_bshd = true;  // K transposed by (0,2,3,1) from [b,s,h,d], else (0,1,3,2) from [b,h,s,d]
  std::string scale = "mul";  // "mul", "div", "none"; "operands": Q and Kt each times a scalar
  std::string mask = "padding";  // "padding" [b,1,1,sk], "causal" [sq,sk] constant, "none"
  int prob_casts = 0;            // Casts to float32 between the Softmax and the P V product
  bool runtime_scale = false;    // "operands": Kt's scale is a graph input, not a constant
  std::int64_t runtime_scale_elements = 1;  // its extent (a scale per key when kSk: the stages run)
  bool half_round_trip = false;  // the probabilities go through float16 and back (not an identity)
};

GraphBuilder attention_graph(const AttentionOptions& o) {
  GraphBuilder b(17);
  const auto layout = [](bool bshd, std::int64_t s, std::int64_t d) { return bshd ? Shape{kB, s, kH, d} : Shape{kB, kH, s, d}; };
  b.input("q", DType::F32, layout(o.split_q, kS, kD))
      .input("k", DType::F32, layout(o.k_from_bshd, kSk, kD))
      .input("v", DType::F32, layout(o.split_v, kSk, kD));
  std::string q = "q", v = "v";
  if (o.split_q) {
    b.node("Transpose", {"q"}, {"qt"}, {ints_attr("perm", {0, 2, 1, 3})});
    q = "qt";
  }
  if (o.split_v) {
    b.node("Transpose", {"v"}, {"vt"}, {ints_attr("perm", {0, 2, 1, 3})});
    v = "vt";
  }
  b.node("Transpose", {"k"}, {"kt"}, {ints_attr("perm", o.k_from_bshd ? std::vector<std::int64_t>{0, 2, 3, 1}
                                                                       : std::vector<std::int64_t>{0, 1, 3, 2})});
  std::string kt = "kt";
  if (o.scale == "operands") {
    // torchvision's multi-head attention: each operand times the fourth root of 1/d.
    b.initializer("qs", scalar(0.5f)).node("Mul", {q, "qs"}, {"q_scaled"});
    q = "q_scaled";
    if (o.runtime_scale) {
      b.input("ks", DType::F32, Shape{o.runtime_scale_elements});
    } else {
      b.initializer("ks", scalar(0.5f));
    }
    b.node("Mul", {"kt", "ks"}, {"kt_scaled"});
    kt = "kt_scaled";
  }
  b.node("MatMul", {q, kt}, {"scores"});
  std::string s = "scores";
  if (o.scale == "mul") {
    b.node("Constant", {}, {"c"}, {float_attr("value_float", 0.25f)}).node("Mul", {s, "c"}, {"scaled"});
    s = "scaled";
  } else if (o.scale == "div") {
    b.initializer("c", scalar(4.0f)).node("Div", {s, "c"}, {"scaled"});
    s = "scaled";
  }
  if (o.mask == "padding") {
    b.input("mask", DType::F32, Shape{kB, 1, 1, kSk}).node("Add", {s, "mask"}, {"masked"});
    s = "masked";
  } else if (o.mask == "causal") {
    std::vector<float> m(static_cast<std::size_t>(kS * kSk));
    for (std::int64_t i = 0; i < kS; ++i)
      for (std::int64_t j = 0; j < kSk; ++j) m[static_cast<std::size_t>(i * kSk + j)] = j <= i + (kSk - kS) ? 0.0f : -INFINITY;
    b.initializer("causal", Tensor::from_values<float>(DType::F32, Shape{kS, kSk}, m)).node("Add", {"causal", s}, {"masked"});
    s = "masked";
  }
  b.node("Softmax", {s}, {"p"}, {int_attr("axis", -1)});
  std::string p = "p";
  if (o.half_round_trip) {
    b.node("Cast", {p}, {"p_half"}, {int_attr("to", 10)}).node("Cast", {"p_half"}, {"p_back"}, {int_attr("to", 1)});
    p = "p_back";
  }
  for (int c = 0; c < o.prob_casts; ++c) {
    b.node("Cast", {p}, {"p_cast" + std::to_string(c)}, {int_attr("to", 1)});
    p = "p_cast" + std::to_string(c);
  }
  b.node("MatMul", {p, v}, {"o"});
  if (o.merge) {
    b.node("Transpose", {"o"}, {"out"}, {ints_attr("perm", {0, 2, 1, 3})});
  } else {
    b.node("Identity", {"o"}, {"out"});
  }
  return b;
}

Feeds attention_feeds(const AttentionOptions& o) {
  const auto layout = [](bool bshd, std::int64_t s) { return bshd ? Shape{kB, s, kH, kD} : Shape{kB, kH, s, kD}; };
  Feeds feeds{{"q", values(layout(o.split_q, kS), 1, 6.0f)},
              {"k", values(layout(o.k_from_bshd, kSk), 2, 6.0f)},
              {"v", values(layout(o.split_v, kSk), 3)}};
  if (o.mask == "padding") {
    std::vector<float> m(static_cast<std::size_t>(kB * kSk), 0.0f);
    for (std::int64_t j = 60; j < kSk; ++j) m[static_cast<std::size_t>(kSk + j)] = -3.4028235e38f;  // batch 1 padded
    feeds.emplace_back("mask", Tensor::from_values<float>(DType::F32, Shape{kB, 1, 1, kSk}, m));
  }
  if (o.runtime_scale) {
    std::vector<float> ks(static_cast<std::size_t>(o.runtime_scale_elements));
    for (std::size_t j = 0; j < ks.size(); ++j) ks[j] = 0.5f + 0.01f * static_cast<float>(j);
    feeds.emplace_back("ks", Tensor::from_values<float>(DType::F32, Shape{o.runtime_scale_elements}, ks));
  }
  return feeds;
}

std::size_t attention_nodes(const AttentionOptions& o) {
  const std::size_t scale_nodes = o.scale == "none" ? 0 : o.scale == "mul" ? 2 : o.scale == "operands" ? 2 : 1;
  return 5 + (o.split_q ? 1 : 0) + (o.split_v ? 1 : 0) + scale_nodes + (o.mask == "none" ? 0 : 1) +
         static_cast<std::size_t>(o.prob_casts) + (o.half_round_trip ? 2 : 0);
}

TEST(AttentionPass, FiresOnExportedPatterns) {
  const test::RequireSplit two_thread_runs_split;
  std::vector<std::pair<std::string, AttentionOptions>> cases;
  cases.push_back({"bert: split, (0,2,3,1), mul, padding mask, merge", {}});
  AttentionOptions o;
  o.scale = "div";
  o.mask = "causal";
  o.k_from_bshd = false;
  cases.push_back({"div, causal constant mask, K (0,1,3,2)", o});
  o = AttentionOptions{};
  o.split_q = o.split_v = o.merge = false;
  o.k_from_bshd = false;
  o.scale = "none";
  o.mask = "none";
  cases.push_back({"contiguous [b,h,s,d], no scale, no mask, no merge", o});
  o = AttentionOptions{};
  o.prob_casts = 2;
  cases.push_back({"two float32 Casts of the probabilities (transformers exports)", o});
  o = AttentionOptions{};
  o.scale = "operands";
  o.k_from_bshd = false;
  o.mask = "none";
  cases.push_back({"Q and Kt each times a constant scalar (torchvision)", o});
  o.runtime_scale = true;
  cases.push_back({"Kt times a scalar computed at run time", o});
  o.runtime_scale_elements = kSk;
  cases.push_back({"Kt times a value per key at run time (the stages run)", o});
  for (const auto& [name, options] : cases) {
    GraphBuilder b = attention_graph(options);
    b.output("out", DType::F32);
    // The fused node, plus the Identity when there is no merge transpose.
    check(b.build(), attention_feeds(options), attention_nodes(options), options.merge ? 1 : 2, "AttentionFusedOp", 1, name);
  }
}

TEST(AttentionPass, NearMissesAreLeftAlone) {
  const test::RequireSplit two_thread_runs_split;
  {  // the probabilities are also a graph output
    GraphBuilder b = attention_graph({});
    b.output("out", DType::F32).output("p", DType::F32);
    const AttentionOptions o;
    // Unfused, but constant-fold (graph-passes.md, level Basic) makes the scale's Constant node a
    // constant: one node fewer; and matmul-transpose reads the three head Transposes (Q, K^T, V)
    // in place in the two MatMuls: three fewer.
    check(b.build(), attention_feeds(o), attention_nodes(o), attention_nodes(o) - 4, "AttentionFusedOp", 0, "p is an output");
  }
  {  // the scale is not a constant
    AttentionOptions o;
    o.scale = "none";
    GraphBuilder b = attention_graph(o);
    b.input("c", DType::F32, Shape{}).node("Mul", {"out", "c"}, {"out2"}).output("out2", DType::F32);
    const IrModel model = b.build();
    EXPECT_EQ(count_kernels(*compiled(model, ExecutionMode::Fast), "AttentionFusedOp"), 1u);  // the Mul is after
  }
  {  // the probabilities rounded to float16 and back: not an identity, so not absorbed
    AttentionOptions o;
    o.half_round_trip = true;
    GraphBuilder b = attention_graph(o);
    b.output("out", DType::F32);
    EXPECT_EQ(count_kernels(*compiled(b.build(), ExecutionMode::Fast), "AttentionFusedOp"), 0u);
  }
  {  // Softmax over another axis
    GraphBuilder b(17);
    b.input("q", DType::F32, Shape{kB, kH, kS, kD})
        .input("k", DType::F32, Shape{kB, kH, kSk, kD})
        .input("v", DType::F32, Shape{kB, kH, kSk, kD})
        .node("Transpose", {"k"}, {"kt"}, {ints_attr("perm", {0, 1, 3, 2})})
        .node("MatMul", {"q", "kt"}, {"s"})
        .node("Softmax", {"s"}, {"p"}, {int_attr("axis", 2)})
        .node("MatMul", {"p", "v"}, {"out"})
        .output("out", DType::F32);
    EXPECT_EQ(count_kernels(*compiled(b.build(), ExecutionMode::Fast), "AttentionFusedOp"), 0u);
  }
}

// A mask that does not broadcast to [b,h,sq,sk] in the kernel's way (here it adds an axis) runs
// the replaced nodes (the stages) and gives the unfused graph's result.
TEST(AttentionPass, StagesServeWhatTheKernelDoesNot) {
  const test::RequireSplit two_thread_runs_split;
  GraphBuilder c(17);
  c.input("q", DType::F32, Shape{kB, kH, kS, kD})
      .input("k", DType::F32, Shape{kB, kH, kSk, kD})
      .input("v", DType::F32, Shape{kB, kH, kSk, kD})
      .input("mask", DType::F32, Shape{2, 1, 1, 1, kSk})
      .node("Transpose", {"k"}, {"kt"}, {ints_attr("perm", {0, 1, 3, 2})})
      .node("MatMul", {"q", "kt"}, {"s"})
      .node("Add", {"s", "mask"}, {"sm"})
      .node("Softmax", {"sm"}, {"p"}, {int_attr("axis", -1)})
      .node("MatMul", {"p", "v"}, {"out"})
      .output("out", DType::F32);
  Feeds feeds{{"q", values(Shape{kB, kH, kS, kD}, 1)},
              {"k", values(Shape{kB, kH, kSk, kD}, 2)},
              {"v", values(Shape{kB, kH, kSk, kD}, 3)},
              {"mask", values(Shape{2, 1, 1, 1, kSk}, 4)}};
  check(c.build(), feeds, 5, 1, "AttentionFusedOp", 1, "5-D mask");
}

// ---- conv-batchnorm-fold -------------------------------------------------------------------

GraphBuilder conv_bn_graph(bool with_bias, std::int64_t group = 1, std::vector<IrAttribute> bn_extra = {}) {
  const std::int64_t m = 8, c = 4;
  GraphBuilder b(17);
  b.input("x", DType::F32, Shape{2, c, 11, 13})
      .initializer("w", values(Shape{m, c / group, 3, 3}, 21, 1.0f))
      .initializer("scale", values(Shape{m}, 22, 2.0f))
      .initializer("beta", values(Shape{m}, 23))
      .initializer("mean", values(Shape{m}, 24))
      .initializer("var", Tensor::from_values<float>(DType::F32, Shape{m}, {0.5f, 1.0f, 2.0f, 0.25f, 3.0f, 0.1f, 1.5f, 0.75f}));
  std::vector<std::string> inputs{"x", "w"};
  if (with_bias) {
    b.initializer("b", values(Shape{m}, 25));
    inputs.push_back("b");
  }
  b.node("Conv", inputs, {"y"}, {ints_attr("pads", {1, 1, 1, 1}), int_attr("group", group)})
      .node("BatchNormalization", {"y", "scale", "beta", "mean", "var"}, {"out"}, [&] {
        std::vector<IrAttribute> attributes{float_attr("epsilon", 1e-3f)};
        attributes.insert(attributes.end(), bn_extra.begin(), bn_extra.end());
        return attributes;
      }());
  return b;
}

TEST(ConvBatchnormFold, FoldsWithAndWithoutBias) {
  const test::RequireSplit two_thread_runs_split;
  for (bool with_bias : {false, true}) {
    for (std::int64_t group : {1, 2}) {
      GraphBuilder b = conv_bn_graph(with_bias, group);
      b.output("out", DType::F32);
      const IrModel model = b.build();
      const auto fast = compiled(model, ExecutionMode::Fast);
      // Exact mode does not fold: conv-batchnorm-epilogue (bit-preserving) takes the pair into
      // one Conv that keeps the original weights.
      const auto exact = compiled(model, ExecutionMode::Exact);
      EXPECT_EQ(exact->nodes.size(), 1u);
      EXPECT_TRUE(exact->initializers[static_cast<std::size_t>(exact->value_id("w"))].defined());
      // The original weights are released (graph-passes.md "Memory").
      EXPECT_FALSE(fast->initializers[static_cast<std::size_t>(fast->value_id("w"))].defined());
      check(model, {{"x", values(Shape{2, 4, 11, 13}, 26)}}, 2, 1, "Conv", 1,
            std::string("bias ") + (with_bias ? "yes" : "no") + " group " + std::to_string(group), 1);
    }
  }
}

TEST(ConvBatchnormFold, NearMissesAreLeftAlone) {
  const test::RequireSplit two_thread_runs_split;
  {  // the convolution's result is read twice
    GraphBuilder b = conv_bn_graph(true);
    b.node("Add", {"y", "out"}, {"out2"}).output("out2", DType::F32);
    EXPECT_EQ(compiled(b.build(), ExecutionMode::Fast)->nodes.size(), 3u);
  }
  {  // the convolution's result is also a graph output: folding would change it
    GraphBuilder b = conv_bn_graph(true);
    b.output("out", DType::F32).output("y", DType::F32);
    EXPECT_EQ(compiled(b.build(), ExecutionMode::Fast)->nodes.size(), 2u);
  }
  {  // training_mode = 1 normalises with the batch's own statistics, not the stored ones: not
     // folded (spec/ops/products-conv.md section 9.1)
    GraphBuilder b = conv_bn_graph(true, 1, {int_attr("training_mode", 1)});
    b.output("out", DType::F32);
    EXPECT_EQ(compiled(b.build(), ExecutionMode::Fast)->nodes.size(), 2u);
  }
  {  // the statistics are an input
    GraphBuilder b(17);
    b.input("x", DType::F32, Shape{1, 2, 5, 5})
        .input("mean", DType::F32, Shape{2})
        .initializer("w", values(Shape{2, 2, 1, 1}, 1))
        .initializer("scale", values(Shape{2}, 2))
        .initializer("beta", values(Shape{2}, 3))
        .initializer("var", values(Shape{2}, 4, 1.0f))
        .node("Conv", {"x", "w"}, {"y"})
        .node("BatchNormalization", {"y", "scale", "beta", "mean", "var"}, {"out"})
        .output("out", DType::F32);
    EXPECT_EQ(compiled(b.build(), ExecutionMode::Fast)->nodes.size(), 2u);
  }
}

// ---- linear-pack-fuse memory ---------------------------------------------------------------

TEST(LinearPackFuseMemory, PackedWeightReplacesTheOriginal) {
  const test::RequireSplit two_thread_runs_split;
  constexpr std::int64_t kK = 64, kN = 48;
  for (ExecutionMode mode : {ExecutionMode::Exact, ExecutionMode::Fast}) {
    GraphBuilder b(17);
    b.input("a", DType::F32, Shape{5, kK})
        .initializer("w", values(Shape{kK, kN}, 1))
        .initializer("w2", values(Shape{kN, kK}, 2))
        .node("MatMul", {"a", "w"}, {"y"})
        .node("MatMul", {"y", "w2"}, {"z"})
        .node("Relu", {"z"}, {"out"})
        .node("Identity", {"w2"}, {"w2copy"})  // w2 also read here: kept
        .output("out", DType::F32)
        .output("w2copy", DType::F32);
    // a lone MatMul is fused too, so that its B is released
    const IrModel model = b.build();
    const auto graph = compiled(model, mode);
    EXPECT_EQ(graph->nodes.size(), 3u);
    EXPECT_FALSE(graph->initializers[static_cast<std::size_t>(graph->value_id("w"))].defined());
    EXPECT_TRUE(graph->initializers[static_cast<std::size_t>(graph->value_id("w2"))].defined());
    const Feeds feeds{{"a", values(Shape{5, kK}, 3)}};
    if (mode == ExecutionMode::Exact) {
      for (int threads : {1, 2}) {
        test::expect_same_outputs(run(model, EngineKind::Optimized, mode, OptimizationLevel::All, threads, feeds),
                    run(model, EngineKind::Reference, mode, OptimizationLevel::All, 1, feeds), "exact vs reference");
      }
    }
  }
}

// ---- the tiny BERT export (tests/data/passes/make_tiny_bert.py) -----------------------------

std::filesystem::path data(const char* name) { return std::filesystem::path(ONEMODEL_SOURCE_DIR) / "tests/data/passes" / name; }

TEST(TinyBert, FusesTheExportAndMatchesOnnxRuntime) {
  const test::RequireSplit two_thread_runs_split;
  const IrModel model = load_model_file(data("tiny_bert.onnx"));
  const auto fast = compiled(model, ExecutionMode::Fast);
  const auto exact = compiled(model, ExecutionMode::Exact);
  // 2 layers: one GELU and one attention each; 12 products with constant weights (4 attention
  // + 2 feed-forward per layer), the intermediate ones carrying the Gelu in their epilogue.
  EXPECT_EQ(count_kernels(*fast, "AttentionFusedOp"), 2u);
  EXPECT_EQ(count_kernels(*fast, "GeluOp"), 0u);  // both absorbed by linear-pack-fuse
  EXPECT_EQ(count_kernels(*fast, "LinearOp"), 12u);
  EXPECT_EQ(count_kernels(*exact, "AttentionFusedOp"), 0u);
  EXPECT_EQ(count_kernels(*exact, "GeluOp"), 0u);
  const Feeds feeds{{"input_ids", conformance::read_npy(data("tiny_bert_input_ids.npy"))},
                    {"attention_mask", conformance::read_npy(data("tiny_bert_attention_mask.npy"))}};
  const Tensor ort = conformance::read_npy(data("tiny_bert_ort.npy"));
  const auto reference = run(model, EngineKind::Reference, ExecutionMode::Exact, OptimizationLevel::All, 1, feeds);
  for (int threads : {1, 2}) {
    const auto fused = run(model, EngineKind::Optimized, ExecutionMode::Fast, OptimizationLevel::All, threads, feeds);
    const auto unfused = run(model, EngineKind::Optimized, ExecutionMode::Fast, OptimizationLevel::None, threads, feeds);
    expect_scaled(fused, {ort}, 1e-5, "fast fused vs ONNX Runtime");
    expect_scaled(fused, unfused, 1e-5, "fast fused vs unfused");
    test::expect_same_outputs(run(model, EngineKind::Optimized, ExecutionMode::Exact, OptimizationLevel::All, threads, feeds), reference,
                "exact vs reference");
  }
}

}  // namespace
}  // namespace onemodel
