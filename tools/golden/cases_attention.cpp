// Attention and Softmax. The ONNX Attention operator (opset 23) is refused in exact mode
// (ops-coverage.md, "Exactness"), so its graphs print the not-exact marker; the same computation
// written as MatMul, Transpose, Mul, Add or Where, Softmax, MatMul runs exact and is hashed
// (kernels-attention.md: the score product uses the matrix-product order). Masks: none, additive
// (with a fully masked row, whose softmax is NaN) and boolean causal.
#include <cmath>
#include <limits>
#include <string>

#include "tools/golden/golden_case.hpp"
#include "tools/golden/prng.hpp"

namespace onemodel::golden {
namespace {

constexpr float kNegInf = -std::numeric_limits<float>::infinity();

Tensor random_tensor(Prng& prng, const Shape& shape, float scale = 1.0f) {
  return float_tensor(shape, symmetric_values(prng, shape.element_count(), scale));
}

struct AttentionShape {
  std::int64_t batch, heads, q_len, kv_len, head_size;
};

// Additive mask [batch, 1, q_len, kv_len]: 0 where visible, -inf or -10000 where hidden; query
// row 1 of batch 0 is hidden entirely.
Tensor additive_mask(Prng& prng, const AttentionShape& s) {
  std::vector<float> m(static_cast<std::size_t>(s.batch * s.q_len * s.kv_len), 0.0f);
  for (std::size_t i = 0; i < m.size(); ++i) {
    const std::uint32_t r = prng.below(4);
    m[i] = r == 0 ? kNegInf : (r == 1 ? -10000.0f : 0.0f);
  }
  if (s.q_len > 1) {
    for (std::int64_t j = 0; j < s.kv_len; ++j) m[static_cast<std::size_t>(s.kv_len + j)] = kNegInf;
  }
  return float_tensor(Shape{s.batch, 1, s.q_len, s.kv_len}, m);
}

// Causal: query i sees keys 0 .. i + (kv_len - q_len).
Tensor causal_mask(const AttentionShape& s) {
  std::vector<std::uint8_t> m(static_cast<std::size_t>(s.q_len * s.kv_len));
  for (std::int64_t i = 0; i < s.q_len; ++i) {
    for (std::int64_t j = 0; j < s.kv_len; ++j) {
      m[static_cast<std::size_t>(i * s.kv_len + j)] = j <= i + (s.kv_len - s.q_len) ? 1 : 0;
    }
  }
  return bool_tensor(Shape{s.q_len, s.kv_len}, m);
}

GoldenGraph composed_attention(const char* name, const AttentionShape& s, bool all_masks) {
  Prng prng = prng_for(name);
  GraphBuilder g;
  const std::string q = g.input("q", random_tensor(prng, Shape{s.batch, s.heads, s.q_len, s.head_size}));
  const std::string k = g.input("k", random_tensor(prng, Shape{s.batch, s.heads, s.kv_len, s.head_size}));
  const std::string v = g.input("v", random_tensor(prng, Shape{s.batch, s.heads, s.kv_len, s.head_size}));
  // 1/sqrt(head_size): square root and division are correctly rounded (IEEE), so this constant is
  // the same float everywhere.
  const float scale = 1.0f / std::sqrt(static_cast<float>(s.head_size));
  const std::string scale_name = g.constant("scale", float_tensor(Shape{}, {scale}));
  const std::string kt = g.node("Transpose", {k}, {attr_ints("perm", {0, 1, 3, 2})}, "k_transposed");
  const std::string scores = g.node("Mul", {g.node("MatMul", {q, kt}, {}, "qk"), scale_name}, {}, "scores");
  const auto attend = [&](const std::string& logits, const std::string& tag) {
    const std::string p = g.node("Softmax", {logits}, {attr_int("axis", -1)}, "probs_" + tag);
    const std::string y = g.node("MatMul", {p, v}, {}, "y_" + tag);
    g.output(p);
    g.output(y);
  };
  g.output(scores);
  attend(scores, "no_mask");
  const std::string mask = g.input("mask", additive_mask(prng, s));
  attend(g.node("Add", {scores, mask}, {}, "scores_additive"), "additive_mask");
  if (all_masks) {
    const std::string visible = g.input("causal", causal_mask(s));
    const std::string neg_inf = g.constant("neg_inf", float_tensor(Shape{}, {kNegInf}));
    attend(g.node("Where", {visible, scores, neg_inf}, {}, "scores_causal"), "causal_mask");
  }
  return g.finish();
}

// The Attention operator itself (opset 23), with and without a mask.
GoldenGraph attention_operator(const char* name, bool with_mask) {
  Prng prng = prng_for(name);
  const AttentionShape s{2, 3, 17, 29, 16};
  GraphBuilder g(23);
  std::vector<std::string> ins = {
      g.input("q", random_tensor(prng, Shape{s.batch, s.heads, s.q_len, s.head_size})),
      g.input("k", random_tensor(prng, Shape{s.batch, s.heads, s.kv_len, s.head_size})),
      g.input("v", random_tensor(prng, Shape{s.batch, s.heads, s.kv_len, s.head_size}))};
  if (with_mask) ins.push_back(g.input("mask", additive_mask(prng, s)));
  g.output(g.node("Attention", ins, {}, "y"));
  return g.finish();
}

// Softmax along the last axis for every width 1..70, along inner and outer axes, and over special
// values (infinities and NaN in a row).
GoldenGraph softmax_sweep() {
  Prng prng = prng_for("softmax_sweep");
  GraphBuilder g;
  for (std::int64_t w = 1; w <= 70; ++w) {
    const std::string tag = std::to_string(w);
    const std::string x = g.input("x_" + tag, random_tensor(prng, Shape{3, w}, 4.0f));
    g.output(g.node("Softmax", {x}, {attr_int("axis", -1)}, "softmax_" + tag));
  }
  const std::string x3 = g.input("x3", random_tensor(prng, Shape{5, 7, 9}, 8.0f));
  g.output(g.node("Softmax", {x3}, {attr_int("axis", 0)}, "softmax_axis0"));
  g.output(g.node("Softmax", {x3}, {attr_int("axis", 1)}, "softmax_axis1"));
  std::vector<float> sv = special_values();
  std::vector<float> rows;
  for (std::size_t i = 0; i < sv.size(); ++i) {
    for (std::size_t j = 0; j < 5; ++j) rows.push_back(j == 2 ? sv[i] : static_cast<float>(j) * 0.5f);
  }
  const std::string xs = g.input("specials", float_tensor(Shape{static_cast<std::int64_t>(sv.size()), 5}, rows));
  g.output(g.node("Softmax", {xs}, {attr_int("axis", -1)}, "softmax_specials"));
  return g.finish();
}

}  // namespace

void add_attention_cases(CaseList& cases) {
  cases.push_back({"attention_composed", true,
                   [] { return composed_attention("attention_composed", {2, 3, 17, 29, 32}, true); }});
  cases.push_back({"attention_composed_d16", true,
                   [] { return composed_attention("attention_composed_d16", {1, 2, 70, 67, 16}, true); }});
  cases.push_back({"attention_composed_d64_1500", false,
                   [] { return composed_attention("attention_composed_d64_1500", {1, 2, 64, 1500, 64}, false); }});
  cases.push_back({"attention_op_no_mask", true, [] { return attention_operator("attention_op_no_mask", false); }});
  cases.push_back({"attention_op_mask", true, [] { return attention_operator("attention_op_mask", true); }});
  cases.push_back({"softmax_sweep", true, softmax_sweep});
}

}  // namespace onemodel::golden
