// `conv-batchnorm-epilogue` (docs/design.md "BatchNormalization epilogue"): Conv ->
// BatchNormalization [-> activation] becomes one Conv node in exact mode (counted in the compiled
// graph), and that node gives the bits of the unfused graph (OptimizationLevel::None) and of the
// reference engine on every instruction-set path at 1 and 2 threads: each Conv kernel (im2col with
// padding and stride at batch 2, the 1x1 direct product, grouped, depthwise with a multiplier, the
// depthwise fallback, one spatial axis, and three spatial axes, which run the reference Conv),
// with and without bias and activation, epsilon default, 1e-3 and 0, and statistics holding NaN,
// -0, infinities, a zero and a negative variance. Fast mode: where the fold cannot run (a bias
// that is a graph input) the pass takes the pair, and the fused graph keeps the unfused bits too.
// Near misses (Conv result read twice, a graph output, statistics that are not constants) stay
// apart.
#include <gtest/gtest.h>

#include <cstdlib>
#include <limits>
#include <string>
#include <vector>

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
using ir_builder::int_attr;
using ir_builder::ints_attr;

constexpr float kNan = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();

// Values in [-2, 2) from a fixed generator; `specials` puts NaN, infinity, -0 and a large value in.
Tensor values(const Shape& shape, std::uint32_t seed, bool specials) {
  std::vector<float> v(static_cast<std::size_t>(shape.element_count()));
  std::uint32_t state = seed;
  for (float& x : v) {
    state = state * 1664525u + 1013904223u;
    x = (static_cast<float>(state >> 8) / 16777216.0f - 0.5f) * 4.0f;
  }
  if (specials && v.size() > 40) {
    v[3] = kNan;
    v[17] = kInf;
    v[29] = -0.0f;
    v[31] = 1e30f;
  }
  return Tensor::from_values<float>(DType::F32, shape, v);
}

Tensor vec(std::vector<float> v) {
  const auto n = static_cast<std::int64_t>(v.size());
  return Tensor::from_values<float>(DType::F32, Shape{n}, v);
}

// The four statistics of `m` channels: ordinary values, or with specials in the first channels.
struct Stats {
  Tensor scale, bias, mean, var;
};

Stats stats(std::int64_t m, bool specials) {
  std::vector<float> scale, bias, mean, var;
  for (std::int64_t c = 0; c < m; ++c) {
    const float f = static_cast<float>(c);
    scale.push_back(0.5f + 0.13f * f);
    bias.push_back(0.25f - 0.07f * f);
    mean.push_back(-0.3f + 0.11f * f);
    var.push_back(0.2f + 0.17f * f);
  }
  if (specials && m >= 6) {
    mean[0] = kNan;           // NaN shift, NaN output plane
    var[1] = -0.0f;           // sqrt(-0 + eps)
    scale[2] = -0.0f;         // a = -0: outputs +-0 plus shift
    var[3] = -4.0f;           // sqrt of a negative: NaN
    scale[4] = kInf;          // a = inf
    var[5] = 0.0f;            // with epsilon 0: a = scale / 0
    bias[5] = -0.0f;
  }
  return Stats{vec(scale), vec(bias), vec(mean), vec(var)};
}

struct ConvCase {
  const char* name;
  Shape x;
  Shape w;
  std::vector<IrAttribute> attributes;
};

std::vector<ConvCase> conv_cases() {
  return {
      {"3x3 padded, stride 2, batch 2", Shape{2, 3, 13, 11}, Shape{8, 3, 3, 3},
       {ints_attr("pads", {1, 1, 1, 1}), ints_attr("strides", {2, 1})}},
      {"1x1 direct", Shape{1, 5, 17, 19}, Shape{6, 5, 1, 1}, {}},
      {"grouped", Shape{1, 4, 9, 9}, Shape{6, 2, 3, 3}, {int_attr("group", 2)}},
      {"depthwise x2", Shape{1, 4, 10, 37}, Shape{8, 1, 3, 3}, {int_attr("group", 4), ints_attr("pads", {1, 1, 1, 1})}},
      {"depthwise fallback", Shape{2, 6, 12, 12}, Shape{6, 1, 9, 9}, {int_attr("group", 6)}},
      {"one spatial axis", Shape{2, 3, 40}, Shape{7, 3, 5}, {ints_attr("pads", {2, 2})}},
      {"three spatial axes (reference Conv)", Shape{1, 2, 4, 5, 6}, Shape{6, 2, 2, 2, 2}, {}},
      // 7x7 outputs: the channel-blocked kernel on the AVX-512 path, a whole and a partial block.
      {"depthwise channel-blocked", Shape{1, 18, 9, 7}, Shape{18, 1, 5, 5},
       {int_attr("group", 18), ints_attr("pads", {2, 2, 2, 2}), ints_attr("strides", {2, 1})}},
  };
}

std::size_t compiled_nodes(const IrModel& model, OptimizationLevel level, ExecutionMode mode) {
  SessionOptions options;
  options.mode = mode;
  options.optimization_level = level;
  opt::ThreadPool pool(1);
  return opt::compile_graph(model, options, opt::OptimizedConfig{opt::Isa::Scalar, &pool})->nodes.size();
}

// Exact mode: fused == unfused == reference, bit for bit, on every path at 1 and 2 threads. With
// `fast_keeps_bits`, fast mode too (the pass, not the fold, took the pair): fused == unfused.
void check_bits(const IrModel& model, const test::Feeds& feeds, const std::string& name, bool fast_keeps_bits) {
  SCOPED_TRACE(name);
  const auto reference = test::run_session(model, EngineKind::Reference, ExecutionMode::Exact, OptimizationLevel::All, 1, feeds);
  for (const opt::Isa path : opt::available_isas()) {
    const std::string isa(opt::isa_name(path));
    ::setenv("ONEMODEL_ISA", isa.c_str(), 1);
    for (int threads : {1, 2}) {
      const std::string where = isa + " threads " + std::to_string(threads);
      const auto fused = test::run_session(model, EngineKind::Optimized, ExecutionMode::Exact, OptimizationLevel::All, threads, feeds);
      const auto unfused =
          test::run_session(model, EngineKind::Optimized, ExecutionMode::Exact, OptimizationLevel::None, threads, feeds);
      test::expect_same_outputs(fused, reference, "exact fused vs reference, " + where);
      test::expect_same_outputs(fused, unfused, "exact fused vs unfused, " + where);
      if (fast_keeps_bits) {
        const auto fast = test::run_session(model, EngineKind::Optimized, ExecutionMode::Fast, OptimizationLevel::All, threads, feeds);
        const auto fast_unfused =
            test::run_session(model, EngineKind::Optimized, ExecutionMode::Fast, OptimizationLevel::None, threads, feeds);
        test::expect_same_outputs(fast, fast_unfused, "fast fused vs unfused, " + where);
      }
    }
  }
  ::unsetenv("ONEMODEL_ISA");
}

// Conv (x, w[, b]) -> BatchNormalization -> [activation] -> "out".
struct Build {
  explicit Build(const ConvCase* c) : conv(c) {}
  const ConvCase* conv;
  bool with_bias = true;
  bool bias_is_input = false;  // the bias fed at run time: the fast-mode fold cannot take it
  const char* activation = nullptr;
  std::vector<IrAttribute> bn_attributes;
  bool special_stats = false;
  std::int64_t opset = 15;
};

IrModel build(const Build& c) {
  const std::int64_t m = c.conv->w[0];
  const Stats s = stats(m, c.special_stats);
  GraphBuilder b(c.opset);
  b.input("x", DType::F32, c.conv->x).initializer("w", values(c.conv->w, 21, false));
  std::vector<std::string> conv_inputs{"x", "w"};
  if (c.with_bias) {
    if (c.bias_is_input) {
      b.input("b", DType::F32, Shape{m});
    } else {
      b.initializer("b", values(Shape{m}, 5, false));
    }
    conv_inputs.push_back("b");
  }
  b.initializer("scale", s.scale).initializer("beta", s.bias).initializer("mean", s.mean).initializer("var", s.var);
  b.node("Conv", conv_inputs, {"y"}, c.conv->attributes);
  const std::string bn_out = c.activation != nullptr ? "n" : "out";
  b.node("BatchNormalization", {"y", "scale", "beta", "mean", "var"}, {bn_out}, c.bn_attributes);
  if (c.activation != nullptr) b.node(c.activation, {"n"}, {"out"});
  b.output("out", DType::F32);
  return b.build();
}

test::Feeds feeds_for(const Build& c) {
  test::Feeds feeds{{"x", values(c.conv->x, 11, true)}};
  if (c.bias_is_input) feeds.emplace_back("b", values(Shape{c.conv->w[0]}, 5, true));
  return feeds;
}

TEST(ConvBatchNormEpilogue, EachKernelBiasActivation) {
  const test::RequireSplit two_thread_runs_split;
  for (const ConvCase& conv : conv_cases()) {
    for (bool with_bias : {true, false}) {
      for (const char* activation : {static_cast<const char*>(nullptr), "Relu", "HardSwish"}) {
        Build c(&conv);
        c.with_bias = with_bias;
        c.activation = activation;
        const IrModel model = build(c);
        const std::string name = std::string(conv.name) + (with_bias ? " bias " : " no bias ") +
                                 (activation != nullptr ? activation : "alone");
        const std::size_t nodes = activation != nullptr ? 3 : 2;
        EXPECT_EQ(compiled_nodes(model, OptimizationLevel::None, ExecutionMode::Exact), nodes) << name;
        EXPECT_EQ(compiled_nodes(model, OptimizationLevel::All, ExecutionMode::Exact), 1u) << name;
        check_bits(model, feeds_for(c), name, false);
      }
    }
  }
}

TEST(ConvBatchNormEpilogue, EpsilonAndSpecialStatistics) {
  const test::RequireSplit two_thread_runs_split;
  const std::vector<ConvCase> convs = conv_cases();
  const std::vector<std::pair<const char*, std::vector<IrAttribute>>> epsilons = {
      {"epsilon default", {}}, {"epsilon 1e-3", {float_attr("epsilon", 1e-3f)}}, {"epsilon 0", {float_attr("epsilon", 0.0f)}}};
  for (const std::size_t k : {std::size_t{0}, std::size_t{3}, std::size_t{6}}) {
    for (const auto& [eps_name, attributes] : epsilons) {
      Build c(&convs[k]);
      c.bn_attributes = attributes;
      c.special_stats = true;
      c.activation = k == 3 ? "Relu" : nullptr;
      const IrModel model = build(c);
      const std::string name = std::string(convs[k].name) + " " + eps_name;
      EXPECT_EQ(compiled_nodes(model, OptimizationLevel::All, ExecutionMode::Exact), 1u) << name;
      check_bits(model, feeds_for(c), name, false);
    }
  }
  // BatchNormalization-9 (no training_mode attribute) and -7 (spatial = 1 written out).
  Build nine(&convs[1]);
  nine.opset = 9;
  nine.special_stats = true;
  EXPECT_EQ(compiled_nodes(build(nine), OptimizationLevel::All, ExecutionMode::Exact), 1u);
  check_bits(build(nine), feeds_for(nine), "opset 9", false);
  Build seven(&convs[0]);
  seven.opset = 7;
  seven.bn_attributes = {int_attr("spatial", 1)};
  EXPECT_EQ(compiled_nodes(build(seven), OptimizationLevel::All, ExecutionMode::Exact), 1u);
  check_bits(build(seven), feeds_for(seven), "opset 7", false);
}

TEST(ConvBatchNormEpilogue, FastModeWhereTheFoldCannot) {
  const test::RequireSplit two_thread_runs_split;
  for (const ConvCase& conv : conv_cases()) {
    Build c(&conv);
    c.bias_is_input = true;
    c.activation = "Relu";
    c.special_stats = true;
    const IrModel model = build(c);
    EXPECT_EQ(compiled_nodes(model, OptimizationLevel::All, ExecutionMode::Fast), 1u) << conv.name;
    check_bits(model, feeds_for(c), std::string(conv.name) + " bias fed", true);
  }
}

TEST(ConvBatchNormEpilogue, NearMisses) {
  const test::RequireSplit two_thread_runs_split;
  const ConvCase conv = conv_cases()[0];
  const Stats s = stats(8, false);
  const auto base = [&](GraphBuilder& b) {
    b.input("x", DType::F32, conv.x).initializer("w", values(conv.w, 21, false));
    b.initializer("scale", s.scale).initializer("beta", s.bias).initializer("var", s.var);
    b.node("Conv", {"x", "w"}, {"y"}, conv.attributes);
  };
  const test::Feeds feeds{{"x", values(conv.x, 11, true)}};
  {
    GraphBuilder b(15);
    base(b);
    b.initializer("mean", s.mean);
    b.node("BatchNormalization", {"y", "scale", "beta", "mean", "var"}, {"n"}).node("Add", {"y", "n"}, {"out"});
    b.output("out", DType::F32);
    const IrModel model = b.build();
    EXPECT_EQ(compiled_nodes(model, OptimizationLevel::All, ExecutionMode::Exact), 3u);
    check_bits(model, feeds, "conv result read twice", false);
  }
  {
    GraphBuilder b(15);
    base(b);
    b.initializer("mean", s.mean);
    b.node("BatchNormalization", {"y", "scale", "beta", "mean", "var"}, {"out"});
    b.output("out", DType::F32).output("y", DType::F32);
    const IrModel model = b.build();
    EXPECT_EQ(compiled_nodes(model, OptimizationLevel::All, ExecutionMode::Exact), 2u);
    check_bits(model, feeds, "conv result is an output", false);
  }
  {
    GraphBuilder b(15);
    base(b);
    b.input("mean", DType::F32, Shape{8});
    b.node("BatchNormalization", {"y", "scale", "beta", "mean", "var"}, {"out"});
    b.output("out", DType::F32);
    const IrModel model = b.build();
    EXPECT_EQ(compiled_nodes(model, OptimizationLevel::All, ExecutionMode::Exact), 2u);
    test::Feeds with_mean = feeds;
    with_mean.emplace_back("mean", s.mean);
    check_bits(model, with_mean, "mean fed at run time", false);
  }
}

}  // namespace
}  // namespace onemodel
