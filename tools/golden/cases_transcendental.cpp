// The exact transcendental functions (exact-transcendentals.md): Exp, Log, Tanh, Erf, Sigmoid and
// Gelu (exact and tanh forms) over every 4099th float32 bit pattern (all signs, exponents,
// subnormals, infinities and NaNs, about a million inputs) plus the special values. The quick set
// has a coarser bit sweep and a dense grid over [-20, 20]. The trig_* cases do the same for Sin, Cos,
// Tan, Asin, Acos, Atan, Sinh, Cosh, Asinh, Acosh and Atanh; hyperbolic64_bits runs the float64
// Sinh, Cosh, Tanh, Asinh, Acosh, Atanh, Erf, Mish, Swish and Gelu over binary64 bit patterns.
#include <cstdint>
#include <cstring>
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

// The float64 operators on the binary64 hyperbolic functions and erf (exact-transcendentals.md
// section 17): every (2^46 + 1)-th binary64 bit pattern from 0 (all signs and exponents, about
// 262,000 inputs), the float32 special values widened (exact), and the multiples of 1/64 in
// [-30, 30] (where the steps switch). Opset 24 for Swish.
std::vector<double> hyperbolic64_values() {
  std::vector<double> values;
  constexpr std::uint64_t kStep = (1ull << 46) + 1;
  for (std::uint64_t i = 0; i < (1ull << 18); ++i) {
    const std::uint64_t bits = i * kStep;
    double v;
    std::memcpy(&v, &bits, sizeof v);
    values.push_back(v);
  }
  for (float v : special_values()) values.push_back(static_cast<double>(v));
  for (int k = -30 * 64; k <= 30 * 64; ++k) values.push_back(static_cast<double>(k) / 64.0);
  return values;
}

GoldenGraph hyperbolic64_functions(const std::vector<double>& values) {
  constexpr std::int32_t kOnnxDouble = 11;
  GraphBuilder g(24);
  const std::string x = g.input("x", double_tensor(Shape{static_cast<std::int64_t>(values.size())}, values));
  for (const char* op : {"Sinh", "Cosh", "Tanh", "Asinh", "Acosh", "Atanh", "Erf", "Mish", "Swish"}) {
    g.output(g.node(op, {x}, {}, op), kOnnxDouble);
  }
  g.output(g.node("Gelu", {x}, {}, "Gelu"), kOnnxDouble);
  g.output(g.node("Gelu", {x}, {attr_string("approximate", "tanh")}, "Gelu_tanh"), kOnnxDouble);
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
  cases.push_back({"hyperbolic64_bits", true, [] { return hyperbolic64_functions(hyperbolic64_values()); }});
}

}  // namespace onemodel::golden
