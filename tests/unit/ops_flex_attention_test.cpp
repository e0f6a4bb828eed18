// FlexAttention (ai.onnx.preview, version 1; spec/ops/attention.md section 9) through sessions of
// both engines (the optimized engine runs the reference kernel) in both modes, with score_mod and
// prob_mod subgraphs that read outer values (captures). Expected values are worked by hand from
// the section's text with inputs that keep every step exact; the long-row case is tied to
// Attention's order (section 5), which diff_attention_test ties to the fused kernel.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "core/ir/resolve.hpp"
#include "onemodel/half.hpp"
#include "onemodel/session.hpp"
#include "onemodel/session_error.hpp"
#include "tests/support/ir_builder.hpp"

namespace onemodel {
namespace {

using namespace ir_builder;

constexpr std::int32_t kFloat = 1;
constexpr float kInf = std::numeric_limits<float>::infinity();

Tensor f32(const Shape& shape, std::vector<float> v) { return Tensor::from_values<float>(DType::F32, shape, v); }

IrAttribute graph_attr(const std::string& name, IrGraph graph) {
  IrAttribute a;
  a.name = name;
  a.type = AttrType::Graph;
  a.graphs.push_back(std::move(graph));
  return a;
}

// A modifier subgraph: x_out = op(x_in, other), `other` an outer value (a capture).
IrGraph modifier(const std::string& name, const std::string& op, const std::string& other,
                 std::int32_t elem_type = kFloat) {
  IrGraph g;
  g.name = name;
  g.inputs = {unshaped_tensor_value_info(name + "_in", elem_type)};
  IrNode n = node(op, {name + "_in", other}, {name + "_out"});
  n.name = name + "_node";
  g.nodes = {n};
  g.outputs = {unshaped_tensor_value_info(name + "_out", elem_type)};
  return g;
}

// A model of one FlexAttention node over inputs[0..2] = Q, K, V; later inputs are graph inputs
// the modifiers read.
IrModel flex_model(const std::vector<NodeInput>& inputs, std::vector<IrAttribute> attributes) {
  IrGraph g;
  g.name = "flex";
  for (const NodeInput& in : inputs) {
    g.inputs.push_back(fixed_tensor_value_info(in.name, onnx_elem_type(in.value.dtype()), in.value.shape()));
  }
  IrNode n = node("FlexAttention", {inputs[0].name, inputs[1].name, inputs[2].name}, {"y"});
  n.domain = "ai.onnx.preview";
  n.attributes = std::move(attributes);
  g.nodes = {n};
  g.outputs = {unshaped_tensor_value_info("y", onnx_elem_type(inputs[0].value.dtype()))};
  IrModel model;
  model.ir_version = 8;
  model.opset_imports = {{"", 17}, {"ai.onnx.preview", 1}};
  model.graph = std::move(g);
  resolve_model(model, FieldPathStyle::Onnx);
  return model;
}

Tensor run_flex(const std::vector<NodeInput>& inputs, std::vector<IrAttribute> attributes, EngineKind engine,
                ExecutionMode mode, int threads = 1) {
  SessionOptions o;
  o.engine = engine;
  o.mode = mode;
  o.intra_op_threads = threads;
  const Session s = Session::create(flex_model(inputs, std::move(attributes)), o);
  return s.run(feeds_of(inputs)).at(0);
}

std::vector<std::uint32_t> bits_of(const Tensor& t) {
  std::vector<std::uint32_t> out;
  for (float f : t.to_vector<float>()) out.push_back(float_bits(f));
  return out;
}

class FlexAttentionTest : public ::testing::TestWithParam<std::pair<EngineKind, ExecutionMode>> {
 protected:
  Tensor run(const std::vector<NodeInput>& inputs, std::vector<IrAttribute> attributes = {}) {
    return run_flex(inputs, std::move(attributes), GetParam().first, GetParam().second);
  }
};

// Q = 0 makes every score 0 (q' = 0, dot = +0), so each row weighs its keys equally: one block,
// m = 0, p = [1, 1], l = 0*0 + 2 = 2, acc = 1*v0 + 1*v1, Y = acc / 2 (section 9 step 4, section 5).
// Hq = 2 query heads share the one key/value head (GQA). V rows [2, 4], [6, 8]: Y = [4, 6].
TEST_P(FlexAttentionTest, EqualScoresAverageTheValuesAcrossGroupedHeads) {
  const Tensor q = f32({1, 2, 1, 2}, {0, 0, 0, 0});
  const Tensor k = f32({1, 1, 2, 2}, {1, 2, 3, 4});
  const Tensor v = f32({1, 1, 2, 2}, {2, 4, 6, 8});
  const Tensor y = run({{"q", q}, {"k", k}, {"v", v}});
  ASSERT_EQ(y.shape(), (Shape{1, 2, 1, 2}));
  EXPECT_EQ(y.to_vector<float>(), (std::vector<float>{4, 6, 4, 6}));
}

// Query head h reads key/value head h / (Hq / Hkv) (section 9): Hq = 4, Hkv = 2, so heads 0, 1
// average kv head 0's values [2, 6] = 4 and heads 2, 3 kv head 1's [10, 20] = 15.
TEST_P(FlexAttentionTest, GroupedHeadsReadContiguousGroups) {
  const Tensor q = f32({1, 4, 1, 1}, {0, 0, 0, 0});
  const Tensor k = f32({1, 2, 2, 1}, {1, 2, 3, 4});
  const Tensor v = f32({1, 2, 2, 1}, {2, 6, 10, 20});
  EXPECT_EQ(run({{"q", q}, {"k", k}, {"v", v}}).to_vector<float>(), (std::vector<float>{4, 4, 15, 15}));
}

// Step 1: the scale. q = [1, 0], keys [10, 0] and [0, 0]: with the default scale 1/sqrt(2), r^2 is
// about 0.707, the scores about 7.07 and 0, and exp(-7.07) leaves key 1 a weight near 1e-3, not 0;
// scale = 0 makes r = 0 and every score 0: the plain average [4, 6].
TEST_P(FlexAttentionTest, ScaleAttributeMultipliesTheScores) {
  const Tensor q = f32({1, 1, 1, 2}, {1, 0});
  const Tensor k = f32({1, 1, 2, 2}, {10, 0, 0, 0});
  const Tensor v = f32({1, 1, 2, 2}, {2, 4, 6, 8});
  EXPECT_EQ(run({{"q", q}, {"k", k}, {"v", v}}, {float_attr("scale", 0.0f)}).to_vector<float>(),
            (std::vector<float>{4, 6}));
  const std::vector<float> y = run({{"q", q}, {"k", k}, {"v", v}}).to_vector<float>();
  EXPECT_NEAR(y[0], 2.0f, 0.01f);
  EXPECT_GT(y[0], 2.0f);
}

// Step 3: score_mod = scores + bias, bias an outer value [0, -inf] (broadcast by Add): key 1 gets
// score -inf and weight exp(-inf) = 0, so Y = V[0] exactly (l = 1 + 0, acc = 1*v0 + 0*v1).
TEST_P(FlexAttentionTest, ScoreModReadsAnOuterValue) {
  const Tensor q = f32({1, 1, 1, 2}, {0, 0});
  const Tensor k = f32({1, 1, 2, 2}, {1, 2, 3, 4});
  const Tensor v = f32({1, 1, 2, 2}, {2, 4, 6, 8});
  const Tensor bias = f32({2}, {0, -kInf});
  const Tensor y = run({{"q", q}, {"k", k}, {"v", v}, {"bias", bias}},
                       {graph_attr("score_mod", modifier("score_mod", "Add", "bias"))});
  EXPECT_EQ(y.to_vector<float>(), (std::vector<float>{2, 4}));
}

// Step 4 with prob_mod = probs * 0.5: p = [0.5, 0.5] becomes [0.25, 0.25]; Y = 0.25*2 + 0.25*6 = 2
// and 0.25*4 + 0.25*8 = 3, all exact.
TEST_P(FlexAttentionTest, ProbModChangesTheProbabilities) {
  const Tensor q = f32({1, 1, 1, 2}, {0, 0});
  const Tensor k = f32({1, 1, 2, 2}, {1, 2, 3, 4});
  const Tensor v = f32({1, 1, 2, 2}, {2, 4, 6, 8});
  const Tensor half = f32({1}, {0.5f});
  const Tensor y = run({{"q", q}, {"k", k}, {"v", v}, {"half", half}},
                       {graph_attr("prob_mod", modifier("prob_mod", "Mul", "half"))});
  EXPECT_EQ(y.to_vector<float>(), (std::vector<float>{2, 3}));
}

// Section 9: no guard for a row whose scores are all -inf (unlike Attention's masked rows): l = 0
// and Y = 0 / 0, stored as the canonical NaN 0x7FC00000, as the ONNX reference gives NaN.
TEST_P(FlexAttentionTest, FullyMaskedRowIsNaN) {
  const Tensor q = f32({1, 1, 2, 1}, {0, 0});
  const Tensor k = f32({1, 1, 2, 1}, {1, 2});
  const Tensor v = f32({1, 1, 2, 1}, {2, 6});
  const Tensor bias = f32({2, 2}, {-kInf, -kInf, 0, 0});
  const Tensor y = run({{"q", q}, {"k", k}, {"v", v}, {"bias", bias}},
                       {graph_attr("score_mod", modifier("score_mod", "Add", "bias"))});
  const std::vector<std::uint32_t> b = bits_of(y);
  ASSERT_EQ(b.size(), 2u);
  EXPECT_EQ(b[0], 0x7FC00000u);
  EXPECT_EQ(b[1], float_bits(4.0f));
}

// Section 9 ties FlexAttention without modifiers to Attention's order (section 5): with a float32
// scale both multiply Q and K by the same r (sqrt in float64 then rounded equals float32 sqrt), the
// scores are the same dot products, and Y comes from the same online softmax over blocks of 64
// keys. So 150 keys (three blocks, two rescales) give Attention's bits exactly, in both engines'
// exact modes and the reference's fast mode (the optimized engine's fast Attention is the fused
// kernel's fast flavour: within 4e-6 there, kernels-attention.md "Accuracy").
TEST_P(FlexAttentionTest, LongRowsHaveAttentionsBits) {
  std::mt19937 rng(11);
  std::normal_distribution<float> normal(0.0f, 1.5f);
  const auto random = [&](const Shape& shape) {
    std::vector<float> values(static_cast<std::size_t>(shape.element_count()));
    for (float& x : values) x = normal(rng);
    return f32(shape, values);
  };
  const Tensor q = random({2, 4, 5, 12});
  const Tensor k = random({2, 2, 150, 12});
  const Tensor v = random({2, 2, 150, 7});
  const Tensor y = run({{"q", q}, {"k", k}, {"v", v}}, {float_attr("scale", 0.3f)});
  SessionOptions o;
  o.engine = GetParam().first;
  o.mode = GetParam().second;
  std::vector<IrValueInfo> outs{unshaped_tensor_value_info("y", kFloat)};
  const Session attention =
      Session::create(one_node_model("Attention", 23, {{"q", q}, {"k", k}, {"v", v}}, outs, {float_attr("scale", 0.3f)}, 9), o);
  const Tensor want = attention.run(feeds_of({{"q", q}, {"k", k}, {"v", v}})).at(0);
  if (GetParam().first == EngineKind::Optimized && GetParam().second == ExecutionMode::Fast) {
    const std::vector<float> a = y.to_vector<float>();
    const std::vector<float> b = want.to_vector<float>();
    ASSERT_EQ(a.size(), b.size());
    for (std::size_t n = 0; n < a.size(); ++n) EXPECT_NEAR(a[n], b[n], 4e-6f) << n;
  } else {
    EXPECT_EQ(bits_of(y), bits_of(want));
  }
}

INSTANTIATE_TEST_SUITE_P(EnginesAndModes, FlexAttentionTest,
                         ::testing::Values(std::make_pair(EngineKind::Reference, ExecutionMode::Exact),
                                           std::make_pair(EngineKind::Reference, ExecutionMode::Fast),
                                           std::make_pair(EngineKind::Optimized, ExecutionMode::Exact),
                                           std::make_pair(EngineKind::Optimized, ExecutionMode::Fast)));

// The same long rows at 1 and 2 threads in the optimized engine's exact mode: the same bits.
// FlexAttention has no optimized override yet, so both runs are the reference kernel on the
// calling thread; this guards the bits for when one comes (it must then add a RequireSplit,
// tests/support/session_runs.hpp, to prove the second thread is used).
TEST(FlexAttention, ThreadCountDoesNotChangeExactBits) {
  std::mt19937 rng(12);
  std::normal_distribution<float> normal(0.0f, 1.5f);
  const auto random = [&](const Shape& shape) {
    std::vector<float> values(static_cast<std::size_t>(shape.element_count()));
    for (float& x : values) x = normal(rng);
    return f32(shape, values);
  };
  const std::vector<NodeInput> in{{"q", random({1, 2, 33, 8})}, {"k", random({1, 2, 130, 8})}, {"v", random({1, 2, 130, 8})}};
  EXPECT_EQ(bits_of(run_flex(in, {}, EngineKind::Optimized, ExecutionMode::Exact, 1)),
            bits_of(run_flex(in, {}, EngineKind::Optimized, ExecutionMode::Exact, 2)));
  EXPECT_EQ(bits_of(run_flex(in, {}, EngineKind::Optimized, ExecutionMode::Exact, 2)),
            bits_of(run_flex(in, {}, EngineKind::Reference, ExecutionMode::Exact, 1)));
}

// float64 runs the same steps with the exact binary64 exp (exact-transcendentals.md section 15),
// in both modes: Q = 0 averages exactly, and exact mode (refused before the binary64 exp existed)
// gives fast mode's bits on a random case, in both engines.
TEST(FlexAttention, Float64IsExact) {
  const auto f64 = [](const Shape& shape, std::vector<double> v) { return Tensor::from_values<double>(DType::F64, shape, v); };
  const std::vector<NodeInput> in{{"q", f64({1, 1, 1, 2}, {0, 0})}, {"k", f64({1, 1, 2, 2}, {1, 2, 3, 4})},
                                  {"v", f64({1, 1, 2, 2}, {2, 4, 6, 8})}};
  std::mt19937 rng(31);
  std::normal_distribution<double> normal(0.0, 2.0);
  const auto random = [&](const Shape& shape) {
    std::vector<double> values(static_cast<std::size_t>(shape.element_count()));
    for (double& x : values) x = normal(rng);
    return f64(shape, values);
  };
  const std::vector<NodeInput> wide{{"q", random({1, 2, 5, 4})}, {"k", random({1, 2, 7, 4})}, {"v", random({1, 2, 7, 3})}};
  for (EngineKind engine : {EngineKind::Reference, EngineKind::Optimized}) {
    for (ExecutionMode mode : {ExecutionMode::Fast, ExecutionMode::Exact}) {
      EXPECT_EQ(run_flex(in, {}, engine, mode).to_vector<double>(), (std::vector<double>{4, 6}));
    }
    EXPECT_EQ(run_flex(wide, {}, engine, ExecutionMode::Exact).to_vector<double>(),
              run_flex(wide, {}, EngineKind::Reference, ExecutionMode::Fast).to_vector<double>());
  }
}

// float16 inputs compute in float32 and round Y once: Q = 0 averages [2, 6] and [4, 8] exactly.
TEST(FlexAttention, Float16RoundsOnce) {
  const auto f16 = [](const Shape& shape, std::vector<float> v) {
    std::vector<std::uint16_t> h;
    for (float x : v) h.push_back(float_to_half_bits(x));
    return Tensor::from_values<std::uint16_t>(DType::F16, shape, h);
  };
  const std::vector<NodeInput> in{{"q", f16({1, 1, 1, 2}, {0, 0})}, {"k", f16({1, 1, 2, 2}, {1, 2, 3, 4})},
                                  {"v", f16({1, 1, 2, 2}, {2, 4, 6, 8})}};
  const Tensor y = run_flex(in, {}, EngineKind::Reference, ExecutionMode::Exact);
  ASSERT_EQ(y.dtype(), DType::F16);
  const std::vector<std::uint16_t> got = y.to_vector<std::uint16_t>();
  EXPECT_EQ(got, (std::vector<std::uint16_t>{float_to_half_bits(4.0f), float_to_half_bits(6.0f)}));
}

// Bad shapes and attributes are InvalidModel; an explicit softmax_precision other than the
// default is Unsupported; a modifier that changes the type or shape is InvalidModel at run time.
TEST(FlexAttention, Refusals) {
  const Tensor q = f32({1, 1, 1, 2}, {0, 0});
  const Tensor k = f32({1, 1, 2, 2}, {1, 2, 3, 4});
  const Tensor v = f32({1, 1, 2, 2}, {2, 4, 6, 8});
  const auto kind = [&](const std::vector<NodeInput>& in, std::vector<IrAttribute> attributes) {
    return session_error_kind_of([&] { run_flex(in, std::move(attributes), EngineKind::Reference, ExecutionMode::Exact); });
  };
  EXPECT_EQ(kind({{"q", f32({1, 1, 2}, {0, 0})}, {"k", f32({1, 2, 2}, {1, 2, 3, 4})}, {"v", f32({1, 2, 2}, {1, 2, 3, 4})}}, {}),
            SessionErrorKind::InvalidModel);  // rank 3
  EXPECT_EQ(kind({{"q", q}, {"k", k}, {"v", f32({1, 1, 3, 2}, {1, 2, 3, 4, 5, 6})}}, {}),
            SessionErrorKind::InvalidModel);  // K and V lengths differ
  EXPECT_EQ(kind({{"q", f32({1, 3, 1, 2}, {0, 0, 0, 0, 0, 0})}, {"k", f32({1, 2, 2, 2}, {1, 2, 3, 4, 5, 6, 7, 8})},
                  {"v", f32({1, 2, 2, 2}, {1, 2, 3, 4, 5, 6, 7, 8})}},
                 {}),
            SessionErrorKind::InvalidModel);  // 3 query heads over 2 kv heads
  EXPECT_EQ(kind({{"q", q}, {"k", f32({1, 1, 2, 3}, {1, 2, 3, 4, 5, 6})}, {"v", v}}, {}),
            SessionErrorKind::InvalidModel);  // head sizes differ
  EXPECT_EQ(kind({{"q", q}, {"k", k}, {"v", v}}, {int_attr("softmax_precision", 10)}), SessionErrorKind::Unsupported);
  EXPECT_EQ(kind({{"q", q}, {"k", k}, {"v", v}}, {float_attr("scale", -1.0f)}), SessionErrorKind::InvalidModel);
  // score_mod = scores + zeros (1, 2, 1, 1) broadcasts to another shape, (1, 2, 1, 2).
  const Tensor wide = f32({1, 2, 1, 1}, {0, 0});
  EXPECT_EQ(kind({{"q", q}, {"k", k}, {"v", v}, {"wide", wide}},
                 {graph_attr("score_mod", modifier("score_mod", "Add", "wide"))}),
            SessionErrorKind::InvalidModel);
}

}  // namespace
}  // namespace onemodel
