// LinearAttention in the reference engine (spec/ops/attention.md section 10). Expected values are
// worked by hand from the section's recurrence with inputs chosen so every step is exact; none
// comes from running the code under test. The backend data and the `_expanded` twins (the ONNX
// function body) are checked by the conformance runner.
#include <gtest/gtest.h>

#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "onemodel/session.hpp"
#include "onemodel/session_error.hpp"
#include "tests/support/ir_builder.hpp"

namespace onemodel {
namespace {

using namespace ir_builder;

constexpr float kInf = std::numeric_limits<float>::infinity();

Tensor f32(const Shape& shape, std::vector<float> v) { return Tensor::from_values<float>(DType::F32, shape, v); }

struct Inputs {
  Tensor q, k, v;
  Tensor past, decay, beta;  // undefined: omitted
};

std::vector<Tensor> linear_attention(const Inputs& in, std::int64_t q_heads, std::int64_t kv_heads,
                                     const std::string& rule, std::vector<IrAttribute> extra = {},
                                     ExecutionMode mode = ExecutionMode::Fast) {
  std::vector<NodeInput> inputs{{"query", in.q}, {"key", in.k}, {"value", in.v}};
  const auto optional = [](const char* name, const Tensor& t) { return t.defined() ? NodeInput{name, t} : NodeInput{"", Tensor()}; };
  inputs.push_back(optional("past_state", in.past));
  inputs.push_back(optional("decay", in.decay));
  inputs.push_back(optional("beta", in.beta));
  std::vector<IrAttribute> attrs{int_attr("q_num_heads", q_heads), int_attr("kv_num_heads", kv_heads)};
  if (!rule.empty()) attrs.push_back(string_attr("update_rule", rule));
  for (IrAttribute& a : extra) attrs.push_back(std::move(a));
  return run_one_node("LinearAttention", 27, inputs,
                      {unshaped_tensor_value_info("output", 1), unshaped_tensor_value_info("present_state", 1)},
                      std::move(attrs), mode, /*ir_version=*/13);
}

const std::vector<IrAttribute> kScaleOne{float_attr("scale", 1.0f)};

// Linear rule, one head, dk = dv = 2, scale 1. Token 0: S = k0 v0^T = [[3, 4], [6, 8]], o = q0^T S
// = [3, 4]. Token 1: S += k1 v1^T = [[1, 1], [0, 0]], giving [[4, 5], [6, 8]]; o = [6, 8].
TEST(LinearAttention, LinearRuleTokenByToken) {
  for (ExecutionMode mode : {ExecutionMode::Fast, ExecutionMode::Exact}) {
    Inputs in{f32({1, 2, 2}, {1, 0, 0, 1}), f32({1, 2, 2}, {1, 2, 1, 0}), f32({1, 2, 2}, {3, 4, 1, 1}), {}, {}, {}};
    const auto out = linear_attention(in, 1, 1, "linear", kScaleOne, mode);
    ASSERT_EQ(out.at(0).shape(), (Shape{1, 2, 2}));
    EXPECT_EQ(out.at(0).to_vector<float>(), (std::vector<float>{3, 4, 6, 8}));
    ASSERT_EQ(out.at(1).shape(), (Shape{1, 1, 2, 2}));
    EXPECT_EQ(out.at(1).to_vector<float>(), (std::vector<float>{4, 5, 6, 8}));
  }
}

// scale 0 (the default) is 1 / sqrt(dk): dk = 4 gives 0.5. One token, S = k v^T with k = e0, v = 8:
// o = 0.5 * q0 * 8 = 4 * q0.
TEST(LinearAttention, DefaultScaleIsOneOverRootDk) {
  Inputs in{f32({1, 1, 4}, {3, 1, 1, 1}), f32({1, 1, 4}, {1, 0, 0, 0}), f32({1, 1, 1}, {8}), {}, {}, {}};
  EXPECT_EQ(linear_attention(in, 1, 1, "linear").at(0).to_vector<float>(), (std::vector<float>{12}));
}

// Gated rule: the decay multiplies the rows of S (key dimension i). Past S = [[1, 2], [3, 4]], a
// zero write, q = [1, 1]: per-key gates [0, -inf] keep row 0 and clear row 1 (exp(-inf) = 0):
// o = [1, 2]; one gate per head (-inf) clears everything: o = [0, 0]. Decaying columns instead
// would give [4, 0].
TEST(LinearAttention, GatedDecayPerKeyAndPerHead) {
  const Tensor past = f32({1, 1, 2, 2}, {1, 2, 3, 4});
  Inputs in{f32({1, 1, 2}, {1, 1}), f32({1, 1, 2}, {0, 0}), f32({1, 1, 2}, {0, 0}), past, f32({1, 1, 2}, {0, -kInf}), {}};
  auto out = linear_attention(in, 1, 1, "gated", kScaleOne, ExecutionMode::Exact);
  EXPECT_EQ(out.at(0).to_vector<float>(), (std::vector<float>{1, 2}));
  EXPECT_EQ(out.at(1).to_vector<float>(), (std::vector<float>{1, 2, 0, 0}));
  in.decay = f32({1, 1, 1}, {-kInf});
  out = linear_attention(in, 1, 1, "gated", kScaleOne, ExecutionMode::Exact);
  EXPECT_EQ(out.at(0).to_vector<float>(), (std::vector<float>{0, 0}));
}

// Delta rule, dk = 2, dv = 1, past S = [[1], [2]], k = [1, 0], v = 5, beta = 0.5: r = S^T k = 1,
// w = 0.5 * (5 - 1) = 2, S = [[3], [2]], o = q^T S = 5 with q = [1, 1]. Gated delta with gates
// [-inf, 0]: S decays to [[0], [2]] first and the retrieval reads the decayed S (section 9 step 2):
// r = 0, w = 2.5, S = [[2.5], [2]], o = 4.5 (retrieving from the undecayed S would give 4).
TEST(LinearAttention, DeltaRulesRetrieveFromTheDecayedState) {
  const Tensor past = f32({1, 1, 2, 1}, {1, 2});
  Inputs in{f32({1, 1, 2}, {1, 1}), f32({1, 1, 2}, {1, 0}), f32({1, 1, 1}, {5}), past, {}, f32({1, 1, 1}, {0.5f})};
  auto out = linear_attention(in, 1, 1, "delta", kScaleOne);
  EXPECT_EQ(out.at(0).to_vector<float>(), (std::vector<float>{5}));
  EXPECT_EQ(out.at(1).to_vector<float>(), (std::vector<float>{3, 2}));
  in.decay = f32({1, 1, 2}, {-kInf, 0});
  for (ExecutionMode mode : {ExecutionMode::Fast, ExecutionMode::Exact}) {
    out = linear_attention(in, 1, 1, "", kScaleOne, mode);  // gated_delta is the default rule
    EXPECT_EQ(out.at(0).to_vector<float>(), (std::vector<float>{4.5f}));
    EXPECT_EQ(out.at(1).to_vector<float>(), (std::vector<float>{2.5f, 2}));
  }
}

// Grouped heads: Hq = 4, Hkv = 2, dk = dv = 1. kv head 0 holds 1 and kv head 1 holds 10; query
// heads 0 and 1 read kv head 0, heads 2 and 3 kv head 1 (consecutive, not interleaved). beta of
// shape (B, T, 1) is one rate for both kv heads: with the delta rule from S = 0, w = beta * v.
TEST(LinearAttention, GroupedQueryHeadsShareConsecutively) {
  Inputs in{f32({1, 1, 4}, {1, 1, 1, 1}), f32({1, 1, 2}, {1, 1}), f32({1, 1, 2}, {1, 10}), {}, {}, {}};
  EXPECT_EQ(linear_attention(in, 4, 2, "linear", kScaleOne).at(0).to_vector<float>(),
            (std::vector<float>{1, 1, 10, 10}));
  in.beta = f32({1, 1, 1}, {0.5f});
  EXPECT_EQ(linear_attention(in, 4, 2, "delta", kScaleOne).at(0).to_vector<float>(),
            (std::vector<float>{0.5f, 0.5f, 5, 5}));
  in.beta = f32({1, 1, 2}, {0.5f, 2});
  EXPECT_EQ(linear_attention(in, 4, 2, "delta", kScaleOne).at(0).to_vector<float>(),
            (std::vector<float>{0.5f, 0.5f, 20, 20}));
}

// Section 9 step 3: the outer product is a one-term sum from +0, so a past -0 plus the product
// 1 * -0 is -0 + (+0 + -0) = +0 (adding the product itself would keep -0).
TEST(LinearAttention, OuterProductStartsAtPositiveZero) {
  Inputs in{f32({1, 1, 1}, {1}), f32({1, 1, 1}, {1}), f32({1, 1, 1}, {-0.0f}), f32({1, 1, 1, 1}, {-0.0f}), {}, {}};
  for (ExecutionMode mode : {ExecutionMode::Fast, ExecutionMode::Exact}) {
    EXPECT_EQ(float_bits(linear_attention(in, 1, 1, "linear", kScaleOne, mode).at(1).to_vector<float>().at(0)), 0u);
  }
}

// The read sums q_i * S[i][j] from +0 in increasing i: q = [1, 2^24, -2^24] against a column of
// ones gives ((0 + 1) + 2^24) - 2^24 = 0 (2^24 + 1 rounds to 2^24); decreasing order gives 1.
TEST(LinearAttention, ReadAddsInIncreasingKeyOrder) {
  const float big = 16777216.0f;
  Inputs in{f32({1, 1, 3}, {1, big, -big}), f32({1, 1, 3}, {0, 0, 0}), f32({1, 1, 1}, {0}), f32({1, 1, 3, 1}, {1, 1, 1}),
            {}, {}};
  for (ExecutionMode mode : {ExecutionMode::Fast, ExecutionMode::Exact}) {
    EXPECT_EQ(float_bits(linear_attention(in, 1, 1, "linear", kScaleOne, mode).at(0).to_vector<float>().at(0)), 0u);
  }
}

TEST(LinearAttention, Refusals) {
  const auto kind = [](const std::function<void()>& f) { return session_error_kind_of(f); };
  const Inputs base{f32({1, 1, 4}, {1, 1, 1, 1}), f32({1, 1, 4}, {1, 1, 1, 1}), f32({1, 1, 4}, {1, 1, 1, 1}),
                    {}, f32({1, 1, 4}, {0, 0, 0, 0}), f32({1, 1, 2}, {1, 1})};
  // Attributes: an unknown rule, head counts that do not divide, a missing head count.
  EXPECT_EQ(kind([&] { linear_attention(base, 2, 2, "softmax"); }), SessionErrorKind::InvalidModel);
  EXPECT_EQ(kind([&] { linear_attention(base, 3, 2, "linear"); }), SessionErrorKind::InvalidModel);
  EXPECT_EQ(kind([&] { linear_attention(base, 0, 2, "linear"); }), SessionErrorKind::InvalidModel);
  EXPECT_EQ(kind([&] {
              run_one_node("LinearAttention", 27, {{"query", base.q}, {"key", base.k}, {"value", base.v}},
                           {unshaped_tensor_value_info("output", 1)}, {int_attr("q_num_heads", 2)},
                           ExecutionMode::Fast, 13);
            }),
            SessionErrorKind::InvalidModel);
  // The gated rules need decay, the delta rules beta.
  Inputs no_decay = base;
  no_decay.decay = Tensor();
  EXPECT_EQ(kind([&] { linear_attention(no_decay, 2, 2, "gated"); }), SessionErrorKind::InvalidModel);
  Inputs no_beta = base;
  no_beta.beta = Tensor();
  EXPECT_EQ(kind([&] { linear_attention(no_beta, 2, 2, "delta"); }), SessionErrorKind::InvalidModel);
  // ...and an input the rule does not read is not checked: a decay of any shape with "delta".
  Inputs odd_decay = base;
  odd_decay.decay = f32({3}, {0, 0, 0});
  EXPECT_EQ(linear_attention(odd_decay, 2, 2, "delta").at(0).shape(), (Shape{1, 1, 4}));
  // Shapes: key not Hkv * dk, past_state of the wrong shape, decay and beta of the wrong extents.
  Inputs bad = base;
  bad.k = f32({1, 1, 2}, {1, 1});
  EXPECT_EQ(kind([&] { linear_attention(bad, 2, 2, "linear"); }), SessionErrorKind::InvalidModel);
  bad = base;
  bad.past = f32({1, 2, 2, 1}, {0, 0, 0, 0});
  EXPECT_EQ(kind([&] { linear_attention(bad, 2, 2, "linear"); }), SessionErrorKind::InvalidModel);
  bad = base;
  bad.decay = f32({1, 1, 3}, {0, 0, 0});
  EXPECT_EQ(kind([&] { linear_attention(bad, 2, 2, "gated"); }), SessionErrorKind::InvalidModel);
  bad = base;
  bad.beta = f32({1, 1, 4}, {1, 1, 1, 1});
  EXPECT_EQ(kind([&] { linear_attention(bad, 2, 2, "delta"); }), SessionErrorKind::InvalidModel);
  // float64 is not a type of the operator.
  bad = base;
  bad.q = Tensor::from_values<double>(DType::F64, Shape{1, 1, 4}, {1, 1, 1, 1});
  EXPECT_EQ(kind([&] { linear_attention(bad, 2, 2, "linear"); }), SessionErrorKind::Unsupported);
}

}  // namespace
}  // namespace onemodel
