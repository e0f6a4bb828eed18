// Attention and RotaryEmbedding in the reference engine (spec/ops/attention.md). Expected values
// are worked out by hand from the rule text (the section is cited next to each), with inputs
// chosen so every intermediate is exact; none comes from running the code under test. The long-row
// order test takes its bits from tests/kernels/attn_naive_definitions.hpp, the scalar transcription
// of kernels-attention.md written for the kernel tests.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "onemodel/session.hpp"
#include "onemodel/session_error.hpp"
#include "tests/kernels/attn_naive_definitions.hpp"
#include "tests/support/ir_builder.hpp"

namespace onemodel {
namespace {

using namespace ir_builder;

constexpr float kInf = std::numeric_limits<float>::infinity();

// Runs one node `op` on graph inputs fed at run time. `outputs` names the node's outputs ("" for
// an omitted one); every named output is a graph output, returned in order.
std::vector<Tensor> run_node(const std::string& op, const std::vector<NodeInput>& inputs, const std::vector<std::string>& outputs,
                             std::vector<IrAttribute> attributes, std::int64_t opset, ExecutionMode mode) {
  std::vector<IrValueInfo> declared;
  for (const std::string& o : outputs) declared.push_back(unshaped_tensor_value_info(o, 1));
  return run_one_node(op, opset, inputs, declared, std::move(attributes), mode, /*ir_version=*/9);
}

Tensor f32(const Shape& shape, std::vector<float> v) { return Tensor::from_values<float>(DType::F32, shape, v); }
Tensor boolean(const Shape& shape, std::vector<std::uint8_t> v) {
  return Tensor::from_values<std::uint8_t>(DType::Bool, shape, v);
}
Tensor i64(const Shape& shape, std::vector<std::int64_t> v) {
  return Tensor::from_values<std::int64_t>(DType::I64, shape, v);
}

std::vector<Tensor> attention(const std::vector<NodeInput>& inputs, const std::vector<std::string>& outputs,
                              std::vector<IrAttribute> attributes = {}, std::int64_t opset = 23) {
  return run_node("Attention", inputs, outputs, std::move(attributes), opset, ExecutionMode::Fast);
}

// One query, two keys with equal scores: section 4 gives e = [1, 1] (exp(0) = 1), l = 2, p = 0.5
// each, and section 5 Y = 0.5*V[0] + 0.5*V[1] = [(1 + 3), (2 + 4)] = [4, 6], all exact.
TEST(Attention, EqualScoresAverageTheValues) {
  const Tensor q = f32({1, 1, 1, 2}, {1, 0});
  const Tensor k = f32({1, 1, 2, 2}, {1, 0, 1, 0});
  const Tensor v = f32({1, 1, 2, 2}, {2, 4, 6, 8});
  const auto out = attention({{"q", q}, {"k", k}, {"v", v}}, {"y"});
  ASSERT_EQ(out.at(0).shape(), (Shape{1, 1, 1, 2}));
  EXPECT_EQ(out.at(0).to_vector<float>(), (std::vector<float>{4, 6}));
}

// Section 3 step 4: a -inf bias (additive) or false (boolean) removes a key, so p = [1, 0] and
// Y = V[0]; with is_causal query 0 sees only key 0 and query 1 both (equal scores: the average).
TEST(Attention, MaskingAdditiveBooleanAndCausal) {
  const Tensor q = f32({1, 1, 2, 2}, {1, 0, 1, 0});
  const Tensor k = f32({1, 1, 2, 2}, {1, 0, 1, 0});
  const Tensor v = f32({1, 1, 2, 2}, {2, 4, 6, 8});
  const std::vector<float> first_only{2, 4, 2, 4};
  auto y = attention({{"q", q}, {"k", k}, {"v", v}, {"m", f32({1, 2}, {0, -kInf})}}, {"y"});
  EXPECT_EQ(y.at(0).to_vector<float>(), first_only);
  y = attention({{"q", q}, {"k", k}, {"v", v}, {"m", boolean({2}, {1, 0})}}, {"y"});
  EXPECT_EQ(y.at(0).to_vector<float>(), first_only);
  // A mask shorter than the key length masks the remaining keys (ops-coverage.md).
  y = attention({{"q", q}, {"k", k}, {"v", v}, {"m", f32({2, 1}, {0, 0})}}, {"y"});
  EXPECT_EQ(y.at(0).to_vector<float>(), first_only);
  y = attention({{"q", q}, {"k", k}, {"v", v}}, {"y"}, {int_attr("is_causal", 1)});
  EXPECT_EQ(y.at(0).to_vector<float>(), (std::vector<float>{2, 4, 4, 6}));
}

// Section 4 step 5 (ONNX 1.23 errata): a row whose bias is -inf everywhere gives zeros in Y and in
// the mode-3 qk_matmul_output, not NaN; the other row is untouched.
TEST(Attention, FullyMaskedRowIsZero) {
  const Tensor q = f32({1, 1, 2, 2}, {1, 0, 1, 0});
  const Tensor k = f32({1, 1, 2, 2}, {1, 0, 1, 0});
  const Tensor v = f32({1, 1, 2, 2}, {2, 4, 6, 8});
  const Tensor mask = boolean({2, 2}, {0, 0, 1, 1});
  const auto out = attention({{"q", q}, {"k", k}, {"v", v}, {"m", mask}}, {"y", "", "", "qk"},
                             {int_attr("qk_matmul_output_mode", 3)});
  const std::vector<float> y = out.at(0).to_vector<float>();
  ASSERT_EQ(y.size(), 4u);
  EXPECT_EQ(float_bits(y[0]), 0u);
  EXPECT_EQ(float_bits(y[1]), 0u);
  EXPECT_EQ(y[2], 4.0f);
  EXPECT_EQ(y[3], 6.0f);
  EXPECT_EQ(out.at(1).to_vector<float>(), (std::vector<float>{0, 0, 0.5f, 0.5f}));
}

// Section 3 step 2 and section 5: one accumulator, increasing index, every operation rounded.
// Scale 1 makes sqrt(scale) = 1. Scores: q = [1, 1, 1], k = [2^24, 1, -2^24]:
// (+0 + 2^24) + 1 = 2^24 + 1, a tie rounded to even: 2^24; then 2^24 - 2^24 = 0. Decreasing index
// would give (-2^24 + 1) + 2^24 = 1. Values: four keys with k = 0 give equal scores, p = 0.25 each;
// v = [2^26, 4, -2^26, 0] makes products [2^24, 1, -2^24, 0], summed in increasing j to 0 (the same
// tie), in decreasing j to 1.
TEST(Attention, AccumulationOrderIsIncreasingIndexWithOneAccumulator) {
  const float big = std::ldexp(1.0f, 24);
  auto out = attention({{"q", f32({1, 1, 1, 3}, {1, 1, 1})}, {"k", f32({1, 1, 1, 3}, {big, 1, -big})},
                        {"v", f32({1, 1, 1, 1}, {5})}},
                       {"y", "", "", "qk"}, {float_attr("scale", 1.0f)});
  EXPECT_EQ(float_bits(out.at(1).to_vector<float>().at(0)), 0u);
  EXPECT_EQ(out.at(0).to_vector<float>(), (std::vector<float>{5}));  // one key: p = 1
  const float v0 = std::ldexp(1.0f, 26);
  out = attention({{"q", f32({1, 1, 1, 1}, {1})}, {"k", f32({1, 1, 4, 1}, {0, 0, 0, 0})},
                   {"v", f32({1, 1, 4, 1}, {v0, 4, -v0, 0})}},
                  {"y"}, {float_attr("scale", 1.0f)});
  EXPECT_EQ(float_bits(out.at(0).to_vector<float>().at(0)), 0u);
}

// Section 3 steps 1 and 3, section 6: the default scale 1/sqrt(D) with D = 4 gives sqrt(scale) =
// 1/sqrt(2) rounded; with q = k = [2, 0, 0, 0]: q' = k' = [2*r, 0, 0, 0] and dot = (2r)^2, which
// is 2 within rounding; softcap 1 maps it to tanh(dot) and mode 1 exposes it. Checked loosely
// here (tanh is exact-transcendentals' polynomial); mode 0 holds the dot before softcap.
TEST(Attention, ScaleSoftcapAndQkOutputModes) {
  const Tensor q = f32({1, 1, 1, 4}, {2, 0, 0, 0});
  const Tensor k = f32({1, 1, 1, 4}, {2, 0, 0, 0});
  const Tensor v = f32({1, 1, 1, 1}, {1});
  auto out = attention({{"q", q}, {"k", k}, {"v", v}}, {"y", "", "", "qk"}, {float_attr("softcap", 1.0f)});
  const float r = static_cast<float>(std::sqrt(1.0 / std::sqrt(4.0)));
  const float two_r = 2.0f * r;
  const float dot = two_r * two_r;
  EXPECT_EQ(out.at(1).to_vector<float>().at(0), dot);
  out = attention({{"q", q}, {"k", k}, {"v", v}}, {"y", "", "", "qk"},
                  {float_attr("softcap", 1.0f), int_attr("qk_matmul_output_mode", 1)});
  EXPECT_NEAR(out.at(1).to_vector<float>().at(0), std::tanh(2.0), 1e-6);
  // Mode 2 holds the score with the bias added.
  out = attention({{"q", q}, {"k", k}, {"v", v}, {"m", f32({1}, {-1.0f})}}, {"y", "", "", "qk"},
                  {int_attr("qk_matmul_output_mode", 2), float_attr("scale", 0.25f)});
  // scale 0.25: sqrt = 0.5 exactly, q' = k' = [1, 0, 0, 0], dot = 1, s = 1 + (-1) = 0.
  EXPECT_EQ(float_bits(out.at(1).to_vector<float>().at(0)), 0u);
}

// Section 2: 3-D inputs with grouped heads (Hq = 4, Hkv = 2) and a past cache of one position.
// Query heads 0, 1 read kv head 0 and heads 2, 3 read kv head 1 (h / (Hq / Hkv); h mod Hkv would
// interleave them). With q = 0 every score is 0, so each head averages its two values exactly:
// kv head 0 values [2, 6] give 4, kv head 1 values [10, 20] give 15. present_* = concat(past, new).
TEST(Attention, ThreeDimensionalGroupedQueryWithCache) {
  const Tensor q = f32({1, 1, 4}, {0, 0, 0, 0});
  const Tensor k = f32({1, 1, 2}, {7, 8});
  const Tensor v = f32({1, 1, 2}, {6, 20});
  const Tensor past_k = f32({1, 2, 1, 1}, {3, 5});
  const Tensor past_v = f32({1, 2, 1, 1}, {2, 10});
  const auto out = attention({{"q", q}, {"k", k}, {"v", v}, {"", {}}, {"pk", past_k}, {"pv", past_v}},
                             {"y", "present_k", "present_v"},
                             {int_attr("q_num_heads", 4), int_attr("kv_num_heads", 2), float_attr("scale", 1.0f)});
  ASSERT_EQ(out.at(0).shape(), (Shape{1, 1, 4}));
  EXPECT_EQ(out.at(0).to_vector<float>(), (std::vector<float>{4, 4, 15, 15}));
  EXPECT_EQ(out.at(1).shape(), (Shape{1, 2, 2, 1}));
  EXPECT_EQ(out.at(1).to_vector<float>(), (std::vector<float>{3, 7, 5, 8}));
  EXPECT_EQ(out.at(2).to_vector<float>(), (std::vector<float>{2, 6, 10, 20}));
}

// Section 1: Attention is exact in both softmax precisions (DOUBLE uses the exact binary64 exp,
// and was refused in exact mode before it existed); bad shapes are refused.
TEST(Attention, ExactModeAndRefusals) {
  const Tensor q = f32({1, 1, 1, 2}, {1, 0});
  const Tensor k = f32({1, 1, 2, 2}, {1, 0, 1, 0});
  const Tensor v = f32({1, 1, 2, 2}, {2, 4, 6, 8});
  const auto exact = run_node("Attention", {{"q", q}, {"k", k}, {"v", v}}, {"y"}, {}, 23, ExecutionMode::Exact);
  EXPECT_EQ(exact.at(0).to_vector<float>(), (std::vector<float>{4, 6}));
  const auto exact_wide = run_node("Attention", {{"q", q}, {"k", k}, {"v", v}}, {"y"}, {int_attr("softmax_precision", 11)}, 23,
                                   ExecutionMode::Exact);
  EXPECT_EQ(exact_wide.at(0).to_vector<float>(), (std::vector<float>{4, 6}));
  const auto wide = run_node("Attention", {{"q", q}, {"k", k}, {"v", v}}, {"y"}, {int_attr("softmax_precision", 11)}, 23,
                             ExecutionMode::Fast);
  EXPECT_EQ(wide.at(0).to_vector<float>(), (std::vector<float>{4, 6}));
  const Tensor k3 = f32({1, 1, 3, 2}, {1, 0, 1, 0, 1, 0});
  EXPECT_EQ(session_error_kind_of([&] { attention({{"q", q}, {"k", k3}, {"v", v}}, {"y"}); }), SessionErrorKind::InvalidModel);
  const Tensor q3 = f32({1, 1, 2}, {1, 0});
  EXPECT_EQ(session_error_kind_of([&] { attention({{"q", q3}, {"k", f32({1, 2, 2}, {1, 0, 1, 0})}, {"v", f32({1, 2, 2}, {1, 2, 3, 4})}}, {"y"}); }),
            SessionErrorKind::InvalidModel);  // 3-D without head counts
}

// Section 5: Y is the online softmax of kernels-attention.md "The exact definition" over blocks of
// 64 keys. The expected bits come from attn_naive::attention_row (tests/kernels/attn_naive_definitions.hpp),
// a scalar transcription of that text with its own exp, written independently of the kernel: fed
// q' = q*r and k' = k*r (section 3 step 1; scale 0.25 makes r = 0.5) and the mask as its bias row.
// 150 keys make three blocks and two rescales; some keys are masked, none of the rows fully. Exact
// and fast mode of the reference run the same code, so both give these bits.
TEST(Attention, OutputFollowsTheOnlineSoftmaxDefinition) {
  std::mt19937 rng(21);
  std::normal_distribution<float> normal(0.0f, 1.5f);
  std::uniform_int_distribution<int> pick(0, 4);
  const std::int64_t H = 2, L = 3, S = 150, D = 8, Dv = 5;
  std::vector<float> q(static_cast<std::size_t>(H * L * D)), k(static_cast<std::size_t>(H * S * D)),
      v(static_cast<std::size_t>(H * S * Dv)), m(static_cast<std::size_t>(L * S));
  for (float& x : q) x = normal(rng);
  for (float& x : k) x = normal(rng);
  for (float& x : v) x = normal(rng);
  for (std::size_t n = 0; n < m.size(); ++n) m[n] = n % S == 0 ? 0.0f : pick(rng) == 0 ? -kInf : normal(rng);
  const std::vector<NodeInput> in{{"q", f32({1, H, L, D}, q)}, {"k", f32({1, H, S, D}, k)}, {"v", f32({1, H, S, Dv}, v)},
                                  {"m", f32({L, S}, m)}};
  for (ExecutionMode mode : {ExecutionMode::Exact, ExecutionMode::Fast}) {
    const std::vector<float> y =
        run_node("Attention", in, {"y"}, {float_attr("scale", 0.25f)}, 23, mode).at(0).to_vector<float>();
    ASSERT_EQ(y.size(), static_cast<std::size_t>(H * L * Dv));
    for (std::int64_t h = 0; h < H; ++h) {
      std::vector<std::vector<float>> ks(static_cast<std::size_t>(S));
      std::vector<const float*> krows, vrows;
      for (std::int64_t j = 0; j < S; ++j) {
        for (std::int64_t x = 0; x < D; ++x) ks[static_cast<std::size_t>(j)].push_back(k[static_cast<std::size_t>((h * S + j) * D + x)] * 0.5f);
        krows.push_back(ks[static_cast<std::size_t>(j)].data());
        vrows.push_back(v.data() + (h * S + j) * Dv);
      }
      for (std::int64_t i = 0; i < L; ++i) {
        std::vector<float> qs;
        for (std::int64_t x = 0; x < D; ++x) qs.push_back(q[static_cast<std::size_t>((h * L + i) * D + x)] * 0.5f);
        const std::vector<float> want = attn_naive::attention_row(qs.data(), krows, vrows, m.data() + i * S,
                                                                  static_cast<std::size_t>(D), static_cast<std::size_t>(Dv), 1.0f);
        for (std::int64_t x = 0; x < Dv; ++x) {
          EXPECT_EQ(float_bits(y[static_cast<std::size_t>((h * L + i) * Dv + x)]), float_bits(want[static_cast<std::size_t>(x)]))
              << "head " << h << " row " << i << " column " << x;
        }
      }
    }
  }
}

// Section 4 step 5 with section 5: a fully masked row weighs every key 0 whatever its scores, so a
// NaN query there still gives +0 where every value is finite, and NaN (0x7FC00000) in a column
// holding an infinite value (0 * inf); a row with a visible key and a NaN score is NaN throughout.
TEST(Attention, FullyMaskedRowIgnoresNanScores) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const Tensor q = f32({1, 1, 2, 1}, {nan, nan});
  const Tensor k = f32({1, 1, 2, 1}, {1, 2});
  const Tensor v = f32({1, 1, 2, 2}, {1, 2, kInf, 3});
  const Tensor mask = f32({2, 2}, {-kInf, -kInf, 0, -kInf});
  for (ExecutionMode mode : {ExecutionMode::Exact, ExecutionMode::Fast}) {
    const auto out = run_node("Attention", {{"q", q}, {"k", k}, {"v", v}, {"m", mask}}, {"y"}, {}, 23, mode);
    const std::vector<float> y = out.at(0).to_vector<float>();
    ASSERT_EQ(y.size(), 4u);
    EXPECT_EQ(float_bits(y[0]), 0x7FC00000u);  // 0 * inf in column 0
    EXPECT_EQ(float_bits(y[1]), 0u);           // 0*2 + 0*3 = +0
    EXPECT_EQ(float_bits(y[2]), 0x7FC00000u);  // row 1: NaN score
    EXPECT_EQ(float_bits(y[3]), 0x7FC00000u);
  }
}

// Section 7, non-interleaved, hs = 4, half = 2, cos = [0.5, 1], sin = [0.25, 0], x = [1, 2, 3, 4]:
// pair 0 is (x0, x2): 0.5*1 - 0.25*3 = -0.25 and 0.25*1 + 0.5*3 = 1.75; pair 1 is (x1, x3):
// 1*2 - 0*4 = 2 and 0*2 + 1*4 = 4. Interleaved, pairs (x0, x1), (x2, x3): 0.5 - 0.5 = 0,
// 0.25 + 1 = 1.25, 3 - 0 = 3, 0 + 4 = 4. Exact mode gives the same.
TEST(RotaryEmbedding, HandComputedHalvesAndInterleaved) {
  const Tensor x = f32({1, 1, 1, 4}, {1, 2, 3, 4});
  const Tensor cos = f32({1, 1, 2}, {0.5f, 1.0f});
  const Tensor sin = f32({1, 1, 2}, {0.25f, 0.0f});
  for (ExecutionMode mode : {ExecutionMode::Fast, ExecutionMode::Exact}) {
    auto y = run_node("RotaryEmbedding", {{"x", x}, {"c", cos}, {"s", sin}}, {"y"}, {}, 23, mode);
    EXPECT_EQ(y.at(0).to_vector<float>(), (std::vector<float>{-0.25f, 2, 1.75f, 4}));
    y = run_node("RotaryEmbedding", {{"x", x}, {"c", cos}, {"s", sin}}, {"y"}, {int_attr("interleaved", 1)}, 23,
                 mode);
    EXPECT_EQ(y.at(0).to_vector<float>(), (std::vector<float>{0, 1.25f, 3, 4}));
  }
}

// Section 7: products rounded before the difference. c = x1 = 1 + 2^-12: c*x1 = 1 + 2^-11 + 2^-24,
// a tie rounded to even, 1 + 2^-11; s = 1, x2 = 1 + 2^-11, so the difference is exactly 0 (a fused
// multiply-subtract would give 2^-24). Partial rotation (rotary_embedding_dim 2 of 4) with
// position_ids copies the tail; an id outside the cache is an error.
TEST(RotaryEmbedding, UnfusedProductsPositionIdsAndPartialRotation) {
  const float a = 1.0f + std::ldexp(1.0f, -12);
  const float b = 1.0f + std::ldexp(1.0f, -11);
  const Tensor x = f32({1, 1, 1, 4}, {a, b, 7, 9});
  const Tensor cos = f32({2, 1}, {0, a});
  const Tensor sin = f32({2, 1}, {0, 1});
  const auto y = run_node("RotaryEmbedding", {{"x", x}, {"c", cos}, {"s", sin}, {"p", i64({1, 1}, {1})}}, {"y"},
                          {int_attr("rotary_embedding_dim", 2)}, 23, ExecutionMode::Exact);
  const std::vector<float> got = y.at(0).to_vector<float>();
  EXPECT_EQ(float_bits(got.at(0)), 0u);
  EXPECT_EQ(got.at(1), a + a * b);  // s*x1 + c*x2 = a + a*b, computed the same way here
  EXPECT_EQ(got.at(2), 7.0f);
  EXPECT_EQ(got.at(3), 9.0f);
  EXPECT_EQ(session_error_kind_of([&] {
              run_node("RotaryEmbedding", {{"x", x}, {"c", cos}, {"s", sin}, {"p", i64({1, 1}, {2})}}, {"y"},
                       {int_attr("rotary_embedding_dim", 2)}, 23, ExecutionMode::Exact);
            }),
            SessionErrorKind::InvalidInput);
}

}  // namespace
}  // namespace onemodel
