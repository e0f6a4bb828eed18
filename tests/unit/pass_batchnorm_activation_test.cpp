// The `batchnorm-activation` pass (optimized/passes/batchnorm_activation.cpp, docs/design.md
// "BatchNormalization and its activation in one pass"): BatchNormalization -> activation, the
// normalization's result read by the activation alone and not a graph output, becomes one
// BatchNormalization node applying the activation to each value after x * a + shift. It claims to
// preserve bits, so:
//  - the fused graph (one node, shown as "BatchNormalization+activation" in run profiles) gives
//    the reference engine's bits and the unfused graph's (level None) in exact mode and the
//    unfused graph's in fast mode, on every kernel path at 1 and 2 threads
//    (tests/support/pass_bits.hpp): for each activation it takes (Relu, LeakyRelu and Clip in
//    registers, the others in cached blocks), planes long and short (the element-wise kernel and
//    the short-plane loop, each with a tail), ranks 2 to 5 and batch above 1, with NaN payloads,
//    infinities, signed zeros, subnormals and huge values in X, and NaN, -0, infinities, a zero
//    and a negative variance in the statistics, epsilon default, 1e-3 and 0, at opsets 7, 9 and 15,
//    statistics constant or fed at run time;
//  - what the override hands to the reference kernel (a strided X fed by the caller) runs the
//    activation's own kernel after it, with the same bits;
//  - it does not fire when the normalization's result has a second reader or is a graph output,
//    or when the BatchNormalization wants its training outputs.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "diff/graph_builder.hpp"
#include "onemodel/session.hpp"
#include "optimized/frame/thread_pool.hpp"
#include "optimized/ops/batch_norm_activation.hpp"
#include "optimized/ops/optimized_kernel.hpp"
#include "optimized/runtime/compiled_graph.hpp"
#include "optimized/runtime/node_profile.hpp"
#include "tests/support/ir_builder.hpp"
#include "tests/support/pass_bits.hpp"
#include "tests/support/session_runs.hpp"

namespace onemodel {
namespace {

using graph_builder::GraphBuilder;
using ir_builder::float_attr;
using ir_builder::int_attr;
using test::pass_bits::bits_everywhere;
using test::pass_bits::compiled;

constexpr float kNan = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();

Tensor vec(const std::vector<float>& v) {
  return Tensor::from_values<float>(DType::F32, Shape{static_cast<std::int64_t>(v.size())}, v);
}

// X with a special value about one in 23 (pass_bits' list plus the activations' corners).
Tensor input_values(const Shape& shape, std::uint32_t seed) {
  return test::pass_bits::input_values(shape, seed, 23, {-3.0f, 3.0f, 6.0f, -1.0f, 1.0f});
}

// The four statistics of `c` channels; with `specials`, the first channels hold NaN, -0,
// infinities, a zero and a negative variance (the epilogue test's set, batch_norm.hpp), and a
// channel whose outputs are +-0.
struct Stats {
  Tensor scale, bias, mean, var;
};

Stats stats(std::int64_t c, bool specials) {
  std::vector<float> scale, bias, mean, var;
  for (std::int64_t k = 0; k < c; ++k) {
    const float f = static_cast<float>(k % 11);
    scale.push_back(0.5f + 0.13f * f);
    bias.push_back(0.25f - 0.07f * f);
    mean.push_back(-0.3f + 0.11f * f);
    var.push_back(0.2f + 0.17f * f);
  }
  if (specials && c >= 9) {
    mean[0] = kNan;     // NaN shift: a NaN plane
    var[1] = -0.0f;     // sqrt(-0 + epsilon)
    scale[2] = -0.0f;   // a = -0: every x * a is +-0 (inf * -0 is NaN)
    var[3] = -4.0f;     // sqrt of a negative: NaN
    scale[4] = kInf;    // a = inf
    var[5] = 0.0f;      // with epsilon 0: a = scale / 0
    bias[5] = -0.0f;
    bias[6] = -kInf;    // shift -inf: x * a + shift is -inf or NaN
    scale[7] = -kNan;   // a NaN factor of the other sign
    scale[8] = -0.0f;   // a = -0 and shift = -0 - (-0 * -0) = -0: x * a + shift is -0 for x > 0,
    mean[8] = -0.0f;    // which Relu stores as +0
    bias[8] = -0.0f;
  }
  return Stats{vec(scale), vec(bias), vec(mean), vec(var)};
}

// An activation as the graph writes it: operator, attributes, Clip's bound inputs (opset 11 on).
struct Activation {
  const char* name;
  const char* op;
  std::vector<IrAttribute> attributes;
  std::vector<float> clip_bounds;  // Clip only: min, max (a NaN bound is written as such)
};

std::vector<Activation> activations() {
  return {
      {"Relu", "Relu", {}, {}},
      {"LeakyRelu", "LeakyRelu", {float_attr("alpha", 0.1f)}, {}},
      {"LeakyRelu negative alpha", "LeakyRelu", {float_attr("alpha", -1.5f)}, {}},
      {"Clip 0 6", "Clip", {}, {0.0f, 6.0f}},
      {"Clip -1 1", "Clip", {}, {-1.0f, 1.0f}},
      {"Clip NaN low", "Clip", {}, {kNan, 2.0f}},
      {"HardSwish", "HardSwish", {}, {}},
      {"HardSigmoid", "HardSigmoid", {float_attr("alpha", 0.25f), float_attr("beta", 0.4f)}, {}},
      {"Sigmoid", "Sigmoid", {}, {}},
      {"Tanh", "Tanh", {}, {}},
  };
}

struct Build {
  Shape x;
  const Activation* act = nullptr;
  bool special_stats = true;
  bool stats_fed = false;  // the statistics are graph inputs (read at run time)
  std::vector<IrAttribute> bn_attributes;
  std::int64_t opset = 15;
};

// x -> BatchNormalization -> activation -> "out".
IrModel build(const Build& c) {
  const Stats s = stats(c.x[1], c.special_stats);
  GraphBuilder b(c.opset);
  b.input("x", DType::F32, c.x);
  const Shape cs{c.x[1]};
  if (c.stats_fed) {
    b.input("scale", DType::F32, cs).input("beta", DType::F32, cs).input("mean", DType::F32, cs).input("var", DType::F32, cs);
  } else {
    b.initializer("scale", s.scale).initializer("beta", s.bias).initializer("mean", s.mean).initializer("var", s.var);
  }
  b.node("BatchNormalization", {"x", "scale", "beta", "mean", "var"}, {"n"}, c.bn_attributes);
  std::vector<std::string> act_inputs{"n"};
  if (!c.act->clip_bounds.empty()) {
    b.initializer("lo", Tensor::from_values<float>(DType::F32, Shape{}, {c.act->clip_bounds[0]}));
    b.initializer("hi", Tensor::from_values<float>(DType::F32, Shape{}, {c.act->clip_bounds[1]}));
    act_inputs.push_back("lo");
    act_inputs.push_back("hi");
  }
  b.node(c.act->op, act_inputs, {"out"}, c.act->attributes);
  b.output("out", DType::F32);
  return b.build();
}

test::Feeds feeds_for(const Build& c, std::uint32_t seed) {
  test::Feeds feeds{{"x", input_values(c.x, seed)}};
  if (c.stats_fed) {
    const Stats s = stats(c.x[1], c.special_stats);
    feeds.emplace_back("scale", s.scale);
    feeds.emplace_back("beta", s.bias);
    feeds.emplace_back("mean", s.mean);
    feeds.emplace_back("var", s.var);
  }
  return feeds;
}

// The fused graph's nodes (both modes alike) and what run profiles call its first node.
std::size_t fused_nodes(const IrModel& model) { return test::pass_bits::fused_nodes(model); }

std::string first_label(const IrModel& model, ExecutionMode mode) {
  const auto graph = compiled(model, mode);
  return graph->nodes.empty() ? "" : opt::describe_node(graph->nodes[0], opt::Isa::Scalar).op_type;
}

// Planes of 99 values (the element-wise kernel with a tail on every path), 49 and 7 (the
// short-plane loop with a tail of 1 and 3), 1 (rank 2), rank 5; [1, 40, 40, 40] is two chunks of
// the kernel's parallel loop, so the two-thread runs split.
std::vector<Shape> shapes() {
  return {Shape{2, 10, 9, 11}, Shape{1, 10, 7, 7}, Shape{3, 10, 7}, Shape{5, 12}, Shape{1, 10, 2, 3, 5},
          Shape{1, 40, 40, 40}};
}

TEST(BatchNormActivation, EachActivationEachShape) {
  const test::RequireSplit two_thread_runs_split;
  std::uint32_t seed = 1;
  for (const Activation& act : activations()) {
    for (const Shape& shape : shapes()) {
      Build c;
      c.x = shape;
      c.act = &act;
      const IrModel model = build(c);
      const std::string name = std::string(act.name) + " " + shape.to_string();
      SCOPED_TRACE(name);
      EXPECT_EQ(fused_nodes(model), 1u);
      EXPECT_EQ(compiled(model, ExecutionMode::Exact, OptimizationLevel::None)->nodes.size(), 2u);
      EXPECT_EQ(first_label(model, ExecutionMode::Exact), "BatchNormalization+activation");
      EXPECT_EQ(first_label(model, ExecutionMode::Fast), "BatchNormalization+activation");
      EXPECT_EQ(bits_everywhere(model, feeds_for(c, ++seed)), "");
    }
  }
}

TEST(BatchNormActivation, EpsilonOpsetAndStatistics) {
  const test::RequireSplit two_thread_runs_split;
  const std::vector<Activation> acts = activations();
  const Activation& relu = acts[0];
  const std::vector<std::pair<const char*, std::vector<IrAttribute>>> epsilons = {
      {"epsilon default", {}}, {"epsilon 1e-3", {float_attr("epsilon", 1e-3f)}}, {"epsilon 0", {float_attr("epsilon", 0.0f)}}};
  std::uint32_t seed = 100;
  for (const Activation* act : {&relu, &acts[3], &acts[8]}) {
    for (const auto& [eps_name, attributes] : epsilons) {
      for (const bool fed : {false, true}) {
        Build c;
        c.x = Shape{2, 16, 30, 37};
        c.act = act;
        c.bn_attributes = attributes;
        c.stats_fed = fed;
        const IrModel model = build(c);
        SCOPED_TRACE(std::string(act->name) + " " + eps_name + (fed ? " statistics fed" : " statistics constant"));
        EXPECT_EQ(fused_nodes(model), 1u);
        EXPECT_EQ(bits_everywhere(model, feeds_for(c, ++seed)), "");
      }
    }
  }
  // BatchNormalization-9 (no training_mode attribute) and -7 (spatial = 1 written out).
  for (const std::int64_t opset : {std::int64_t{7}, std::int64_t{9}}) {
    Build c;
    c.x = Shape{1, 12, 33, 33};
    c.act = &relu;
    c.opset = opset;
    if (opset == 7) c.bn_attributes = {int_attr("spatial", 1)};
    const IrModel model = build(c);
    SCOPED_TRACE("opset " + std::to_string(opset));
    EXPECT_EQ(fused_nodes(model), 1u);
    EXPECT_EQ(bits_everywhere(model, feeds_for(c, ++seed)), "");
  }
}

// What the override hands to the reference kernel (a strided X, which no graph run gives it: the
// session makes feeds contiguous) runs the activation node's own kernel on the reference's output.
// The fused kernel is built as the pass builds it and run directly on a transposed view; its
// output must be the reference engine's for the graph on the same values, with a fallback counted.
TEST(BatchNormActivation, ReferenceFallbackRunsTheActivation) {
  const std::vector<Activation> acts = activations();
  for (const Activation* act : {&acts[0], &acts[3], &acts[6]}) {
    SCOPED_TRACE(act->name);
    Build c;
    c.x = Shape{2, 10, 6, 5};
    c.act = act;
    // Stored as [2, 10, 5, 6] and viewed as [2, 10, 6, 5]: not contiguous.
    const Tensor strided = input_values(Shape{2, 10, 5, 6}, 77).transpose(2, 3);
    ASSERT_FALSE(strided.is_contiguous());
    const auto want = test::run_session(build(c), EngineKind::Reference, ExecutionMode::Exact, OptimizationLevel::All, 1,
                                        {{"x", strided.contiguous()}});
    for (const ExecutionMode mode : {ExecutionMode::Exact, ExecutionMode::Fast}) {
      IrNode bn_node;
      bn_node.op_type = "BatchNormalization";
      bn_node.name = "bn";
      bn_node.opset = 15;
      bn_node.inputs = {"x", "scale", "beta", "mean", "var"};
      bn_node.outputs = {"n"};
      IrNode act_node;
      act_node.op_type = act->op;
      act_node.name = "act";
      act_node.opset = 15;
      act_node.inputs = {"n"};
      if (!act->clip_bounds.empty()) act_node.inputs = {"n", "lo", "hi"};
      act_node.outputs = {"out"};
      act_node.attributes = act->attributes;
      const NodeInfo bn_info(bn_node, 15, mode);
      const NodeInfo act_info(act_node, 15, mode);
      opt::ThreadPool pool(1);
      const opt::OptimizedConfig config{opt::Isa::Scalar, &pool};
      std::vector<Tensor> bounds;
      for (const float bound : act->clip_bounds) bounds.push_back(Tensor::from_values<float>(DType::F32, Shape{}, {bound}));
      // What activation_args would give (the fallback runs the node's kernel, not these).
      opt::ew::UnaryArgs args{opt::ew::UnaryOp::Relu};
      if (!act->clip_bounds.empty()) args = {opt::ew::UnaryOp::Clip, act->clip_bounds[0], act->clip_bounds[1]};
      if (std::string(act->op) == "HardSwish") args = {opt::ew::UnaryOp::HardSwish};
      opt::FusedActivation fused{opt::find_optimized_op("", act->op, 15)->factory(act_info, config), act_info, args,
                                 bounds, DType::F32};
      const auto kernel = opt::make_optimized_batch_normalization_with_activation(bn_info, config, std::move(fused));
      const Stats s = stats(10, true);
      const std::vector<Tensor> inputs{strided, s.scale, s.bias, s.mean, s.var};
      std::vector<Tensor> outputs{Tensor::empty(DType::F32, c.x)};
      RunContext run(bn_info, inputs, outputs, nullptr, nullptr);
      const std::uint64_t before = opt::OptimizedKernel::fallbacks_on_this_thread();
      kernel->run(run);
      EXPECT_GT(opt::OptimizedKernel::fallbacks_on_this_thread(), before) << "the fused kernel did not fall back";
      EXPECT_EQ(test::pass_bits::difference(outputs, want), "");
    }
  }
}

TEST(BatchNormActivation, NearMisses) {
  const test::RequireSplit two_thread_runs_split;
  const Shape shape{1, 10, 40, 88};  // two chunks of the normalization's parallel loop
  const Stats s = stats(10, true);
  const auto base = [&](GraphBuilder& b) {
    b.input("x", DType::F32, shape);
    b.initializer("scale", s.scale).initializer("beta", s.bias).initializer("mean", s.mean).initializer("var", s.var);
    b.node("BatchNormalization", {"x", "scale", "beta", "mean", "var"}, {"n"});
  };
  const test::Feeds feeds{{"x", input_values(shape, 5)}};
  {
    GraphBuilder b(15);
    base(b);
    b.node("Relu", {"n"}, {"r"}).node("Sigmoid", {"n"}, {"g"}).node("Add", {"r", "g"}, {"out"});
    b.output("out", DType::F32);
    const IrModel model = b.build();
    SCOPED_TRACE("normalization read twice");
    EXPECT_EQ(fused_nodes(model), 2u);  // the BatchNormalization and elementwise-chain's node
    EXPECT_EQ(first_label(model, ExecutionMode::Exact), "BatchNormalization");
    EXPECT_EQ(bits_everywhere(model, feeds), "");
  }
  {
    GraphBuilder b(15);
    base(b);
    b.node("Relu", {"n"}, {"out"});
    b.output("out", DType::F32).output("n", DType::F32);
    const IrModel model = b.build();
    SCOPED_TRACE("normalization is a graph output");
    EXPECT_EQ(fused_nodes(model), 2u);
    EXPECT_EQ(bits_everywhere(model, feeds), "");
  }
}

// training_mode = 1 with its running statistics wanted: the pass leaves the node alone (the
// override runs the reference kernel for it anyway).
TEST(BatchNormActivation, TrainingModeStaysApart) {
  const Shape shape{2, 8, 5, 5};
  const Stats s = stats(8, false);
  GraphBuilder b(15);
  b.input("x", DType::F32, shape);
  b.initializer("scale", s.scale).initializer("beta", s.bias).initializer("mean", s.mean).initializer("var", s.var);
  b.node("BatchNormalization", {"x", "scale", "beta", "mean", "var"}, {"n", "rm", "rv"}, {int_attr("training_mode", 1)});
  b.node("Relu", {"n"}, {"out"});
  b.output("out", DType::F32).output("rm", DType::F32).output("rv", DType::F32);
  const IrModel model = b.build();
  EXPECT_EQ(fused_nodes(model), 2u);
  EXPECT_EQ(first_label(model, ExecutionMode::Exact), "BatchNormalization");
}

}  // namespace
}  // namespace onemodel
