// Models stored in half precision (spec/half-precision.md section 8, fp16.md): every conversion is
// exact or the one specified rounding, so a float16 or bfloat16 model is an exact-mode model and
// its hashes must be the same on every path, thread count and platform. Two layouts: the source's
// (binary32 graph inputs and outputs, a Cast at each end, 16-bit weights and activations) and
// 16-bit graph inputs holding the special values.
#include <string>

#include "onemodel/half.hpp"
#include "tools/golden/golden_case.hpp"
#include "tools/golden/prng.hpp"

namespace onemodel::golden {
namespace {

std::int32_t onnx_code(DType type) { return static_cast<std::int32_t>(type); }

// `values` rounded to `type` (F16 or BF16) by the tensors.md section 10 rules.
Tensor half_tensor(const Shape& shape, const std::vector<float>& values, DType type) {
  Tensor t = Tensor::empty(type, shape);
  auto out = t.mutable_data<std::uint16_t>();
  for (std::size_t i = 0; i < values.size(); ++i) {
    out[i] = type == DType::BF16 ? float_to_bfloat16_bits(values[i]) : float_to_half_bits(values[i]);
  }
  return t;
}

Tensor random_half(Prng& prng, const Shape& shape, float scale, DType type) {
  return half_tensor(shape, symmetric_values(prng, shape.element_count(), scale), type);
}

// Conv, Relu, a 1x1 Conv with a residual Add, then the feature map as a sequence through
// LayerNormalization, single-head attention (MatMul, Transpose, Mul, Softmax, MatMul), Erf, Gelu
// and a residual; ReduceMean and GlobalAveragePool as well.
GoldenGraph half_network(const std::string& name, DType type) {
  Prng prng = prng_for(name.c_str());
  GraphBuilder g;
  const std::string x = g.input("x", float_tensor(Shape{2, 4, 6, 6}, symmetric_values(prng, 2 * 4 * 36, 2.0f)));
  const std::string h = g.node("Cast", {x}, {attr_int("to", onnx_code(type))}, "x16");
  const std::string w1 = g.constant("w1", random_half(prng, Shape{8, 4, 3, 3}, 0.3f, type));
  const std::string b1 = g.constant("b1", random_half(prng, Shape{8}, 0.1f, type));
  const std::string c1 = g.node("Conv", {h, w1, b1}, {attr_ints("pads", {1, 1, 1, 1})}, "conv3x3");
  const std::string r1 = g.node("Relu", {c1}, {}, "relu");
  const std::string w2 = g.constant("w2", random_half(prng, Shape{8, 8, 1, 1}, 0.4f, type));
  const std::string c2 = g.node("Conv", {r1, w2}, {}, "conv1x1");
  const std::string res = g.node("Add", {c2, c1}, {}, "residual");
  const std::string shape = g.constant("seq_shape", int64_tensor(Shape{3}, {2, 8, 36}));
  const std::string seq = g.node("Transpose", {g.node("Reshape", {res, shape}, {}, "flat")},
                                 {attr_ints("perm", {0, 2, 1})}, "seq");
  const std::string ln_s = g.constant("ln_scale", random_half(prng, Shape{8}, 1.0f, type));
  const std::string ln_b = g.constant("ln_bias", random_half(prng, Shape{8}, 0.2f, type));
  const std::string ln = g.node("LayerNormalization", {seq, ln_s, ln_b}, {attr_int("axis", -1)}, "ln");
  const std::string wq = g.constant("wq", random_half(prng, Shape{8, 8}, 0.5f, type));
  const std::string wk = g.constant("wk", random_half(prng, Shape{8, 8}, 0.5f, type));
  const std::string q = g.node("MatMul", {ln, wq}, {}, "q");
  const std::string kt = g.node("Transpose", {g.node("MatMul", {ln, wk}, {}, "k")}, {attr_ints("perm", {0, 2, 1})}, "kt");
  const std::string scale = g.constant("scale", half_tensor(Shape{}, {0.35355339f}, type));
  const std::string scores = g.node("Mul", {g.node("MatMul", {q, kt}, {}, "qk"), scale}, {}, "scores");
  const std::string p = g.node("Softmax", {scores}, {attr_int("axis", -1)}, "probs");
  const std::string a = g.node("MatMul", {p, ln}, {}, "attended");
  const std::string e = g.node("Erf", {a}, {}, "erf");
  const std::string gelu = g.node("Gelu", {a}, {}, "gelu");
  const std::string sum = g.node("Add", {g.node("Add", {e, gelu}, {}, "erf_gelu"), ln}, {}, "block");
  const std::string axes = g.constant("axes", int64_tensor(Shape{1}, {1}));
  g.output(g.node("Cast", {sum}, {attr_int("to", 1)}, "y"));
  g.output(g.node("Cast", {g.node("ReduceMean", {sum, axes}, {}, "pooled")}, {attr_int("to", 1)}, "pooled32"));
  g.output(g.node("GlobalAveragePool", {res}, {}, "gap"), onnx_code(type));
  g.output(p, onnx_code(type));
  return g.finish();
}

// 16-bit graph inputs with the special values (rounded to the type: NaNs stay NaN, overflow
// becomes infinity) through arithmetic the adapter wraps and the binary16 element-wise kernels.
GoldenGraph half_specials(const std::string& name, DType type) {
  Prng prng = prng_for(name.c_str());
  GraphBuilder g;
  const std::vector<float> sv = special_values();
  const std::int64_t n = static_cast<std::int64_t>(sv.size());
  std::vector<float> rows;
  for (float v : sv) {
    for (int j = 0; j < 5; ++j) rows.push_back(j == 2 ? v : static_cast<float>(j) * 0.75f - 1.0f);
  }
  const std::string x = g.input("x", half_tensor(Shape{n, 5}, rows, type));
  const std::string y = g.input("y", random_half(prng, Shape{n, 5}, 3.0f, type));
  const std::int32_t code = onnx_code(type);
  for (const char* op : {"Add", "Sub", "Mul", "Div", "Max", "Min", "Pow"}) {
    g.output(g.node(op, {x, y}, {}, std::string("binary_") + op), code);
  }
  for (const char* op : {"Relu", "Sqrt", "Exp", "Log", "Tanh", "Sigmoid", "Abs", "Neg", "Reciprocal"}) {
    g.output(g.node(op, {x}, {}, std::string("unary_") + op), code);
  }
  g.output(g.node("Softmax", {x}, {attr_int("axis", -1)}, "softmax"), code);
  const std::string s = g.constant("ln_scale", half_tensor(Shape{5}, {1.0f, 0.5f, 2.0f, -1.0f, 0.75f}, type));
  g.output(g.node("LayerNormalization", {x, s}, {attr_int("axis", -1)}, "ln"), code);
  g.output(g.node("ArgMax", {x}, {attr_int("axis", 1)}, "argmax"), 7);
  return g.finish();
}

}  // namespace

void add_half_cases(CaseList& cases) {
  cases.push_back({"half/network_f16", true, [] { return half_network("half/network_f16", DType::F16); }});
  cases.push_back({"half/network_bf16", true, [] { return half_network("half/network_bf16", DType::BF16); }});
  cases.push_back({"half/specials_f16", true, [] { return half_specials("half/specials_f16", DType::F16); }});
  cases.push_back({"half/specials_bf16", true, [] { return half_specials("half/specials_bf16", DType::BF16); }});
}

}  // namespace onemodel::golden
