// Element-wise binary operators with numpy broadcasting (ops-elementwise.md): every length 0..70
// (vector tails), scalar, row, column and middle-axis broadcasts, and every pair of special
// values, plus two unary operators on the special values.
#include <string>

#include "tools/golden/golden_case.hpp"
#include "tools/golden/prng.hpp"

namespace onemodel::golden {
namespace {

const char* const kBinaryOps[] = {"Add", "Sub", "Mul", "Div", "Max", "Min"};

Tensor random_tensor(Prng& prng, const Shape& shape) {
  return float_tensor(shape, symmetric_values(prng, shape.element_count()));
}

// Divisors kept away from zero so Div tests rounding, not infinities (those are in the specials).
Tensor nonzero_tensor(Prng& prng, const Shape& shape) {
  std::vector<float> v = symmetric_values(prng, shape.element_count());
  for (float& e : v) e = e < 0 ? e - 0.25f : e + 0.25f;
  return float_tensor(shape, v);
}

GoldenGraph binary_length_sweep() {
  Prng prng = prng_for("binary_length_sweep");
  GraphBuilder g;
  for (std::int64_t n = 0; n <= 70; ++n) {
    const std::string tag = std::to_string(n);
    const std::string a = g.input("a_" + tag, random_tensor(prng, Shape{n}));
    const std::string b = g.input("b_" + tag, nonzero_tensor(prng, Shape{n}));
    for (const char* op : kBinaryOps) g.output(g.node(op, {a, b}, {}, std::string(op) + "_" + tag));
  }
  return g.finish();
}

GoldenGraph binary_broadcast() {
  Prng prng = prng_for("binary_broadcast");
  GraphBuilder g;
  struct Pair {
    const char* tag;
    Shape a, b;
  };
  const Pair pairs[] = {
      {"scalar", Shape{3, 5, 37}, Shape{}},
      {"row", Shape{6, 67}, Shape{67}},
      {"column", Shape{6, 67}, Shape{6, 1}},
      {"middle", Shape{3, 1, 5, 7}, Shape{4, 1, 7}},
      {"outer", Shape{2, 3, 1}, Shape{1, 3, 65}},
      {"scalar_first", Shape{1}, Shape{4, 33}},
      {"both_expand", Shape{9, 1}, Shape{1, 19}},
      {"empty", Shape{0, 5}, Shape{5}},
  };
  for (const Pair& p : pairs) {
    const std::string a = g.input(std::string("a_") + p.tag, random_tensor(prng, p.a));
    const std::string b = g.input(std::string("b_") + p.tag, nonzero_tensor(prng, p.b));
    for (const char* op : kBinaryOps) g.output(g.node(op, {a, b}, {}, std::string(op) + "_" + p.tag));
  }
  // A constant operand (an initializer) broadcast along rows.
  const std::string x = g.input("x", random_tensor(prng, Shape{11, 29}));
  const std::string c = g.constant("c", nonzero_tensor(prng, Shape{29}));
  for (const char* op : kBinaryOps) g.output(g.node(op, {x, c}, {}, std::string(op) + "_constant"));
  return g.finish();
}

// Every ordered pair of special values through each operator ([n, 1] against [1, n]); NaN results
// must be the canonical NaN (exact-mode.md rule 4).
GoldenGraph binary_specials() {
  const std::vector<float> sv = special_values();
  const std::int64_t n = static_cast<std::int64_t>(sv.size());
  GraphBuilder g;
  const std::string a = g.input("a", float_tensor(Shape{n, 1}, sv));
  const std::string b = g.input("b", float_tensor(Shape{1, n}, sv));
  for (const char* op : kBinaryOps) g.output(g.node(op, {a, b}, {}, std::string(op) + "_specials"));
  const std::string flat = g.input("flat", float_tensor(Shape{n}, sv));
  g.output(g.node("Relu", {flat}, {}, "Relu_specials"));
  g.output(g.node("Sqrt", {flat}, {}, "Sqrt_specials"));
  return g.finish();
}

}  // namespace

void add_elementwise_cases(CaseList& cases) {
  cases.push_back({"binary_length_sweep", true, binary_length_sweep});
  cases.push_back({"binary_broadcast", true, binary_broadcast});
  cases.push_back({"binary_specials", true, binary_specials});
}

}  // namespace onemodel::golden
