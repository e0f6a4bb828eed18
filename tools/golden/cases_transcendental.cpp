// The exact transcendental functions (exact-transcendentals.md): Exp, Log, Tanh, Erf, Sigmoid and
// Gelu (exact and tanh forms) over every 4099th float32 bit pattern (all signs, exponents,
// subnormals, infinities and NaNs, about a million inputs) plus the special values. The quick set
// has a coarser bit sweep and a dense grid over [-20, 20]. The trig_* cases do the same for Sin, Cos,
// Tan, Asin, Acos, Atan, Sinh, Cosh, Asinh, Acosh and Atanh; trig64_bits does Sin, Cos, Tan, Asin,
// Acos and Atan in float64 (exact-transcendentals.md section 16) over a binary64 bit sweep, and
// hyperbolic64_bits the float64 Sinh, Cosh, Tanh, Asinh, Acosh, Atanh, Erf, Mish, Swish and Gelu
// (section 17).
#include <cstdint>
#include <cstring>
#include <span>
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

// Binary64 bit patterns 12345, 12345 + step, ... below 2^64 (both signs, every exponent,
// subnormals, infinities, NaNs with payloads), then the special values and the doubles k * pi/2
// (the product rounded once) for k = 1..1000 with both neighbours: the hard arguments of the
// reduction (section 16.2).
std::vector<double> bit_sweep64(std::uint64_t step) {
  std::vector<double> values;
  auto from_bits = [](std::uint64_t u) {
    double d;
    std::memcpy(&d, &u, sizeof d);
    return d;
  };
  for (std::uint64_t u = 12345;; u += step) {
    values.push_back(from_bits(u));
    if (u > ~0ull - step) break;  // the next step would wrap around
  }
  for (std::uint64_t u : {0x0000000000000000ull, 0x8000000000000000ull, 0x7FF0000000000000ull, 0xFFF0000000000000ull,
                          0x7FF8000000000000ull, 0xFFF4000000000001ull, 0x0000000000000001ull, 0x8000000000000001ull,
                          0x7FEFFFFFFFFFFFFFull, 0xFFEFFFFFFFFFFFFFull, 0x3FF0000000000000ull, 0xBFF0000000000000ull,
                          0x3FEFFFFFFFFFFFFFull, 0xBFEFFFFFFFFFFFFFull, 0x3FF0000000000001ull}) {
    values.push_back(from_bits(u));
  }
  for (int k = 1; k <= 1000; ++k) {
    const double x = static_cast<double>(k) * 1.5707963267948966;
    std::uint64_t u;
    std::memcpy(&u, &x, sizeof u);
    values.push_back(x);
    values.push_back(from_bits(u - 1));
    values.push_back(from_bits(u + 1));
  }
  return values;
}

// The float64 trigonometric family (exact-transcendentals.md section 16, issue 17): outputs of
// element type double (ONNX code 11).
GoldenGraph trig64_functions(const std::vector<double>& values) {
  GraphBuilder g;
  const Shape shape{static_cast<std::int64_t>(values.size())};
  const std::string x = g.input("x", Tensor::from_values<double>(DType::F64, shape, std::span<const double>(values)));
  for (const char* op : {"Sin", "Cos", "Tan", "Asin", "Acos", "Atan"}) g.output(g.node(op, {x}, {}, op), 11);
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
  // Every (2^46 + 29)-th binary64 pattern, about 262 thousand, and the specials.
  cases.push_back({"trig64_bits", true, [] { return trig64_functions(bit_sweep64((1ull << 46) + 29)); }});
  cases.push_back({"hyperbolic64_bits", true, [] { return hyperbolic64_functions(hyperbolic64_values()); }});
}

}  // namespace onemodel::golden
