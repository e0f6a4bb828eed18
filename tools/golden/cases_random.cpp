// The random operators (spec/ops/random.md, issue 17): their draws are integer arithmetic and
// correctly rounded binary64 steps (the polar method through the exact binary64 log), so every
// platform must give the same bits. Seeded and unseeded nodes (the run seed is 0 here), every
// output type the value operators make, Bernoulli, Multinomial and Dropout in training mode.
#include <cmath>
#include <string>

#include "tools/golden/golden_case.hpp"
#include "tools/golden/prng.hpp"

namespace onemodel::golden {
namespace {

GoldenGraph random_draws() {
  Prng prng = prng_for("random_draws");
  GraphBuilder g;
  const std::vector<std::int64_t> shape = {64, 33};
  for (const auto& [dtype, elem] : std::vector<std::pair<std::int64_t, std::int32_t>>{{1, 1}, {11, 11}, {10, 10}, {16, 16}}) {
    const std::string tag = std::to_string(dtype);
    g.output(g.node("RandomNormal", {}, {attr_ints("shape", shape), attr_int("dtype", dtype), attr_float("mean", 0.5f),
                                         attr_float("scale", 3.0f), attr_float("seed", 1.0f)},
                    "normal_seeded_" + tag),
             elem);
    g.output(g.node("RandomUniform", {}, {attr_ints("shape", shape), attr_int("dtype", dtype), attr_float("low", -4.0f),
                                          attr_float("high", 2.5f), attr_float("seed", 2.0f)},
                    "uniform_seeded_" + tag),
             elem);
  }
  g.output(g.node("RandomNormal", {}, {attr_ints("shape", shape)}, "normal_unseeded"));
  std::vector<float> p(2112);
  for (std::size_t i = 0; i < p.size(); ++i) p[i] = static_cast<float>(i % 101) / 100.0f;
  const std::string probabilities = g.input("p", float_tensor(Shape{2112}, p));
  g.output(g.node("RandomUniformLike", {probabilities}, {}, "uniform_like_unseeded"));
  g.output(g.node("Bernoulli", {probabilities}, {attr_float("seed", 3.0f)}, "bernoulli_seeded"));
  const std::string logits = g.input("logits", float_tensor(Shape{8, 16}, symmetric_values(prng, 128, 4.0f)));
  g.output(g.node("Multinomial", {logits}, {attr_int("sample_size", 50), attr_int("dtype", 7), attr_float("seed", 4.0f)},
                  "multinomial_seeded"),
           7);
  const std::string x = g.input("x", float_tensor(Shape{2112}, symmetric_values(prng, 2112, 2.0f)));
  const std::string ratio = g.constant("ratio", float_tensor(Shape{}, {0.3f}));
  const std::string training = g.constant("training", bool_tensor(Shape{}, {1}));
  g.node_outputs("Dropout", {x, ratio, training}, {attr_int("seed", 5)}, {"dropout_y", "dropout_mask"});
  g.output("dropout_y");
  g.output("dropout_mask", 9);
  return g.finish();
}

}  // namespace

void add_random_cases(CaseList& cases) { cases.push_back({"random_draws", true, random_draws}); }

}  // namespace onemodel::golden
