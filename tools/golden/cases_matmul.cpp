// Matrix products (exact-mode.md, "Matrix product"): every size 0..70 in each dimension (the
// sizes the source documents check every path on), batched and 1-D forms, Gemm's transposes,
// scaling and bias, a chain of products, IEEE special values, and a few large products that
// cross the kernels' cache blocks.
#include <string>

#include "tools/golden/golden_case.hpp"
#include "tools/golden/prng.hpp"

namespace onemodel::golden {
namespace {

constexpr std::int64_t kMaxSweep = 70;

Tensor random_matrix(Prng& prng, std::int64_t rows, std::int64_t cols) {
  return float_tensor(Shape{rows, cols}, symmetric_values(prng, rows * cols));
}

Tensor random_tensor(Prng& prng, const Shape& shape) {
  return float_tensor(shape, symmetric_values(prng, shape.element_count()));
}

// One MatMul node per swept size; `b_constant` makes B an initializer (the prepared-weights path).
GoldenGraph matmul_sweep(const char* name, int which, bool b_constant) {
  Prng prng = prng_for(name);
  GraphBuilder g;
  for (std::int64_t s = 0; s <= kMaxSweep; ++s) {
    std::int64_t m = s, k = s, n = s;
    if (which == 1) k = 37, n = 29;
    if (which == 2) m = 13, n = 21;
    if (which == 3) m = 11, k = 43;
    const std::string tag = std::to_string(m) + "x" + std::to_string(k) + "x" + std::to_string(n);
    const std::string a = g.input("a_" + tag, random_matrix(prng, m, k));
    const std::string b = b_constant ? g.constant("b_" + tag, random_matrix(prng, k, n))
                                     : g.input("b_" + tag, random_matrix(prng, k, n));
    g.output(g.node("MatMul", {a, b}, {}, "mm_" + tag));
  }
  return g.finish();
}

GoldenGraph matmul_batched() {
  Prng prng = prng_for("matmul_batched");
  GraphBuilder g;
  const std::string a = g.input("a", random_tensor(prng, Shape{3, 1, 17, 29}));
  const std::string b = g.input("b", random_tensor(prng, Shape{4, 29, 23}));
  g.output(g.node("MatMul", {a, b}, {}, "broadcast_batch"));
  const std::string c = g.constant("c", random_tensor(prng, Shape{29, 23}));
  g.output(g.node("MatMul", {a, c}, {}, "batch_times_matrix"));
  const std::string v = g.input("v", random_tensor(prng, Shape{29}));
  g.output(g.node("MatMul", {v, b}, {}, "vector_times_batch"));
  const std::string m = g.input("m", random_tensor(prng, Shape{17, 29}));
  g.output(g.node("MatMul", {m, v}, {}, "matrix_times_vector"));
  g.output(g.node("MatMul", {v, v}, {}, "dot"));
  return g.finish();
}

// Gemm over sizes 0..70 with B transposed, alpha, beta and a row bias.
GoldenGraph gemm_sweep() {
  Prng prng = prng_for("gemm_sweep");
  GraphBuilder g;
  for (std::int64_t s = 0; s <= kMaxSweep; ++s) {
    const std::string tag = std::to_string(s);
    const std::string a = g.input("a_" + tag, random_matrix(prng, s, s + 3));
    const std::string b = g.constant("b_" + tag, random_matrix(prng, s + 1, s + 3));
    const std::string c = g.constant("c_" + tag, float_tensor(Shape{s + 1}, symmetric_values(prng, s + 1)));
    g.output(g.node("Gemm", {a, b, c}, {attr_int("transB", 1), attr_float("alpha", 0.5f), attr_float("beta", 2.0f)},
                    "gemm_" + tag));
  }
  return g.finish();
}

// Every transpose combination with every bias shape Gemm broadcasts.
GoldenGraph gemm_variants() {
  Prng prng = prng_for("gemm_variants");
  GraphBuilder g;
  const std::int64_t m = 19, k = 37, n = 45;
  const Shape bias_shapes[] = {Shape{1}, Shape{n}, Shape{m, 1}, Shape{m, n}};
  for (int ta = 0; ta <= 1; ++ta) {
    for (int tb = 0; tb <= 1; ++tb) {
      const std::string tag = "ta" + std::to_string(ta) + "_tb" + std::to_string(tb);
      const std::string a = g.input("a_" + tag, ta ? random_matrix(prng, k, m) : random_matrix(prng, m, k));
      const std::string b = g.input("b_" + tag, tb ? random_matrix(prng, n, k) : random_matrix(prng, k, n));
      g.output(g.node("Gemm", {a, b}, {attr_int("transA", ta), attr_int("transB", tb)}, "gemm_" + tag));
      int bias_index = 0;
      for (const Shape& bias_shape : bias_shapes) {
        const std::string btag = tag + "_bias" + std::to_string(bias_index++);
        const std::string c = g.input("c_" + btag, random_tensor(prng, bias_shape));
        g.output(g.node("Gemm", {a, b, c},
                        {attr_int("transA", ta), attr_int("transB", tb), attr_float("alpha", 0.75f),
                         attr_float("beta", 0.25f)},
                        "gemm_" + btag));
      }
    }
  }
  return g.finish();
}

// Products feeding products: X W1 -> Relu -> Gemm(W2^T, bias) -> times an input -> plus X2.
GoldenGraph matmul_chain() {
  Prng prng = prng_for("matmul_chain");
  GraphBuilder g;
  const std::string x = g.input("x", random_matrix(prng, 64, 70));
  const std::string w1 = g.constant("w1", random_matrix(prng, 70, 48));
  const std::string w2 = g.constant("w2", random_matrix(prng, 33, 48));
  const std::string b2 = g.constant("b2", float_tensor(Shape{33}, symmetric_values(prng, 33)));
  const std::string w3 = g.input("w3", random_matrix(prng, 33, 65));
  const std::string x2 = g.input("x2", random_matrix(prng, 64, 65));
  const std::string h1 = g.node("MatMul", {x, w1}, {}, "h1");
  const std::string r1 = g.node("Relu", {h1}, {}, "r1");
  const std::string h2 = g.node("Gemm", {r1, w2, b2}, {attr_int("transB", 1)}, "h2");
  const std::string h3 = g.node("MatMul", {h2, w3}, {}, "h3");
  const std::string y = g.node("Add", {h3, x2}, {}, "y");
  g.output(h1);
  g.output(h2);
  g.output(y);
  return g.finish();
}

// NaN, infinities, signed zeros and subnormals in both operands (exact-mode.md rules 3 and 4).
GoldenGraph matmul_specials() {
  Prng prng = prng_for("matmul_specials");
  const std::vector<float> specials = special_values();
  GraphBuilder g;
  for (std::int64_t k : {1, 7, 33}) {
    std::vector<float> a = symmetric_values(prng, 9 * k);
    std::vector<float> b = symmetric_values(prng, k * 17);
    for (float& v : a) {
      if (prng.below(5) == 0) v = specials[prng.below(static_cast<std::uint32_t>(specials.size()))];
    }
    for (float& v : b) {
      if (prng.below(7) == 0) v = specials[prng.below(static_cast<std::uint32_t>(specials.size()))];
    }
    const std::string tag = std::to_string(k);
    const std::string an = g.input("a_" + tag, float_tensor(Shape{9, k}, a));
    const std::string bn = g.input("b_" + tag, float_tensor(Shape{k, 17}, b));
    g.output(g.node("MatMul", {an, bn}, {}, "mm_k" + tag));
    // Only signed zeros: an exact sum starts from +0, so the result is +0 (exact-mode.md rule 3).
    std::vector<float> za(static_cast<std::size_t>(9 * k), -0.0f);
    const std::string zn = g.input("z_" + tag, float_tensor(Shape{9, k}, za));
    g.output(g.node("MatMul", {zn, bn}, {}, "neg_zero_k" + tag));
  }
  return g.finish();
}

GoldenGraph matmul_shapes(const char* name, std::vector<std::int64_t> a_shape, std::vector<std::int64_t> b_shape,
                          bool b_constant) {
  Prng prng = prng_for(name);
  GraphBuilder g;
  const Tensor a = random_tensor(prng, Shape(std::span<const std::int64_t>(a_shape)));
  const Tensor b = random_tensor(prng, Shape(std::span<const std::int64_t>(b_shape)));
  const std::string an = g.input("a", a);
  const std::string bn = b_constant ? g.constant("b", b) : g.input("b", b);
  g.output(g.node("MatMul", {an, bn}, {}, "y"));
  return g.finish();
}

GoldenGraph gemm_large() {
  Prng prng = prng_for("gemm_large");
  GraphBuilder g;
  const std::string a = g.input("a", random_matrix(prng, 256, 256));
  const std::string b = g.constant("b", random_matrix(prng, 256, 256));
  const std::string c = g.constant("c", float_tensor(Shape{256}, symmetric_values(prng, 256)));
  g.output(g.node("Gemm", {a, b, c}, {attr_int("transB", 1)}, "y"));
  return g.finish();
}

}  // namespace

void add_matmul_cases(CaseList& cases) {
  cases.push_back({"matmul_square_sweep", true, [] { return matmul_sweep("matmul_square_sweep", 0, false); }});
  cases.push_back({"matmul_m_sweep", true, [] { return matmul_sweep("matmul_m_sweep", 1, true); }});
  cases.push_back({"matmul_k_sweep", true, [] { return matmul_sweep("matmul_k_sweep", 2, false); }});
  cases.push_back({"matmul_n_sweep", true, [] { return matmul_sweep("matmul_n_sweep", 3, true); }});
  cases.push_back({"matmul_batched", true, matmul_batched});
  cases.push_back({"gemm_sweep", true, gemm_sweep});
  cases.push_back({"gemm_variants", true, gemm_variants});
  cases.push_back({"matmul_chain", true, matmul_chain});
  cases.push_back({"matmul_specials", true, matmul_specials});
  cases.push_back({"matmul_medium", true, [] { return matmul_shapes("matmul_medium", {130, 200}, {200, 150}, true); }});
  cases.push_back({"matmul_256", false, [] { return matmul_shapes("matmul_256", {256, 256}, {256, 256}, true); }});
  cases.push_back({"matmul_256_input_b", false,
                   [] { return matmul_shapes("matmul_256_input_b", {256, 256}, {256, 256}, false); }});
  cases.push_back({"matmul_gemv", false, [] { return matmul_shapes("matmul_gemv", {1, 256}, {256, 1024}, true); }});
  cases.push_back({"matmul_tall", false, [] { return matmul_shapes("matmul_tall", {300, 70}, {70, 5}, true); }});
  cases.push_back({"matmul_batched_large", false,
                   [] { return matmul_shapes("matmul_batched_large", {8, 64, 128}, {8, 128, 64}, false); }});
  cases.push_back({"gemm_large", false, gemm_large});
}

}  // namespace onemodel::golden
