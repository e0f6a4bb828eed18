// LinearAttention (opset 27): spec/ops/attention.md section 10, from the ONNX LinearAttention text
// and its function body (a Scan over the tokens). Per batch row and key/value head a recurrent
// state S (d_k x d_v) is updated token by token with one of four rules (linear, gated, delta,
// gated_delta) and read by the query heads that share it. Every product and sum is rounded on its
// own in the order the function body states, the decay's exponential is the library's exact exp:
// exact. float32 (float16 and bfloat16 through the adapter).
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "core/graph/op_kernel.hpp"
#include "reference/math/exact_math.hpp"
#include "reference/ops/exact_dot.hpp"

namespace onemodel {
namespace {

enum : std::size_t { kQuery = 0, kKey, kValue, kPastState, kDecay, kBeta };

struct UpdateRule {
  bool gated = false;  // S is first multiplied by exp(decay)
  bool delta = false;  // the write is beta * (v - S^T k) instead of v
};

UpdateRule read_rule(const NodeInfo& node) {
  const std::string name = node.get_string("update_rule", "gated_delta");
  if (name == "linear") return {false, false};
  if (name == "gated") return {true, false};
  if (name == "delta") return {false, true};
  if (name == "gated_delta") return {true, true};
  node.fail_invalid("LinearAttention: update_rule '" + name + "' is not one of linear, gated, delta, gated_delta");
}

struct LinearGeometry {
  std::int64_t batch = 0, tokens = 0, q_heads = 0, kv_heads = 0, dk = 0, dv = 0;
  bool decay_per_key = false;  // decay (B, T, Hkv * dk); else (B, T, Hkv): one per head
  bool beta_per_head = false;  // beta (B, T, Hkv); else (B, T, 1): one for every head
};

[[noreturn]] void fail_shape(const NodeInfo& node, const std::string& message) {
  node.fail_invalid("LinearAttention: " + message);
}

// Section 9: query (B, T, Hq*dk), key (B, T, Hkv*dk), value (B, T, Hkv*dv), past_state
// (B, Hkv, dk, dv), decay (B, T, Hkv*dk) or (B, T, Hkv), beta (B, T, Hkv) or (B, T, 1). The decay
// is read by the gated rules only and beta by the delta rules only; an input a rule does not read
// is not checked.
LinearGeometry linear_geometry(const NodeInfo& node, std::int64_t q_heads, std::int64_t kv_heads, UpdateRule rule,
                               const Shape& q, const Shape& k, const Shape& v, const Shape* past, const Shape* decay,
                               const Shape* beta) {
  if (q.rank() != 3 || k.rank() != 3 || v.rank() != 3) fail_shape(node, "query, key and value must be 3-D");
  LinearGeometry g;
  g.batch = q[0];
  g.tokens = q[1];
  g.q_heads = q_heads;
  g.kv_heads = kv_heads;
  if (k[0] != g.batch || v[0] != g.batch || k[1] != g.tokens || v[1] != g.tokens) {
    fail_shape(node, "query, key and value differ in batch or sequence length");
  }
  if (q[2] % q_heads != 0) fail_shape(node, "query's last extent is not a multiple of q_num_heads");
  g.dk = q[2] / q_heads;
  if (k[2] != kv_heads * g.dk) fail_shape(node, "key's last extent is not kv_num_heads * d_k");
  if (v[2] % kv_heads != 0) fail_shape(node, "value's last extent is not a multiple of kv_num_heads");
  g.dv = v[2] / kv_heads;
  // The state (B, Hkv, dk, dv) is allocated whether or not present_state is wanted: its size is
  // checked here, factor by factor, so no product overflows.
  std::int64_t state_elements = g.dk * g.dv;  // both below 2^31
  for (std::int64_t factor : {kv_heads, g.batch}) {
    if (state_elements > kMaxElements) break;
    state_elements *= factor;
  }
  if (state_elements > kMaxElements) node.fail_unsupported("LinearAttention: the state has more than 2^31 - 1 elements");
  if (past != nullptr && (past->rank() != 4 || (*past)[0] != g.batch || (*past)[1] != kv_heads ||
                          (*past)[2] != g.dk || (*past)[3] != g.dv)) {
    fail_shape(node, "past_state must be (batch, kv_num_heads, d_k, d_v)");
  }
  if (rule.gated) {
    if (decay == nullptr) fail_shape(node, "the gated rules need the decay input");
    const Shape& d = *decay;
    if (d.rank() != 3 || d[0] != g.batch || d[1] != g.tokens || (d[2] != kv_heads * g.dk && d[2] != kv_heads)) {
      fail_shape(node, "decay must be (batch, sequence, kv_num_heads * d_k) or (batch, sequence, kv_num_heads)");
    }
    g.decay_per_key = d[2] == kv_heads * g.dk;
  }
  if (rule.delta) {
    if (beta == nullptr) fail_shape(node, "the delta rules need the beta input");
    const Shape& b = *beta;
    if (b.rank() != 3 || b[0] != g.batch || b[1] != g.tokens || (b[2] != kv_heads && b[2] != 1)) {
      fail_shape(node, "beta must be (batch, sequence, kv_num_heads) or (batch, sequence, 1)");
    }
    g.beta_per_head = b[2] == kv_heads;
  }
  return g;
}

class LinearAttention final : public OpKernel {
 public:
  LinearAttention(std::int64_t q_heads, std::int64_t kv_heads, float scale, UpdateRule rule)
      : q_heads_(q_heads), kv_heads_(kv_heads), scale_(scale), rule_(rule) {}

  void infer(InferContext& context) const override {
    for (std::size_t i : {kQuery, kKey, kValue, kPastState, kDecay, kBeta}) {
      if (context.has_input(i)) context.require_type(i, {DType::F32});
    }
    const LinearGeometry g = geometry(context, [&](std::size_t i) { return &context.input_shape(i); });
    context.set_output(0, DType::F32, Shape{g.batch, g.tokens, g.q_heads * g.dv});
    if (context.output_wanted(1)) context.set_output(1, DType::F32, Shape{g.batch, g.kv_heads, g.dk, g.dv});
  }

  void run(RunContext& context) const override {
    std::vector<Tensor> in(kBeta + 1);
    for (std::size_t i = 0; i < in.size(); ++i) {
      if (context.has_input(i)) in[i] = context.input(i).contiguous();
    }
    const LinearGeometry g = geometry(context, [&](std::size_t i) { return &in[i].shape(); });
    const float* q = in[kQuery].data<float>().data();
    const float* k = in[kKey].data<float>().data();
    const float* v = in[kValue].data<float>().data();
    const float* past = in[kPastState].defined() ? in[kPastState].data<float>().data() : nullptr;
    const float* decay = rule_.gated ? in[kDecay].data<float>().data() : nullptr;
    const float* beta = rule_.delta ? in[kBeta].data<float>().data() : nullptr;
    float* out = context.output(0).mutable_data<float>().data();

    // Section 9: scale 0 means 1 / sqrt(d_k), the square root rounded, then the quotient rounded
    // (the function body's Sqrt then Reciprocal).
    const float scale = scale_ != 0.0f ? scale_ : 1.0f / std::sqrt(static_cast<float>(g.dk));
    const std::int64_t group = g.q_heads / g.kv_heads;
    const std::int64_t dk = g.dk, dv = g.dv;
    const std::int64_t state_size = dk * dv;
    // One state per (batch, kv head); its size is present_state's, which infer() shaped.
    std::vector<float> state(static_cast<std::size_t>(g.batch * g.kv_heads * state_size), 0.0f);
    if (past != nullptr) {
      for (std::size_t i = 0; i < state.size(); ++i) state[i] = past[i];
    }
    // Sized only when some token exists: then dk and dv are bounded by the key and value tensors'
    // element counts (an empty query may declare any head size).
    std::vector<float> decay_factor, write;
    if (g.batch > 0 && g.tokens > 0) {
      decay_factor.resize(static_cast<std::size_t>(dk));
      write.resize(static_cast<std::size_t>(dv));
    }
    for (std::int64_t b = 0; b < g.batch; ++b) {
      for (std::int64_t t = 0; t < g.tokens; ++t) {
        const std::int64_t token = b * g.tokens + t;
        for (std::int64_t h = 0; h < g.kv_heads; ++h) {
          float* s = state.data() + (b * g.kv_heads + h) * state_size;
          const float* key = k + (token * g.kv_heads + h) * dk;
          const float* value = v + (token * g.kv_heads + h) * dv;
          // Gated rules: S[i][j] = S[i][j] * exp(g_i), g per key dimension or one per head.
          if (rule_.gated) {
            for (std::int64_t i = 0; i < dk; ++i) {
              const float gate = g.decay_per_key ? decay[(token * g.kv_heads + h) * dk + i] : decay[token * g.kv_heads + h];
              decay_factor[static_cast<std::size_t>(i)] = exact::exp(gate);
            }
            for (std::int64_t i = 0; i < dk; ++i) {
              for (std::int64_t j = 0; j < dv; ++j) s[i * dv + j] = s[i * dv + j] * decay_factor[static_cast<std::size_t>(i)];
            }
          }
          // Delta rules: the write is beta * (v_j - r_j), r_j = sum over i of S[i][j] * k_i from +0
          // in increasing i (the decayed S); otherwise the write is v.
          if (rule_.delta) {
            const float rate = g.beta_per_head ? beta[token * g.kv_heads + h] : beta[token];
            for (std::int64_t j = 0; j < dv; ++j) {
              float r = products::accumulator_start<float>();
              for (std::int64_t i = 0; i < dk; ++i) r = products::product_step(r, s[i * dv + j], key[i]);
              const float diff = value[j] - r;
              write[static_cast<std::size_t>(j)] = rate * diff;
            }
          } else {
            for (std::int64_t j = 0; j < dv; ++j) write[static_cast<std::size_t>(j)] = value[j];
          }
          // S[i][j] = S[i][j] + (+0 + k_i * w_j): the outer product is the function body's matrix
          // product with one term, whose sum starts at +0 (a -0 product becomes +0).
          for (std::int64_t i = 0; i < dk; ++i) {
            for (std::int64_t j = 0; j < dv; ++j) {
              const float outer =
                  products::product_step(products::accumulator_start<float>(), key[i], write[static_cast<std::size_t>(j)]);
              s[i * dv + j] = s[i * dv + j] + outer;
            }
          }
        }
        // Read: query head hq uses kv head hq / (Hq / Hkv); o_j = scale * (sum over i of q_i * S[i][j]
        // from +0 in increasing i), the updated S.
        for (std::int64_t hq = 0; hq < g.q_heads; ++hq) {
          const float* s = state.data() + (b * g.kv_heads + hq / group) * state_size;
          const float* query = q + (token * g.q_heads + hq) * dk;
          float* o = out + (token * g.q_heads + hq) * dv;
          for (std::int64_t j = 0; j < dv; ++j) {
            float r = products::accumulator_start<float>();
            for (std::int64_t i = 0; i < dk; ++i) r = products::product_step(r, query[i], s[i * dv + j]);
            o[j] = canonical_nan_f32(scale * r);
          }
        }
      }
    }
    if (context.output_wanted(1)) {
      float* present = context.output(1).mutable_data<float>().data();
      for (std::size_t i = 0; i < state.size(); ++i) present[i] = canonical_nan_f32(state[i]);
    }
  }

 private:
  template <class Context, class ShapeOf>
  LinearGeometry geometry(const Context& context, ShapeOf shape_of) const {
    const auto optional = [&](std::size_t i) -> const Shape* { return context.has_input(i) ? shape_of(i) : nullptr; };
    return linear_geometry(context.node(), q_heads_, kv_heads_, rule_, *shape_of(kQuery), *shape_of(kKey),
                           *shape_of(kValue), optional(kPastState), optional(kDecay), optional(kBeta));
  }

  std::int64_t q_heads_;
  std::int64_t kv_heads_;
  float scale_;
  UpdateRule rule_;
};

}  // namespace

std::unique_ptr<OpKernel> make_linear_attention(const NodeInfo& node) {
  // Section 9: both head counts are required; q_num_heads is a positive multiple of kv_num_heads.
  const std::int64_t q_heads = node.required_int("q_num_heads");
  const std::int64_t kv_heads = node.required_int("kv_num_heads");
  if (q_heads < 1 || kv_heads < 1 || q_heads > kMaxElements || kv_heads > kMaxElements) {
    node.fail_invalid("LinearAttention: q_num_heads and kv_num_heads must be positive");
  }
  if (q_heads % kv_heads != 0) node.fail_invalid("LinearAttention: q_num_heads must be a multiple of kv_num_heads");
  // chunk_size is a tuning hint that does not change the result (the ONNX text): not read.
  return std::make_unique<LinearAttention>(q_heads, kv_heads, node.get_float("scale", 0.0f), read_rule(node));
}

}  // namespace onemodel
