// Concat in place (spec/optimized-engine.md section 4 rule 5; docs/design.md "Concat in place"):
// the plan gives each input of a Concat its slice of the output, so no copy is made, exactly when
// the rule's conditions hold (counted on the plan's steps), and the outputs are the bytes of the
// copying plan (OptimizationLevel::None) in both modes and of the reference engine in exact mode,
// at 1 and 2 threads. The graphs: an Inception-style block, a DenseNet-style block (each Concat
// reads every earlier feature: all become prefixes of the last), a Concat output feeding the next
// Concat, inputs with other readers (one that would like to overwrite its input in place, one that
// reads the whole block in place), graph outputs among the inputs, graph inputs and views as
// inputs, a repeated input, axis 0 / 1 / 2 / -1 at batch 1 and 2. Checked builds poison every
// freed block, so a slice read after its block was given away shows up as a difference.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "diff/graph_builder.hpp"
#include "onemodel/session.hpp"
#include "optimized/frame/thread_pool.hpp"
#include "optimized/runtime/compiled_graph.hpp"
#include "optimized/runtime/plan.hpp"
#include "tests/support/ir_builder.hpp"
#include "tests/support/same_outputs.hpp"
#include "tests/support/session_runs.hpp"

namespace onemodel {
namespace {

using graph_builder::GraphBuilder;
using ir_builder::int_attr;
using ir_builder::ints_attr;

Tensor values(const Shape& shape, std::uint32_t seed) {
  std::vector<float> v(static_cast<std::size_t>(shape.element_count()));
  std::uint32_t state = seed;
  for (float& x : v) {
    state = state * 1664525u + 1013904223u;
    x = (static_cast<float>(state >> 8) / 16777216.0f - 0.5f) * 4.0f;
  }
  return Tensor::from_values<float>(DType::F32, shape, v);
}

// The Concat steps the plan runs in place, at `level`, for the inputs `feeds` (in graph-input order).
std::size_t in_place_concats(const IrModel& model, const test::Feeds& feeds, OptimizationLevel level) {
  SessionOptions options;
  options.mode = ExecutionMode::Exact;
  options.optimization_level = level;
  opt::ThreadPool pool(1);
  const auto graph = opt::compile_graph(model, options, opt::OptimizedConfig{opt::Isa::Scalar, &pool});
  std::vector<Tensor> inputs(graph->input_ids.size());
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    for (const auto& [name, tensor] : feeds) {
      if (graph->value_names[static_cast<std::size_t>(graph->input_ids[i])] == name) inputs[i] = tensor;
    }
  }
  const opt::Plan plan(*graph, inputs);
  std::size_t count = 0;
  for (const opt::PlanStep& step : plan.steps()) {
    if (step.concat_in_place) {
      EXPECT_EQ(step.node->ir->op_type, "Concat");
      ++count;
    }
  }
  return count;
}

// `expected` Concats in place at levels Basic and All, none at None; the same bytes as the copying
// plan in both modes and as the reference engine in exact mode, at 1 and 2 threads.
void check(const IrModel& model, const test::Feeds& feeds, std::size_t expected, const std::string& name) {
  SCOPED_TRACE(name);
  EXPECT_EQ(in_place_concats(model, feeds, OptimizationLevel::None), 0u);
  EXPECT_EQ(in_place_concats(model, feeds, OptimizationLevel::Basic), expected);
  EXPECT_EQ(in_place_concats(model, feeds, OptimizationLevel::All), expected);
  const auto reference = test::run_session(model, EngineKind::Reference, ExecutionMode::Exact, OptimizationLevel::All, 1, feeds);
  for (int threads : {1, 2}) {
    for (ExecutionMode mode : {ExecutionMode::Exact, ExecutionMode::Fast}) {
      const std::string where = std::string(mode == ExecutionMode::Exact ? "exact" : "fast") + " threads " + std::to_string(threads);
      const auto copying = test::run_session(model, EngineKind::Optimized, mode, OptimizationLevel::None, threads, feeds);
      for (OptimizationLevel level : {OptimizationLevel::Basic, OptimizationLevel::All}) {
        const auto in_place = test::run_session(model, EngineKind::Optimized, mode, level, threads, feeds);
        test::expect_same_outputs(in_place, copying, "in place vs copying, " + where);
        if (mode == ExecutionMode::Exact) test::expect_same_outputs(in_place, reference, "in place vs reference, " + where);
      }
    }
  }
}

// A 1x1 (or 3x3 padded) Conv from `in` with `m` output channels, then Relu: one producer.
void conv_relu(GraphBuilder& b, const std::string& in, std::int64_t c, std::int64_t m, const std::string& out,
               std::uint32_t seed, bool three = false) {
  const std::string w = out + "_w";
  b.initializer(w, values(three ? Shape{m, c, 3, 3} : Shape{m, c, 1, 1}, seed));
  std::vector<IrAttribute> attributes;
  if (three) attributes.push_back(ints_attr("pads", {1, 1, 1, 1}));
  b.node("Conv", {in, w}, {out + "_c"}, attributes).node("Relu", {out + "_c"}, {out});
}

TEST(ConcatInPlace, InceptionBlock) {
  const test::RequireSplit two_thread_runs_split;
  const Shape x{1, 6, 17, 19};
  GraphBuilder b(17);
  b.input("x", DType::F32, x);
  conv_relu(b, "x", 6, 5, "a", 1);
  conv_relu(b, "x", 6, 7, "p", 2);
  conv_relu(b, "p", 7, 4, "bb", 3, true);
  b.node("MaxPool", {"x"}, {"mp"}, {ints_attr("kernel_shape", {3, 3}), ints_attr("pads", {1, 1, 1, 1})});
  conv_relu(b, "mp", 6, 3, "d", 4);
  b.node("Concat", {"a", "bb", "d"}, {"cat"}, {int_attr("axis", 1)});
  // Two readers of the block, as the next Inception block has.
  conv_relu(b, "cat", 12, 8, "n1", 5);
  b.node("MaxPool", {"cat"}, {"n2"}, {ints_attr("kernel_shape", {2, 2})});
  b.output("n1", DType::F32).output("n2", DType::F32);
  check(b.build(), {{"x", values(x, 11)}}, 1, "inception");
}

TEST(ConcatInPlace, DenseNetBlock) {
  const test::RequireSplit two_thread_runs_split;
  // f0 = Relu(Conv(x)); layer k: cat_k = Concat(f0, ..., f_{k-1}) -> BatchNormalization (in place
  // over its input when allowed) -> Relu -> Conv -> f_k; the block's output is Concat(f0..f4).
  const Shape x{1, 3, 12, 12};
  const std::int64_t growth = 4;
  GraphBuilder b(17);
  b.input("x", DType::F32, x);
  conv_relu(b, "x", 3, 8, "f0", 1);
  std::vector<std::string> features{"f0"};
  std::int64_t channels = 8;
  for (int k = 1; k <= 5; ++k) {
    std::string cat("cat");
    cat.append(std::to_string(k));
    b.node("Concat", features, {cat}, {int_attr("axis", 1)});
    if (k == 5) break;
    const std::string s = cat + "_";
    b.initializer(s + "scale", values(Shape{channels}, 40 + k))
        .initializer(s + "bias", values(Shape{channels}, 50 + k))
        .initializer(s + "mean", values(Shape{channels}, 60 + k))
        .initializer(s + "var", Tensor::from_values<float>(DType::F32, Shape{channels},
                                                          std::vector<float>(static_cast<std::size_t>(channels), 1.5f)));
    b.node("BatchNormalization", {cat, s + "scale", s + "bias", s + "mean", s + "var"}, {s + "bn"});
    b.node("Relu", {s + "bn"}, {s + "r"});
    std::string f("f");
    f.append(std::to_string(k));
    conv_relu(b, s + "r", channels, growth, f, 70 + static_cast<std::uint32_t>(k), true);
    features.push_back(f);
    channels += growth;
  }
  b.output("cat5", DType::F32);
  check(b.build(), {{"x", values(x, 12)}}, 5, "densenet block");
}

TEST(ConcatInPlace, NestedConcatsAndOtherReaders) {
  const test::RequireSplit two_thread_runs_split;
  const Shape x{1, 4, 9, 9};
  {  // c1 = Concat(a, b) feeds c2 = Concat(c1, d): both in place, c1 inside c2.
    GraphBuilder g(17);
    g.input("x", DType::F32, x);
    conv_relu(g, "x", 4, 3, "a", 1);
    conv_relu(g, "x", 4, 2, "bb", 2);
    conv_relu(g, "x", 4, 5, "d", 3);
    g.node("Concat", {"a", "bb"}, {"c1"}, {int_attr("axis", 1)});
    g.node("Concat", {"c1", "d"}, {"c2"}, {int_attr("axis", 1)});
    g.node("Sigmoid", {"c2"}, {"out"}).output("out", DType::F32);
    check(g.build(), {{"x", values(x, 13)}}, 2, "nested");
  }
  {  // a is read again after the Concat by Relu, which may write in place over an input that dies
     // at it; the block is read after that by Sigmoid: a's slice must not be overwritten.
    GraphBuilder g(17);
    g.input("x", DType::F32, x);
    conv_relu(g, "x", 4, 3, "a0", 1);
    g.node("Neg", {"a0"}, {"a"});
    conv_relu(g, "x", 4, 2, "bb", 2);
    g.node("Concat", {"a", "bb"}, {"c"}, {int_attr("axis", 1)});
    g.node("Relu", {"a"}, {"r"});
    g.node("Sigmoid", {"c"}, {"s"});
    g.output("r", DType::F32).output("s", DType::F32);
    check(g.build(), {{"x", values(x, 14)}}, 1, "input read after the concat");
  }
  {  // The block's reader may work in place (Relu over c), but a slice is read after it.
    GraphBuilder g(17);
    g.input("x", DType::F32, x);
    conv_relu(g, "x", 4, 3, "a0", 1);
    g.node("Neg", {"a0"}, {"a"});
    conv_relu(g, "x", 4, 2, "bb", 2);
    g.node("Concat", {"a", "bb"}, {"c"}, {int_attr("axis", 1)});
    g.node("Neg", {"c"}, {"r"});
    g.node("Sigmoid", {"a"}, {"s"});
    g.output("r", DType::F32).output("s", DType::F32);
    check(g.build(), {{"x", values(x, 15)}}, 1, "slice read after an in-place reader of the block");
  }
  {  // The second slice is read after the block's last whole reader, by a Transpose and a Conv whose
     // outputs would be placed at the start of the block if it were freed too early.
    GraphBuilder g(17);
    g.input("x", DType::F32, x);
    conv_relu(g, "x", 4, 1, "a", 1);
    conv_relu(g, "x", 4, 6, "bb", 2);
    g.node("Concat", {"a", "bb"}, {"c"}, {int_attr("axis", 1)});
    g.node("Neg", {"c"}, {"r"});
    g.node("Transpose", {"bb"}, {"t"}, {ints_attr("perm", {0, 3, 2, 1})});
    conv_relu(g, "bb", 6, 8, "k", 3, true);
    g.output("r", DType::F32).output("t", DType::F32).output("k", DType::F32);
    check(g.build(), {{"x", values(x, 16)}}, 1, "slice read after the block's last whole reader");
  }
}

TEST(ConcatInPlace, WhereItMustCopy) {
  const test::RequireSplit two_thread_runs_split;
  const Shape x{1, 4, 16, 20};
  const auto two_producers = [&](GraphBuilder& g) {
    g.input("x", DType::F32, x);
    conv_relu(g, "x", 4, 3, "a", 1);
    conv_relu(g, "x", 4, 2, "bb", 2);
  };
  {  // an input is a graph output
    GraphBuilder g(17);
    two_producers(g);
    g.node("Concat", {"a", "bb"}, {"c"}, {int_attr("axis", 1)}).node("Neg", {"c"}, {"out"});
    g.output("out", DType::F32).output("a", DType::F32);
    check(g.build(), {{"x", values(x, 21)}}, 0, "graph output among the inputs");
  }
  {  // a graph input and a view (Reshape) as inputs
    GraphBuilder g(17);
    two_producers(g);
    g.initializer("shape", Tensor::from_values<std::int64_t>(DType::I64, Shape{4}, {1, 2, 16, 20}));
    g.node("Reshape", {"bb", "shape"}, {"v"});
    g.node("Concat", {"a", "x"}, {"c1"}, {int_attr("axis", 1)}).node("Neg", {"c1"}, {"o1"});
    g.node("Concat", {"a", "v"}, {"c2"}, {int_attr("axis", 1)}).node("Neg", {"c2"}, {"o2"});
    g.output("o1", DType::F32).output("o2", DType::F32);
    check(g.build(), {{"x", values(x, 22)}}, 0, "graph input, view");
  }
  {  // the same value twice
    GraphBuilder g(17);
    two_producers(g);
    g.node("Concat", {"a", "bb", "a"}, {"c"}, {int_attr("axis", 1)}).node("Neg", {"c"}, {"out"});
    g.output("out", DType::F32);
    check(g.build(), {{"x", values(x, 23)}}, 0, "repeated input");
  }
  {  // axis 2 of [1, C, H, W]: each input is C pieces, not one block
    GraphBuilder g(17);
    two_producers(g);
    conv_relu(g, "x", 4, 3, "a2", 3);
    g.node("Concat", {"a", "a2"}, {"c"}, {int_attr("axis", 2)}).node("Neg", {"c"}, {"out"});
    g.output("out", DType::F32);
    check(g.build(), {{"x", values(x, 24)}}, 0, "axis 2");
  }
}

TEST(ConcatInPlace, AxesAndBatch) {
  const test::RequireSplit two_thread_runs_split;
  {  // batch 2, axis 1: two pieces per input, copied; axis 0: in place
    const Shape x{2, 4, 16, 20};
    GraphBuilder g(17);
    g.input("x", DType::F32, x);
    conv_relu(g, "x", 4, 3, "a", 1);
    conv_relu(g, "x", 4, 2, "bb", 2);
    conv_relu(g, "x", 4, 3, "a2", 3);
    g.node("Concat", {"a", "bb"}, {"c1"}, {int_attr("axis", 1)}).node("Neg", {"c1"}, {"o1"});
    g.node("Concat", {"a2", "a"}, {"c0"}, {int_attr("axis", 0)}).node("Neg", {"c0"}, {"o0"});
    g.output("o1", DType::F32).output("o0", DType::F32);
    check(g.build(), {{"x", values(x, 31)}}, 1, "batch 2");
  }
  {  // [1, 1, 7] and [1, 1, 9] on axis -1 (= 2), leading extents 1: in place
    GraphBuilder g(17);
    g.input("x", DType::F32, Shape{1, 1, 7}).input("y", DType::F32, Shape{1, 1, 9});
    g.node("Neg", {"x"}, {"a"}).node("Sigmoid", {"y"}, {"bb"});
    g.node("Concat", {"a", "bb"}, {"c"}, {int_attr("axis", -1)}).node("Relu", {"c"}, {"out"});
    g.output("out", DType::F32);
    check(g.build(), {{"x", values(Shape{1, 1, 7}, 32)}, {"y", values(Shape{1, 1, 9}, 33)}}, 1, "axis -1");
  }
}

}  // namespace
}  // namespace onemodel
