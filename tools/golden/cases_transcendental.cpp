// The exact transcendental functions (exact-transcendentals.md): Exp, Log, Tanh, Erf, Sigmoid and
// Gelu (exact and tanh forms) over every 4099th float32 bit pattern (all signs, exponents,
// subnormals, infinities and NaNs, about a million inputs) plus the special values. The quick set
// has a coarser bit sweep and a dense grid over [-20, 20]. The trig_* cases do the same for Sin, Cos,
// Tan, Asin, Acos, Atan, Sinh, Cosh, Asinh, Acosh and Atanh.
#include <cstdint>
#include <string>

#include "tools/golden/golden_case.hpp"
#include "tools/golden/prng.hpp"

namespace onemodel::golden {
namespace {

// Bit patterns 0, step, 2*step, ... up to 2^32 - 1, then the special values.
std::vector<float> bit_sweep(std::uint64_t step) {
  std::vector<float> values;
  for (std::uint64_t bits = 0; bits <= 0xFFFFFFFFull; bits += step) {
    values.push_back(float_from_bits(static_cast<std::uint32_t>(bits)));
  }
  for (float v : special_values()) values.push_back(v);
  return values;
}

GoldenGraph all_functions(const std::vector<float>& values) {
  GraphBuilder g;
  const std::string x = g.input("x", float_tensor(Shape{static_cast<std::int64_t>(values.size())}, values));
  for (const char* op : {"Exp", "Log", "Tanh", "Erf", "Sigmoid"}) g.output(g.node(op, {x}, {}, op));
  g.output(g.node("Gelu", {x}, {}, "Gelu"));
  g.output(g.node("Gelu", {x}, {attr_string("approximate", "tanh")}, "Gelu_tanh"));
  return g.finish();
}

// The trigonometric and hyperbolic family (exact-transcendentals.md sections 11-13, issue 17).
GoldenGraph trig_functions(const std::vector<float>& values) {
  GraphBuilder g;
  const std::string x = g.input("x", float_tensor(Shape{static_cast<std::int64_t>(values.size())}, values));
  for (const char* op : {"Sin", "Cos", "Tan", "Asin", "Acos", "Atan", "Sinh", "Cosh", "Asinh", "Acosh", "Atanh"}) {
    g.output(g.node(op, {x}, {}, op));
  }
  return g.finish();
}

// Multiples of 1/64 in [-20, 20]: where the polynomials' ranges meet.
std::vector<float> dense_grid() {
  std::vector<float> values;
  for (int k = -20 * 64; k <= 20 * 64; ++k) values.push_back(static_cast<float>(k) / 64.0f);
  return values;
}

}  // namespace

void add_transcendental_cases(CaseList& cases) {
  cases.push_back({"transcendental_bits_4099", false, [] { return all_functions(bit_sweep(4099)); }});
  cases.push_back({"transcendental_bits_coarse", true, [] { return all_functions(bit_sweep(262147)); }});
  cases.push_back({"transcendental_grid", true, [] { return all_functions(dense_grid()); }});
  cases.push_back({"trig_bits_4099", false, [] { return trig_functions(bit_sweep(4099)); }});
  cases.push_back({"trig_bits_coarse", true, [] { return trig_functions(bit_sweep(262147)); }});
  cases.push_back({"trig_grid", true, [] { return trig_functions(dense_grid()); }});
}

}  // namespace onemodel::golden
