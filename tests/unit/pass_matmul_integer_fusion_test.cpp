// matmul-integer-fusion (graph-passes.md, bits preserved; spec-source int8.md, Operators row
// MatMulIntegerToFloat and Graph rewrites): MatMulInteger -> Cast(float) -> Mul(scale) [-> Add]
// becomes one node exactly where it should (counted in the compiled graph), and the fused graph
// gives the bits of the unfused graph (OptimizationLevel::None: the MatMulInteger override, the
// reference Cast and the Mul and Add overrides) in exact AND fast mode, and of the reference
// engine, on every instruction-set path at 1 and 2 threads. Near misses stay unfused and still
// give those bits.
#include <gtest/gtest.h>

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
using ir_builder::float_bits;
using ir_builder::int_attr;

// Two blocks of the product's 48 rows (so two threads share a call), K odd, N ragged strips.
constexpr std::int64_t kM = 50, kK = 67, kN = 45;

std::uint32_t next(std::uint32_t& state) {
  state = state * 1664525u + 1013904223u;
  return state >> 8;
}

// 8-bit values of the type over [lo, hi] (as int), or the full range.
Tensor bytes(DType type, const Shape& shape, std::uint32_t seed, int lo = -1000, int hi = 1000) {
  std::uint32_t state = seed;
  const bool s = type == DType::I8;
  if (lo == -1000) lo = s ? -128 : 0;
  if (hi == 1000) hi = s ? 127 : 255;
  const auto count = static_cast<std::size_t>(shape.element_count());
  if (s) {
    std::vector<std::int8_t> v(count);
    for (auto& x : v) x = static_cast<std::int8_t>(lo + static_cast<int>(next(state) % static_cast<std::uint32_t>(hi - lo + 1)));
    return Tensor::from_values<std::int8_t>(type, shape, v);
  }
  std::vector<std::uint8_t> v(count);
  for (auto& x : v) x = static_cast<std::uint8_t>(lo + static_cast<int>(next(state) % static_cast<std::uint32_t>(hi - lo + 1)));
  return Tensor::from_values<std::uint8_t>(type, shape, v);
}

// Floats of magnitude about `size` with NaN, infinities and -0 mixed in when `specials`.
Tensor floats(const Shape& shape, std::uint32_t seed, float size, bool specials) {
  std::uint32_t state = seed;
  std::vector<float> v(static_cast<std::size_t>(shape.element_count()));
  for (float& x : v) x = (static_cast<float>(next(state)) / 16777216.0f - 0.3f) * size;
  if (specials && v.size() >= 8) {
    v[1] = std::numeric_limits<float>::quiet_NaN();
    v[2] = std::numeric_limits<float>::infinity();
    v[4] = -std::numeric_limits<float>::infinity();
    v[5] = -0.0f;
    v[7] = 3e38f;  // times a large product: overflows to infinity
  } else if (specials && !v.empty()) {
    v[0] = std::numeric_limits<float>::quiet_NaN();
  }
  return Tensor::from_values<float>(DType::F32, shape, v);
}

// One pattern: which variant of the chain quantize_dynamic (or a hand-made graph) writes.
struct Pattern {
  DType a_type = DType::U8, b_type = DType::I8;
  Shape a_shape{kM, kK};
  Shape b_shape{kK, kN};
  bool b_runtime = false;
  enum class Zero { None, Tensor, Axis } za = Zero::Tensor, zb = Zero::Tensor;  // Axis: [m] rows / [n] columns
  Shape scale_shape{};
  bool scale_runtime = false;  // Mul(x_scale, w_scale) of two inputs, placed after MatMulInteger
  bool scale_first = false;
  bool add = true;
  Shape bias_shape{kN};
  bool bias_runtime = false;
  bool bias_first = false;
  bool specials = false;  // NaN and infinities in the scale and the bias
  int lo = -1000, hi = 1000;  // A's and B's value range (default: the type's)
};

struct Case {
  IrModel model;
  std::size_t unfused_nodes;
  std::size_t fused_nodes;
  test::Feeds feeds;
};

Case make_case(const Pattern& p) {
  GraphBuilder g(20);
  test::Feeds feeds;
  const std::int64_t m = p.a_shape[p.a_shape.rank() - 2];
  const std::int64_t n = p.b_shape[p.b_shape.rank() - 1];
  g.input("a", p.a_type, p.a_shape);
  feeds.emplace_back("a", bytes(p.a_type, p.a_shape, 3, p.lo, p.hi));
  if (p.b_runtime) {
    g.input("b", p.b_type, p.b_shape);
    feeds.emplace_back("b", bytes(p.b_type, p.b_shape, 5, p.lo, p.hi));
  } else {
    g.initializer("b", bytes(p.b_type, p.b_shape, 5, p.lo, p.hi));
  }
  std::vector<std::string> product{"a", "b"};
  if (p.za != Pattern::Zero::None) {
    g.initializer("za", bytes(p.a_type, p.za == Pattern::Zero::Axis ? Shape{m} : Shape{}, 7));
    product.push_back("za");
  }
  if (p.zb != Pattern::Zero::None) {
    if (p.za == Pattern::Zero::None) product.push_back("");
    g.initializer("zb", bytes(p.b_type, p.zb == Pattern::Zero::Axis ? Shape{n} : Shape{}, 9));
    product.push_back("zb");
  }
  std::size_t nodes = 3;
  g.node("MatMulInteger", product, {"q"});
  if (p.scale_runtime) {
    g.input("xs", DType::F32, Shape{}).input("ws", DType::F32, p.scale_shape);
    feeds.emplace_back("xs", floats(Shape{}, 11, 0.02f, false));
    feeds.emplace_back("ws", floats(p.scale_shape, 13, 0.5f, p.specials));
    g.node("Mul", {"xs", "ws"}, {"scale"});
    ++nodes;
  } else {
    g.initializer("scale", floats(p.scale_shape, 13, 0.01f, p.specials));
  }
  g.node("Cast", {"q"}, {"c"}, {int_attr("to", 1)});
  const std::string product_out = p.add ? "p" : "out";
  g.node("Mul", p.scale_first ? std::vector<std::string>{"scale", "c"} : std::vector<std::string>{"c", "scale"}, {product_out});
  if (p.add) {
    if (p.bias_runtime) {
      g.input("bias", DType::F32, p.bias_shape);
      feeds.emplace_back("bias", floats(p.bias_shape, 17, 4.0f, p.specials));
    } else {
      g.initializer("bias", floats(p.bias_shape, 17, 4.0f, p.specials));
    }
    g.node("Add", p.bias_first ? std::vector<std::string>{"bias", "p"} : std::vector<std::string>{"p", "bias"}, {"out"});
    ++nodes;
  }
  g.output("out", DType::F32);
  // Fused: the one MatMulIntegerToFloat node, plus the scale's Mul when the scale is made at run time.
  return Case{g.build(), nodes, p.scale_runtime ? 2u : 1u, std::move(feeds)};
}

std::size_t compiled_nodes(const IrModel& model, OptimizationLevel level, ExecutionMode mode) {
  SessionOptions options;
  options.mode = mode;
  options.optimization_level = level;
  opt::ThreadPool pool(1);
  return opt::compile_graph(model, options, opt::OptimizedConfig{opt::Isa::Scalar, &pool})->nodes.size();
}

std::vector<Tensor> run(const IrModel& model, EngineKind engine, ExecutionMode mode, OptimizationLevel level, int threads,
                        const test::Feeds& feeds) {
  return test::run_session(model, engine, mode, level, threads, feeds);
}


// The node counts, then the fused graph against the unfused one (both modes) and the reference
// engine (exact), on every path this machine has, at 1 and 2 threads.
void check_case(const Case& c, const std::string& name) {
  SCOPED_TRACE(name);
  EXPECT_EQ(compiled_nodes(c.model, OptimizationLevel::None, ExecutionMode::Exact), c.unfused_nodes);
  EXPECT_EQ(compiled_nodes(c.model, OptimizationLevel::All, ExecutionMode::Exact), c.fused_nodes);
  EXPECT_EQ(compiled_nodes(c.model, OptimizationLevel::All, ExecutionMode::Fast), c.fused_nodes);
  const auto reference = run(c.model, EngineKind::Reference, ExecutionMode::Exact, OptimizationLevel::All, 1, c.feeds);
  for (const opt::Isa path : opt::available_isas()) {
    const std::string isa(opt::isa_name(path));
    ::setenv("ONEMODEL_ISA", isa.c_str(), 1);
    for (int threads : {1, 2}) {
      const std::string where = isa + " threads " + std::to_string(threads);
      for (const ExecutionMode mode : {ExecutionMode::Exact, ExecutionMode::Fast}) {
        const std::string how = std::string(mode == ExecutionMode::Exact ? "exact" : "fast") + ", " + where;
        const auto fused = run(c.model, EngineKind::Optimized, mode, OptimizationLevel::All, threads, c.feeds);
        const auto unfused = run(c.model, EngineKind::Optimized, mode, OptimizationLevel::None, threads, c.feeds);
        test::expect_same_outputs(fused, unfused, "fused vs unfused, " + how);
        test::expect_same_outputs(fused, reference, "fused vs reference engine, " + how);
      }
    }
  }
  ::unsetenv("ONEMODEL_ISA");
}

TEST(MatMulIntegerFusion, WithAndWithoutAddInEitherOperandOrder) {
  const test::RequireSplit two_thread_runs_split;
  for (bool add : {false, true}) {
    for (bool scale_first : {false, true}) {
      for (bool bias_first : {false, true}) {
        if (!add && bias_first) continue;
        Pattern p;
        p.add = add;
        p.scale_first = scale_first;
        p.bias_first = bias_first;
        check_case(make_case(p), "add " + std::to_string(add) + " scale first " + std::to_string(scale_first) +
                                     " bias first " + std::to_string(bias_first));
      }
    }
  }
}

TEST(MatMulIntegerFusion, ScaleAndBiasForms) {
  const test::RequireSplit two_thread_runs_split;
  // Scalar, one-element and per-column scales; vector, [1, n] and scalar biases.
  for (const Shape& scale : {Shape{}, Shape{1}, Shape{kN}, Shape{1, kN}}) {
    Pattern p;
    p.scale_shape = scale;
    p.bias_shape = scale.rank() == 2 ? Shape{1, kN} : Shape{};
    check_case(make_case(p), "scale " + scale.to_string());
  }
  Pattern runtime_bias;  // the bias a graph input, first operand
  runtime_bias.bias_runtime = true;
  runtime_bias.bias_first = true;
  runtime_bias.scale_shape = Shape{kN};
  check_case(make_case(runtime_bias), "runtime bias");
}

// quantize_dynamic's own form: the scale Mul(x_scale, w_scale) is another node, here after the
// MatMulInteger in node order (so the fused node must go where the Mul reading it was).
TEST(MatMulIntegerFusion, RuntimeScaleMadeAfterTheProduct) {
  const test::RequireSplit two_thread_runs_split;
  for (const Shape& ws : {Shape{}, Shape{kN}}) {
    Pattern p;
    p.scale_runtime = true;
    p.scale_shape = ws;
    p.bias_first = true;
    check_case(make_case(p), "w_scale " + ws.to_string());
  }
  // The whole quantize_dynamic chain from float32 x: DynamicQuantizeLinear, MatMulInteger with
  // its zero point, the scale's Mul after the product, Cast, Mul, Add(bias, .).
  GraphBuilder g(20);
  g.input("x", DType::F32, Shape{2, kM, kK})
      .initializer("w", bytes(DType::I8, Shape{kK, kN}, 5))
      .initializer("wz", bytes(DType::I8, Shape{}, 1, 0, 0))
      .initializer("ws", floats(Shape{kN}, 19, 0.01f, false))
      .initializer("bias", floats(Shape{kN}, 23, 2.0f, false))
      .node("DynamicQuantizeLinear", {"x"}, {"xq", "xs", "xz"})
      .node("MatMulInteger", {"xq", "w", "xz", "wz"}, {"q"})
      .node("Mul", {"xs", "ws"}, {"scale"})
      .node("Cast", {"q"}, {"c"}, {int_attr("to", 1)})
      .node("Mul", {"c", "scale"}, {"p"})
      .node("Add", {"bias", "p"}, {"out"})
      .output("out", DType::F32);
  check_case(Case{g.build(), 6, 3, {{"x", floats(Shape{2, kM, kK}, 29, 3.0f, false)}}}, "DynamicQuantizeLinear chain");
}

TEST(MatMulIntegerFusion, OperandTypesAndZeroPoints) {
  const test::RequireSplit two_thread_runs_split;
  using Zero = Pattern::Zero;
  for (DType a : {DType::U8, DType::I8}) {
    for (DType b : {DType::U8, DType::I8}) {
      for (const auto& [za, zb] : {std::pair{Zero::None, Zero::None}, std::pair{Zero::Tensor, Zero::Tensor},
                                   std::pair{Zero::None, Zero::Axis}, std::pair{Zero::Axis, Zero::Axis}}) {
        Pattern p;
        p.a_type = a;
        p.b_type = b;
        p.za = za;
        p.zb = zb;
        p.scale_shape = Shape{kN};
        check_case(make_case(p), std::string(dtype_name(a)) + " x " + std::string(dtype_name(b)) + " zero points " +
                                     std::to_string(static_cast<int>(za)) + std::to_string(static_cast<int>(zb)));
      }
    }
  }
}

TEST(MatMulIntegerFusion, ShapesBatchesAndRuntimeB) {
  const test::RequireSplit two_thread_runs_split;
  Pattern batched;  // A [b, m, k] times a constant B
  batched.a_shape = Shape{3, 20, kK};
  check_case(make_case(batched), "batched A");
  Pattern both;  // batched runtime B, broadcast over A's batch
  both.a_shape = Shape{2, 3, 17, kK};
  both.b_shape = Shape{3, kK, kN};
  both.b_runtime = true;
  both.scale_shape = Shape{kN};
  check_case(make_case(both), "batched runtime B");
  Pattern runtime_b;
  runtime_b.b_runtime = true;
  check_case(make_case(runtime_b), "runtime B");
  Pattern empty;  // M = 0: an empty output
  empty.a_shape = Shape{0, kK};
  check_case(make_case(empty), "empty M");
  Pattern one_k;  // K = 1 and one column
  one_k.a_shape = Shape{kM, 1};
  one_k.b_shape = Shape{1, 1};
  one_k.bias_shape = Shape{1};
  check_case(make_case(one_k), "K = 1, N = 1");
}

// NaN, infinities, -0 and an overflowing value in the scale and the bias (a runtime scale
// with them too): the NaN the Mul or Add would store, infinities where they would overflow.
TEST(MatMulIntegerFusion, SpecialScalesAndBiases) {
  const test::RequireSplit two_thread_runs_split;
  for (bool runtime : {false, true}) {
    Pattern p;
    p.specials = true;
    p.scale_shape = Shape{kN};
    p.scale_runtime = runtime;
    p.bias_runtime = runtime;
    check_case(make_case(p), runtime ? "runtime" : "constant");
  }
  Pattern nan_scalar;  // a scalar NaN scale
  nan_scalar.specials = true;
  nan_scalar.bias_shape = Shape{};
  check_case(make_case(nan_scalar), "NaN scalar scale and bias");
}

// Sums above 2^24 (uint8 operands in 200..255, K = 511, zero points 0: 511 * 200 * 200 > 2^24),
// so float(acc) rounds: the cast's rounding must come before the scale's. (Below 2^24 float(acc)
// is exact and rounding acc * scale once gives the same bits, so only this case can tell.)
TEST(MatMulIntegerFusion, SumsThatRoundInTheCast) {
  const test::RequireSplit two_thread_runs_split;
  Pattern p;
  p.a_type = DType::U8;
  p.b_type = DType::U8;
  p.a_shape = Shape{kM, 511};
  p.b_shape = Shape{511, kN};
  p.lo = 200;
  p.hi = 255;
  p.za = Pattern::Zero::None;
  p.zb = Pattern::Zero::None;
  p.scale_shape = Shape{kN};
  check_case(make_case(p), "large sums");
}

// Near misses: each stays as written (or fuses only up to the blocking value) and gives the same bits.
TEST(MatMulIntegerFusion, NearMissesAreLeftAlone) {
  const test::RequireSplit two_thread_runs_split;
  const auto base = [](GraphBuilder& g) {
    g.input("a", DType::U8, Shape{kM, kK})
        .initializer("b", bytes(DType::I8, Shape{kK, kN}, 5))
        .initializer("scale", floats(Shape{kN}, 13, 0.01f, false))
        .initializer("bias", floats(Shape{kN}, 17, 4.0f, false))
        .node("MatMulInteger", {"a", "b"}, {"q"});
  };
  const test::Feeds feeds{{"a", bytes(DType::U8, Shape{kM, kK}, 3)}};
  {  // the product read twice (a second Cast)
    GraphBuilder g;
    base(g);
    g.node("Cast", {"q"}, {"c"}, {int_attr("to", 1)})
        .node("Cast", {"q"}, {"c2"}, {int_attr("to", 1)})
        .node("Mul", {"c", "scale"}, {"p"})
        .node("Add", {"p", "c2"}, {"out"})
        .output("out", DType::F32);
    // (elementwise-chain leaves the Mul and the Add: their other operands are not one-element.)
    check_case(Case{g.build(), 5, 5, feeds}, "product read twice");
  }
  {  // the Cast's result is a graph output
    GraphBuilder g;
    base(g);
    g.node("Cast", {"q"}, {"c"}, {int_attr("to", 1)})
        .node("Mul", {"c", "scale"}, {"p"})
        .node("Add", {"p", "bias"}, {"out"})
        .output("out", DType::F32)
        .output("c", DType::F32);
    check_case(Case{g.build(), 4, 4, feeds}, "cast result is an output");
  }
  {  // the Mul's result is a graph output: the Add stays
    GraphBuilder g;
    base(g);
    g.node("Cast", {"q"}, {"c"}, {int_attr("to", 1)})
        .node("Mul", {"c", "scale"}, {"p"})
        .node("Add", {"p", "bias"}, {"out"})
        .output("out", DType::F32)
        .output("p", DType::F32);
    check_case(Case{g.build(), 4, 2, feeds}, "mul result is an output");
  }
  {  // a 2-D scale [m, n]
    GraphBuilder g;
    base(g);
    g.initializer("scale2", floats(Shape{kM, kN}, 31, 0.01f, false))
        .node("Cast", {"q"}, {"c"}, {int_attr("to", 1)})
        .node("Mul", {"c", "scale2"}, {"out"})
        .output("out", DType::F32);
    check_case(Case{g.build(), 3, 3, feeds}, "2-D scale");
  }
  {  // a bias [m, n]: the Mul fuses, the Add stays
    GraphBuilder g;
    base(g);
    g.initializer("bias2", floats(Shape{kM, kN}, 31, 1.0f, false))
        .node("Cast", {"q"}, {"c"}, {int_attr("to", 1)})
        .node("Mul", {"c", "scale"}, {"p"})
        .node("Add", {"p", "bias2"}, {"out"})
        .output("out", DType::F32);
    check_case(Case{g.build(), 4, 2, feeds}, "2-D bias");
  }
  {  // a Cast to double
    GraphBuilder g;
    base(g);
    g.initializer("scale_d", Tensor::from_values<double>(DType::F64, Shape{}, {0.01}))
        .node("Cast", {"q"}, {"c"}, {int_attr("to", 11)})
        .node("Mul", {"c", "scale_d"}, {"out"})
        .output("out", DType::F64);
    check_case(Case{g.build(), 3, 3, feeds}, "cast to double");
  }
  {  // a run-time scale [m, n]: fused (its shape is not known before the run), and the fused node
     // runs the replaced nodes for it
    GraphBuilder g;
    base(g);
    g.input("s", DType::F32, Shape{kM, kN})
        .node("Cast", {"q"}, {"c"}, {int_attr("to", 1)})
        .node("Mul", {"s", "c"}, {"out"})
        .output("out", DType::F32);
    check_case(Case{g.build(), 3, 1, {feeds[0], {"s", floats(Shape{kM, kN}, 37, 0.01f, true)}}}, "runtime 2-D scale");
  }
}

}  // namespace
}  // namespace onemodel
