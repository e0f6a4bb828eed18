// FlexAttention (domain ai.onnx.preview, version 1): spec/ops/attention.md section 9. Scaled
// dot-product attention over rank-4 Q, K, V with grouped heads and two optional modifier
// subgraphs, score_mod (on the scores before the softmax) and prob_mod (on the probabilities
// after it), compiled once with the node (reference/ops/body_helpers.hpp, as If, Loop and Scan
// do). Exact in float32 (and float16, computed in float32) in the stated order of section 9: the
// scores as the ONNX reference forms them, then, without prob_mod, Y by the online softmax that
// Attention uses (attention_online_softmax.hpp); with prob_mod, the whole-row softmax, the
// modifier, and P V in increasing key order. float64 uses the exact binary64 exp: exact too.
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <type_traits>
#include <vector>

#include "core/graph/op_kernel.hpp"
#include "reference/math/exact_math.hpp"
#include "reference/math/exact_math64.hpp"
#include "reference/ops/attention_online_softmax.hpp"
#include "reference/ops/body_helpers.hpp"
#include "reference/ops/canonical_sum.hpp"
#include "reference/ops/elementwise_dispatch.hpp"
#include "reference/ops/f16_widening.hpp"

namespace onemodel {
namespace {

using body_ops::CompiledBody;

// ONNX TensorProto.DataType codes of softmax_precision served (section 9): the default ones.
constexpr std::int64_t kPrecisionFloat = 1;
constexpr std::int64_t kPrecisionDouble = 11;

// Section 9: Q (B, Hq, L, E), K (B, Hkv, S, E), V (B, Hkv, S, Ev).
struct FlexGeometry {
  std::int64_t batch = 0, q_heads = 0, kv_heads = 0, q_len = 0, kv_len = 0, head_size = 0, v_head_size = 0;
};

FlexGeometry flex_geometry(const NodeInfo& node, const Shape& q, const Shape& k, const Shape& v) {
  const auto fail = [&](const std::string& why) { node.fail_invalid("FlexAttention: " + why); };
  if (q.rank() != 4 || k.rank() != 4 || v.rank() != 4) fail("Q, K and V must be rank-4 tensors");
  FlexGeometry g;
  g.batch = q[0];
  g.q_heads = q[1];
  g.q_len = q[2];
  g.head_size = q[3];
  g.kv_heads = k[1];
  g.kv_len = k[2];
  g.v_head_size = v[3];
  if (k[0] != g.batch || v[0] != g.batch) fail("Q, K and V disagree on the batch size");
  if (v[1] != g.kv_heads) fail("K and V disagree on the number of heads");
  if (v[2] != g.kv_len) fail("K and V disagree on the sequence length");
  if (k[3] != g.head_size) fail("Q and K disagree on the head size");
  if (g.kv_heads <= 0 || g.q_heads % g.kv_heads != 0) fail("the number of query heads must be a multiple of the key/value heads");
  return g;
}

// The scores tensor (B, Hq, L, S) is materialised for the modifiers: its element count must be a
// size the library allocates (spec/tensors.md section 3), checked before any product.
bool scores_fit(const FlexGeometry& g) {
  const std::int64_t dims[4] = {g.batch, g.q_heads, g.q_len, g.kv_len};
  for (std::int64_t d : dims) {
    if (d == 0) return true;
  }
  std::int64_t n = 1;
  for (std::int64_t d : dims) {
    if (n > kMaxElements / d) return false;
    n *= d;
  }
  return true;
}

// The values of Q, K or V in the compute type C: float64 as they are, float16 widened exactly to
// float32 (f16_widening.hpp).
template <class T>
std::vector<T> widen(const Tensor& tensor) {
  if constexpr (std::is_same_v<T, double>) {
    const Tensor t = tensor.contiguous();
    const std::span<const double> values = t.data<double>();
    return std::vector<double>(values.begin(), values.end());
  } else {
    return widen_f16_to_f32(tensor);
  }
}

// The exponential of the softmax: the library's exact one in float32 (exact-transcendentals.md
// ExpNonPositive) and in float64 (section 15, exp_f64).
template <class T>
T softmax_exp(T x) noexcept {
  if constexpr (std::is_same_v<T, double>) return exact::exp_f64(x);
  else return exact::exp_non_positive(x);
}

// Section 9 (with prob_mod): the whole-row softmax of kernels-attention.md "Softmax", p = e / l,
// with no guard: a row of -inf scores gives l = 0 and NaN probabilities, as the ONNX reference.
template <class T>
void softmax_row(const T* s, T* p, std::int64_t n) {
  T m = -std::numeric_limits<T>::infinity();
  for (std::int64_t j = 0; j < n; ++j) m = s[j] > m ? s[j] : m;  // NaN ignored
  const T shift = m == -std::numeric_limits<T>::infinity() ? T(0) : m;
  CanonicalSum16<T> sum;
  for (std::int64_t j = 0; j < n; ++j) {
    p[j] = softmax_exp<T>(s[j] - shift);
    sum.add(p[j]);
  }
  const T l = sum.result();
  for (std::int64_t j = 0; j < n; ++j) p[j] = p[j] / l;
}

class FlexAttention final : public OpKernel {
 public:
  explicit FlexAttention(const NodeInfo& node)
      : has_scale_(node.has("scale")),
        scale_(node.get_float("scale", 0.0f)),
        has_precision_(node.has("softmax_precision")),
        precision_(node.get_int("softmax_precision", 0)) {
    if (has_scale_ && !(scale_ >= 0.0f && std::isfinite(scale_))) {
      node.fail_invalid("FlexAttention: scale must be finite and not negative (its square root multiplies Q and K)");
    }
    if (node.has("score_mod")) score_mod_.emplace(modifier(node, "score_mod"));
    if (node.has("prob_mod")) prob_mod_.emplace(modifier(node, "prob_mod"));
    // Section 9: float64 runs the exact binary64 exp (exact-transcendentals.md section 15).
    float64_exact = true;
  }

  void infer(InferContext& context) const override {
    const NodeInfo& node = context.node();
    // The node's inputs end with the captures of its subgraphs (append_capture_inputs): the
    // declared ones must be exactly Q, K, V, so a capture is never read as one of them.
    if (declared_input_count(node.ir()) != 3) node.fail_invalid("FlexAttention: takes exactly three inputs, Q, K and V");
    for (std::size_t i = 0; i < 3; ++i) {
      if (!context.has_input(i)) node.fail_invalid("FlexAttention: Q, K and V are required");
      context.require_type(i, {DType::F32, DType::F16, DType::F64});
    }
    const DType t = context.input_type(0);
    if (context.input_type(1) != t || context.input_type(2) != t) {
      node.fail_invalid("FlexAttention: Q, K and V must have one element type");
    }
    if (has_precision_) {
      // Section 9: the compute type is float32 for float32 and float16 inputs, float64 for
      // float64; an explicit softmax_precision naming another type is not served.
      const std::int64_t default_precision = t == DType::F64 ? kPrecisionDouble : kPrecisionFloat;
      if (precision_ != default_precision) {
        node.fail_unsupported("FlexAttention: softmax_precision " + std::to_string(precision_) +
                              " is not served; only the default (" + std::to_string(default_precision) + ") is");
      }
    }
    const FlexGeometry g = flex_geometry(node, context.input_shape(0), context.input_shape(1), context.input_shape(2));
    if (!scores_fit(g)) node.fail_unsupported("FlexAttention: the scores (B, Hq, L, S) exceed 2^31 - 1 elements");
    context.set_output(0, t, Shape{g.batch, g.q_heads, g.q_len, g.v_head_size});
  }

  void run(RunContext& context) const override {
    if (context.input(0).dtype() == DType::F64) run_typed<double>(context);
    else run_typed<float>(context);
  }

 private:
  static CompiledBody modifier(const NodeInfo& node, const char* name) {
    CompiledBody body = body_ops::compile_body(node, name);
    if (body.body->formal_input_count() != 1 || body.body->output_count() != 1) {
      node.fail_invalid(std::string("FlexAttention: ") + name + " must have one input and one output");
    }
    return body;
  }

  // Runs a modifier on `values` (B, Hq, L, S) of the compute type; its result must keep both.
  static Tensor modify(RunContext& context, const CompiledBody& body, Tensor values, const char* name) {
    const Shape shape = values.shape();
    const DType type = values.dtype();
    std::vector<Tensor> results(1);
    body.body->run(context, body_ops::body_inputs(context, body, {std::move(values)}), results);
    const Tensor& out = results[0];
    if (!out.defined() || out.dtype() != type || !(out.shape() == shape)) {
      context.node().fail_invalid(std::string("FlexAttention: ") + name + " must return a tensor of its input's type and shape " +
                                  shape.to_string());
    }
    return out.contiguous();
  }

  template <class T>
  void run_typed(RunContext& context) const {
    const NodeInfo& node = context.node();
    const FlexGeometry g = flex_geometry(node, context.input(0).shape(), context.input(1).shape(), context.input(2).shape());
    const DType compute = std::is_same_v<T, double> ? DType::F64 : DType::F32;
    const std::vector<T> q = widen<T>(context.input(0));
    const std::vector<T> k = widen<T>(context.input(1));
    const std::vector<T> v = widen<T>(context.input(2));
    const std::int64_t B = g.batch, Hq = g.q_heads, L = g.q_len, S = g.kv_len, E = g.head_size, Ev = g.v_head_size;
    const std::int64_t group = Hq / g.kv_heads;
    const auto at = [](std::int64_t n) { return static_cast<std::size_t>(n); };

    // Section 9 step 1: r = sqrt(float32(scale)) in float32 (widened exactly to C); the default
    // scale is 1/sqrt(E) in float64. Q and K are each multiplied by r, each product rounded.
    const float scale32 = has_scale_ ? scale_ : static_cast<float>(1.0 / std::sqrt(static_cast<double>(E)));
    const T root = static_cast<T>(std::sqrt(scale32));
    std::vector<T> qs(q.size()), ks(k.size());
    for (std::size_t n = 0; n < q.size(); ++n) qs[n] = q[n] * root;
    for (std::size_t n = 0; n < k.size(); ++n) ks[n] = k[n] * root;

    // Step 2: scores[b][h][i][j] = q'[i] . k'[j], one accumulator from +0, increasing index.
    Tensor scores = Tensor::empty(compute, Shape{B, Hq, L, S});
    {
      T* sc = scores.mutable_data<T>().data();
      for (std::int64_t b = 0; b < B; ++b) {
        for (std::int64_t h = 0; h < Hq; ++h) {
          const T* kh = ks.data() + (b * g.kv_heads + h / group) * S * E;
          for (std::int64_t i = 0; i < L; ++i) {
            const T* qi = qs.data() + ((b * Hq + h) * L + i) * E;
            for (std::int64_t j = 0; j < S; ++j) {
              const T* kj = kh + j * E;
              T acc = T(0);
              for (std::int64_t x = 0; x < E; ++x) {
                const T product = qi[x] * kj[x];
                acc = acc + product;
              }
              sc[((b * Hq + h) * L + i) * S + j] = acc;
            }
          }
        }
      }
    }
    // Step 3: score_mod.
    if (score_mod_) scores = modify(context, *score_mod_, std::move(scores), "score_mod");
    const T* s = scores.data<T>().data();

    std::vector<T> y(at(B * Hq * L * Ev));
    if (!prob_mod_) {
      // Step 4 without prob_mod: the online softmax of section 5, rows of -inf giving NaN.
      for (std::int64_t b = 0; b < B; ++b) {
        for (std::int64_t h = 0; h < Hq; ++h) {
          const T* vh = v.data() + (b * g.kv_heads + h / group) * S * Ev;
          for (std::int64_t i = 0; i < L; ++i) {
            const std::int64_t row = (b * Hq + h) * L + i;
            attention_order::online_softmax_row<T>(
                s + row * S, S, [&](std::int64_t j) { return vh + j * Ev; }, Ev, y.data() + row * Ev,
                /*empty_row_divides_by_one=*/false, [](T x) { return softmax_exp<T>(x); });
          }
        }
      }
    } else {
      // Step 4 with prob_mod: whole-row softmax, the modifier, then P V.
      Tensor probs = Tensor::empty(compute, Shape{B, Hq, L, S});
      {
        T* p = probs.mutable_data<T>().data();
        for (std::int64_t row = 0; row < B * Hq * L; ++row) softmax_row<T>(s + row * S, p + row * S, S);
      }
      probs = modify(context, *prob_mod_, std::move(probs), "prob_mod");
      const T* p = probs.data<T>().data();
      for (std::int64_t b = 0; b < B; ++b) {
        for (std::int64_t h = 0; h < Hq; ++h) {
          const T* vh = v.data() + (b * g.kv_heads + h / group) * S * Ev;
          for (std::int64_t i = 0; i < L; ++i) {
            const std::int64_t row = (b * Hq + h) * L + i;
            for (std::int64_t x = 0; x < Ev; ++x) {
              T acc = T(0);
              for (std::int64_t j = 0; j < S; ++j) {
                const T product = p[row * S + j] * vh[j * Ev + x];
                acc = acc + product;
              }
              y[at(row * Ev + x)] = acc;
            }
          }
        }
      }
    }
    // Step 5: Y in Q's type, every NaN canonical.
    const Tensor& out = context.output(0);
    if constexpr (std::is_same_v<T, double>) {
      const std::span<double> o = out.mutable_data<double>();
      for (std::size_t n = 0; n < y.size(); ++n) o[n] = ew::store_f64(y[n]);
    } else {
      store_f32_as_output(out, y);
    }
  }

  bool has_scale_;
  float scale_;
  bool has_precision_;
  std::int64_t precision_;
  std::optional<CompiledBody> score_mod_;
  std::optional<CompiledBody> prob_mod_;
};

}  // namespace

std::unique_ptr<OpKernel> make_flex_attention(const NodeInfo& node) { return std::make_unique<FlexAttention>(node); }

}  // namespace onemodel
