// Operators the optimized engine overrides beyond the families the golden set started with
// (added after the first expected lines; new cases only, so earlier lines keep their hashes):
// unary element-wise operators over lengths 0..70 and the special values, LogSoftmax,
// RMSNormalization, Transpose permutations and ConvTranspose.
#include <algorithm>
#include <string>

#include "tools/golden/golden_case.hpp"
#include "tools/golden/prng.hpp"

namespace onemodel::golden {
namespace {

Tensor random_tensor(Prng& prng, const Shape& shape, float scale = 1.0f) {
  return float_tensor(shape, symmetric_values(prng, shape.element_count(), scale));
}

// Each unary operator on one input; Clip's bounds are constant inputs (opset 11 and later).
void add_unary_nodes(GraphBuilder& g, const std::string& x, const std::string& tag, const std::string& lo,
                     const std::string& hi) {
  g.output(g.node("Abs", {x}, {}, "Abs_" + tag));
  g.output(g.node("Neg", {x}, {}, "Neg_" + tag));
  g.output(g.node("Clip", {x, lo, hi}, {}, "Clip_" + tag));
  g.output(g.node("LeakyRelu", {x}, {attr_float("alpha", 0.1f)}, "LeakyRelu_" + tag));
  g.output(g.node("HardSigmoid", {x}, {attr_float("alpha", 0.25f), attr_float("beta", 0.5f)}, "HardSigmoid_" + tag));
  g.output(g.node("HardSwish", {x}, {}, "HardSwish_" + tag));
}

GoldenGraph unary_sweep() {
  Prng prng = prng_for("unary_sweep");
  GraphBuilder g;
  const std::string lo = g.constant("lo", float_tensor(Shape{}, {-0.5f}));
  const std::string hi = g.constant("hi", float_tensor(Shape{}, {0.75f}));
  for (std::int64_t n = 0; n <= 70; ++n) {
    const std::string tag = std::to_string(n);
    add_unary_nodes(g, g.input("x_" + tag, random_tensor(prng, Shape{n}, 4.0f)), tag, lo, hi);
  }
  const std::vector<float> sv = special_values();
  add_unary_nodes(g, g.input("specials", float_tensor(Shape{static_cast<std::int64_t>(sv.size())}, sv)), "specials",
                  lo, hi);
  return g.finish();
}

GoldenGraph log_softmax_sweep() {
  Prng prng = prng_for("log_softmax_sweep");
  GraphBuilder g;
  for (std::int64_t w = 1; w <= 70; ++w) {
    const std::string tag = std::to_string(w);
    const std::string x = g.input("x_" + tag, random_tensor(prng, Shape{3, w}, 4.0f));
    g.output(g.node("LogSoftmax", {x}, {attr_int("axis", -1)}, "log_softmax_" + tag));
  }
  const std::string x3 = g.input("x3", random_tensor(prng, Shape{5, 7, 9}, 8.0f));
  g.output(g.node("LogSoftmax", {x3}, {attr_int("axis", 1)}, "log_softmax_axis1"));
  return g.finish();
}

GoldenGraph rms_norm() {
  Prng prng = prng_for("rms_norm");
  GraphBuilder g;
  for (std::int64_t w = 1; w <= 70; ++w) {
    const std::string tag = std::to_string(w);
    const std::string x = g.input("x_" + tag, random_tensor(prng, Shape{3, w}, 2.0f));
    const std::string s = g.constant("s_" + tag, random_tensor(prng, Shape{w}));
    g.output(g.node("RMSNormalization", {x, s}, {attr_int("axis", -1)}, "rms_" + tag));
  }
  const std::string x4 = g.input("x4", random_tensor(prng, Shape{3, 5, 7, 9}));
  const std::string s4 = g.constant("s4", random_tensor(prng, Shape{7, 9}));
  g.output(g.node("RMSNormalization", {x4, s4}, {attr_int("axis", 2), attr_float("epsilon", 0.5f)}, "rms_axis2"));
  return g.finish();
}

// Transposes of odd shapes (register tiles plus scalar edges) and of every rank-4 axis order.
GoldenGraph transpose_perms() {
  Prng prng = prng_for("transpose_perms");
  GraphBuilder g;
  for (std::int64_t rows : {1, 3, 4, 8, 9, 17, 33}) {
    for (std::int64_t cols : {1, 5, 8, 13, 64}) {
      const std::string tag = std::to_string(rows) + "x" + std::to_string(cols);
      const std::string x = g.input("x_" + tag, random_tensor(prng, Shape{rows, cols}));
      g.output(g.node("Transpose", {x}, {}, "t2_" + tag));
    }
  }
  const std::string x4 = g.input("x4", random_tensor(prng, Shape{2, 3, 5, 7}));
  std::vector<std::int64_t> perm = {0, 1, 2, 3};
  do {
    std::string tag;
    for (std::int64_t p : perm) tag += std::to_string(p);
    g.output(g.node("Transpose", {x4}, {attr_ints("perm", perm)}, "t4_" + tag));
  } while (std::next_permutation(perm.begin(), perm.end()));
  return g.finish();
}

GoldenGraph conv_transpose() {
  Prng prng = prng_for("conv_transpose");
  GraphBuilder g;
  const std::string x = g.input("x", random_tensor(prng, Shape{2, 4, 7, 6}));
  const auto deconv = [&](const std::string& name, const Shape& w_shape, std::vector<IrAttribute> attrs,
                          std::int64_t bias_count) {
    const std::string w = g.constant("w_" + name, random_tensor(prng, w_shape, 0.5f));
    std::vector<std::string> ins = {x, w};
    if (bias_count > 0) ins.push_back(g.constant("b_" + name, random_tensor(prng, Shape{bias_count})));
    g.output(g.node("ConvTranspose", ins, std::move(attrs), name));
  };
  deconv("k3_s1", Shape{4, 5, 3, 3}, {attr_ints("pads", {1, 1, 1, 1})}, 5);
  deconv("k3_s2_outpad", Shape{4, 3, 3, 3},
         {attr_ints("strides", {2, 2}), attr_ints("pads", {1, 1, 1, 1}), attr_ints("output_padding", {1, 1})}, 0);
  deconv("k2_s2", Shape{4, 6, 2, 2}, {attr_ints("strides", {2, 2})}, 6);
  // Two groups of two output channels: the bias has M = 4 entries.
  deconv("grouped_dilated", Shape{4, 2, 3, 3}, {attr_int("group", 2), attr_ints("dilations", {2, 2})}, 4);
  return g.finish();
}

}  // namespace

void add_more_cases(CaseList& cases) {
  cases.push_back({"unary_sweep", true, unary_sweep});
  cases.push_back({"log_softmax_sweep", true, log_softmax_sweep});
  cases.push_back({"rms_norm", true, rms_norm});
  cases.push_back({"transpose_perms", true, transpose_perms});
  cases.push_back({"conv_transpose", true, conv_transpose});
}

}  // namespace onemodel::golden
