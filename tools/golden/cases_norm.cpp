// LayerNormalization and reductions (ops-norms.md; exact-mode.md: one accumulator per output, in
// increasing index, from +0): several axes, widths 1..70 through the vector tails, keepdims both
// ways, and rows holding special values.
#include <string>

#include "tools/golden/golden_case.hpp"
#include "tools/golden/prng.hpp"

namespace onemodel::golden {
namespace {

Tensor random_tensor(Prng& prng, const Shape& shape, float scale = 1.0f) {
  return float_tensor(shape, symmetric_values(prng, shape.element_count(), scale));
}

GoldenGraph layer_norm() {
  Prng prng = prng_for("layer_norm");
  GraphBuilder g;
  const std::string x = g.input("x", random_tensor(prng, Shape{4, 37, 96}, 4.0f));
  const std::string scale = g.constant("scale", random_tensor(prng, Shape{96}));
  const std::string bias = g.constant("bias", random_tensor(prng, Shape{96}));
  g.output(g.node("LayerNormalization", {x, scale, bias}, {attr_int("axis", -1), attr_float("epsilon", 1e-5f)},
                  "last_axis"));
  g.output(g.node("LayerNormalization", {x, scale}, {attr_int("axis", -1)}, "no_bias"));
  const std::string scale2 = g.constant("scale2", random_tensor(prng, Shape{37, 96}));
  g.output(g.node("LayerNormalization", {x, scale2}, {attr_int("axis", 1), attr_float("epsilon", 0.25f)},
                  "axis1"));
  const std::string x4 = g.input("x4", random_tensor(prng, Shape{3, 5, 7, 9}));
  const std::string scale4 = g.constant("scale4", random_tensor(prng, Shape{5, 7, 9}));
  g.output(g.node("LayerNormalization", {x4, scale4}, {attr_int("axis", 1)}, "rank4_axis1"));
  return g.finish();
}

GoldenGraph layer_norm_sweep() {
  Prng prng = prng_for("layer_norm_sweep");
  GraphBuilder g;
  for (std::int64_t w = 1; w <= 70; ++w) {
    const std::string tag = std::to_string(w);
    const std::string x = g.input("x_" + tag, random_tensor(prng, Shape{3, w}, 2.0f));
    const std::string s = g.constant("s_" + tag, random_tensor(prng, Shape{w}));
    const std::string b = g.constant("b_" + tag, random_tensor(prng, Shape{w}));
    g.output(g.node("LayerNormalization", {x, s, b}, {attr_int("axis", -1)}, "ln_" + tag));
  }
  std::vector<float> sv = special_values();
  std::vector<float> rows;
  for (float v : sv) {
    for (int j = 0; j < 6; ++j) rows.push_back(j == 3 ? v : static_cast<float>(j) * 0.25f);
  }
  const std::int64_t n = static_cast<std::int64_t>(sv.size());
  const std::string xs = g.input("specials", float_tensor(Shape{n, 6}, rows));
  const std::string ss = g.constant("s_specials", float_tensor(Shape{6}, {1.0f, 0.5f, 2.0f, -1.0f, 0.75f, 1.5f}));
  g.output(g.node("LayerNormalization", {xs, ss}, {attr_int("axis", -1)}, "ln_specials"));
  return g.finish();
}

// Every reduction the library serves exactly over several axis sets (opset 18: axes as an input).
GoldenGraph reductions() {
  Prng prng = prng_for("reductions");
  GraphBuilder g;
  const std::string x = g.input("x", random_tensor(prng, Shape{6, 13, 35}, 2.0f));
  const std::string xp = g.input("xp", float_tensor(Shape{6, 13, 35}, [&] {
                                   std::vector<float> v = symmetric_values(prng, 6 * 13 * 35);
                                   for (float& e : v) e = e < 0 ? -e + 0.125f : e + 0.125f;
                                   return v;
                                 }()));
  const std::vector<std::pair<std::string, std::vector<std::int64_t>>> axis_sets = {
      {"last", {-1}}, {"first", {0}}, {"middle", {1}}, {"inner2", {1, 2}}, {"outer2", {0, 1}}, {"all", {}}};
  const char* ops[] = {"ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin", "ReduceSumSquare",
                       "ReduceL1", "ReduceL2", "ReduceLogSumExp", "ReduceProd", "ReduceLogSum"};
  for (const auto& [tag, axes] : axis_sets) {
    std::vector<std::string> axes_input;
    if (!axes.empty()) {
      axes_input.push_back(
          g.constant("axes_" + tag, int64_tensor(Shape{static_cast<std::int64_t>(axes.size())}, axes)));
    }
    for (const char* op : ops) {
      // ReduceLogSum and ReduceProd on positive inputs (log of a negative sum is NaN everywhere,
      // which would test nothing; products of ~1000 values in [-2, 2] overflow).
      const bool positive = std::string(op) == "ReduceLogSum" || std::string(op) == "ReduceProd";
      std::vector<std::string> ins = {positive ? xp : x};
      ins.insert(ins.end(), axes_input.begin(), axes_input.end());
      for (int keep = 0; keep <= 1; ++keep) {
        g.output(g.node(op, ins, {attr_int("keepdims", keep)},
                        std::string(op) + "_" + tag + (keep ? "_keep" : "")));
      }
    }
  }
  return g.finish();
}

GoldenGraph reduction_sweep() {
  Prng prng = prng_for("reduction_sweep");
  GraphBuilder g;
  const std::string axes = g.constant("axes", int64_tensor(Shape{1}, {-1}));
  for (std::int64_t w = 0; w <= 70; ++w) {
    const std::string tag = std::to_string(w);
    const std::string x = g.input("x_" + tag, random_tensor(prng, Shape{5, w}));
    g.output(g.node("ReduceSum", {x, axes}, {attr_int("keepdims", 0)}, "sum_" + tag));
    g.output(g.node("ReduceMean", {x, axes}, {attr_int("keepdims", 0)}, "mean_" + tag));
    g.output(g.node("ReduceMax", {x, axes}, {attr_int("keepdims", 0)}, "max_" + tag));
  }
  return g.finish();
}

}  // namespace

void add_norm_cases(CaseList& cases) {
  cases.push_back({"layer_norm", true, layer_norm});
  cases.push_back({"layer_norm_sweep", true, layer_norm_sweep});
  cases.push_back({"reductions", true, reductions});
  cases.push_back({"reduction_sweep", true, reduction_sweep});
}

}  // namespace onemodel::golden
