// Attention (opsets 23, 24): spec/ops/attention.md sections 1-6. Scaled dot-product attention
// with grouped heads, a key/value cache, an additive or boolean mask, causal masking, softcap and
// the qk_matmul_output debug output; float16 runs widened to float32. Exact (section 1): every
// output is computed in one stated order (sections 3-6: one accumulator per dot product,
// increasing index, unfused; the library's own exp and tanh; Y by the online softmax of
// kernels-attention.md, attention_online_softmax.hpp), which the optimized fused kernel shares.
// Fast mode runs the same code. softmax_precision = DOUBLE needs a float64 exp the library does
// not have exactly: such a node is refused in exact mode.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "core/graph/op_kernel.hpp"
#include "reference/math/exact_math.hpp"
#include "reference/math/exact_math64.hpp"
#include "reference/ops/attention_online_softmax.hpp"
#include "reference/ops/canonical_sum.hpp"
#include "reference/ops/f16_widening.hpp"

namespace onemodel {
namespace {

constexpr float kNegInf = -std::numeric_limits<float>::infinity();

// ONNX TensorProto.DataType codes accepted by softmax_precision (spec/ops/attention.md section 4).
constexpr std::int64_t kPrecisionFloat = 1;
constexpr std::int64_t kPrecisionDouble = 11;

// Input and output positions (ONNX schema).
enum : std::size_t { kQ = 0, kK, kV, kMask, kPastKey, kPastValue, kNonpad };
enum : std::size_t { kY = 0, kPresentKey, kPresentValue, kQk };

struct Attributes {
  bool is_causal = false;
  std::int64_t q_num_heads = 0;  // 0: not given
  std::int64_t kv_num_heads = 0;
  bool has_scale = false;
  float scale = 0.0f;
  float softcap = 0.0f;
  std::int64_t softmax_precision = kPrecisionFloat;
  std::int64_t qk_mode = 0;
};

// spec/ops/attention.md section 2: the sizes every part of the node agrees on.
struct Geometry {
  bool rank3 = false;
  std::int64_t batch = 0, q_heads = 0, kv_heads = 0, q_len = 0, kv_len = 0, past_len = 0, total_len = 0;
  std::int64_t head_size = 0, v_head_size = 0;
  // The mask broadcast to (batch, q_heads, q_len, total_len): its extents right-aligned to rank 4
  // (missing leading ones are 1) and its last extent, which may be shorter than total_len.
  bool has_mask = false;
  std::int64_t mask_dims[4] = {1, 1, 1, 1};
};

[[noreturn]] void fail_shape(const NodeInfo& node, const std::string& message) {
  node.fail_invalid("Attention: " + message);
}

Geometry geometry(const NodeInfo& node, const Attributes& a, const InferContext& c) {
  Geometry g;
  const Shape& q = c.input_shape(kQ);
  const Shape& k = c.input_shape(kK);
  const Shape& v = c.input_shape(kV);
  if (q.rank() != k.rank() || q.rank() != v.rank() || (q.rank() != 3 && q.rank() != 4)) {
    fail_shape(node, "Q, K and V must all be 3-D or all 4-D");
  }
  g.rank3 = q.rank() == 3;
  g.batch = q[0];
  if (k[0] != g.batch || v[0] != g.batch) fail_shape(node, "Q, K and V disagree on the batch size");
  if (g.rank3) {
    // Section 2: 3-D inputs are (batch, sequence, heads * head_size) with the head counts given.
    if (a.q_num_heads <= 0 || a.kv_num_heads <= 0) {
      fail_shape(node, "3-D inputs need q_num_heads and kv_num_heads (positive)");
    }
    g.q_heads = a.q_num_heads;
    g.kv_heads = a.kv_num_heads;
    if (q[2] % g.q_heads != 0 || k[2] % g.kv_heads != 0 || v[2] % g.kv_heads != 0) {
      fail_shape(node, "a hidden size is not a multiple of its number of heads");
    }
    g.q_len = q[1];
    g.kv_len = k[1];
    if (v[1] != g.kv_len) fail_shape(node, "K and V disagree on the sequence length");
    g.head_size = q[2] / g.q_heads;
    if (k[2] / g.kv_heads != g.head_size) fail_shape(node, "Q and K disagree on the head size");
    g.v_head_size = v[2] / g.kv_heads;
  } else {
    g.q_heads = q[1];
    g.kv_heads = k[1];
    if (v[1] != g.kv_heads) fail_shape(node, "K and V disagree on the number of heads");
    g.q_len = q[2];
    g.kv_len = k[2];
    if (v[2] != g.kv_len) fail_shape(node, "K and V disagree on the sequence length");
    g.head_size = q[3];
    if (k[3] != g.head_size) fail_shape(node, "Q and K disagree on the head size");
    g.v_head_size = v[3];
  }
  if (g.kv_heads <= 0 || g.q_heads % g.kv_heads != 0) {
    fail_shape(node, "q_num_heads must be a multiple of kv_num_heads");
  }
  // Section 2: the cache. past_key and past_value come together, 4-D in either input layout.
  const bool has_past_key = c.has_input(kPastKey);
  const bool has_past_value = c.has_input(kPastValue);
  if (has_past_key != has_past_value) fail_shape(node, "past_key and past_value must be given together");
  if (has_past_key) {
    const Shape& pk = c.input_shape(kPastKey);
    const Shape& pv = c.input_shape(kPastValue);
    if (pk.rank() != 4 || pv.rank() != 4 || pk[0] != g.batch || pv[0] != g.batch || pk[1] != g.kv_heads ||
        pv[1] != g.kv_heads || pk[3] != g.head_size || pv[3] != g.v_head_size || pk[2] != pv[2]) {
      fail_shape(node, "past_key/past_value must be (batch, kv_num_heads, past_length, head_size)");
    }
    g.past_len = pk[2];
  }
  if (c.has_input(kNonpad)) {
    if (has_past_key) fail_shape(node, "nonpad_kv_seqlen cannot be used with past_key/past_value");
    const Shape& n = c.input_shape(kNonpad);
    if (n.rank() != 1 || n[0] != g.batch) fail_shape(node, "nonpad_kv_seqlen must have shape (batch)");
  }
  g.total_len = g.past_len + g.kv_len;
  // Section 3: the mask broadcasts right-aligned to (batch, q_heads, q_len, total_len); its last
  // extent may be shorter than total_len (the rest is masked), never longer.
  if (c.has_input(kMask)) {
    g.has_mask = true;
    const Shape& m = c.input_shape(kMask);
    if (m.rank() < 1 || m.rank() > 4) fail_shape(node, "attn_mask must have rank 1 to 4");
    const std::int64_t target[4] = {g.batch, g.q_heads, g.q_len, g.total_len};
    for (int i = 0; i < m.rank(); ++i) g.mask_dims[4 - m.rank() + i] = m[i];
    for (int i = 0; i < 3; ++i) {
      if (g.mask_dims[i] != 1 && g.mask_dims[i] != target[i]) {
        fail_shape(node, "attn_mask does not broadcast to (batch, q_num_heads, q_sequence_length, total_length)");
      }
    }
    if (g.mask_dims[3] > g.total_len) fail_shape(node, "attn_mask is longer than the total key length");
  }
  return g;
}

// spec/ops/attention.md section 3: the dot product of two rows, one accumulator from +0 in
// increasing index, each product and each sum rounded on its own (exact-mode.md, Matrix product).
float dot_product(const float* a, const float* b, std::int64_t n) noexcept {
  float acc = 0.0f;
  for (std::int64_t x = 0; x < n; ++x) {
    const float product = a[x] * b[x];
    acc = acc + product;
  }
  return acc;
}

// spec/ops/attention.md section 4: softmax of one row of scores into p (float32 precision).
void softmax_row_f32(const float* s, float* p, std::int64_t n) {
  float m = kNegInf;
  for (std::int64_t j = 0; j < n; ++j) {
    if (s[j] > m) m = s[j];  // NaN never compares greater: ignored
  }
  const float shift = (m == kNegInf) ? 0.0f : m;
  CanonicalSum16<float> sum;
  for (std::int64_t j = 0; j < n; ++j) {
    p[j] = exact::exp_non_positive(s[j] - shift);
    sum.add(p[j]);
  }
  float l = sum.result();
  if (l == 0.0f) l = 1.0f;  // every weight is 0 (all scores -inf): the row is zeros
  for (std::int64_t j = 0; j < n; ++j) p[j] = p[j] / l;
}

// The same in float64 (softmax_precision = DOUBLE): scores widened exactly, the library's exact
// binary64 exp (spec/exact-transcendentals.md section 15), the probabilities rounded to float32 once.
void softmax_row_f64(const float* s, float* p, std::int64_t n) {
  double m = -std::numeric_limits<double>::infinity();
  for (std::int64_t j = 0; j < n; ++j) {
    if (static_cast<double>(s[j]) > m) m = s[j];
  }
  const double shift = std::isinf(m) && m < 0 ? 0.0 : m;
  std::vector<double> e(static_cast<std::size_t>(n));
  CanonicalSum16<double> sum;
  for (std::int64_t j = 0; j < n; ++j) {
    e[static_cast<std::size_t>(j)] = exact::exp_f64(static_cast<double>(s[j]) - shift);
    sum.add(e[static_cast<std::size_t>(j)]);
  }
  double l = sum.result();
  if (l == 0.0) l = 1.0;
  for (std::int64_t j = 0; j < n; ++j) p[j] = static_cast<float>(e[static_cast<std::size_t>(j)] / l);
}

class Attention final : public OpKernel {
 public:
  explicit Attention(Attributes a) : a_(a) {
    // spec/ops/attention.md section 1: exact in both softmax precisions (the float64 softmax uses
    // the exact binary64 exp of spec/exact-transcendentals.md section 15).
    supports_exact = true;
  }

  void infer(InferContext& context) const override {
    // Section 1: T1 (Q, K, past_key) and T2 (V, past_value) are float32 or float16.
    context.require_type(kQ, {DType::F32, DType::F16});
    context.require_type(kK, {DType::F32, DType::F16});
    context.require_type(kV, {DType::F32, DType::F16});
    if (context.has_input(kMask)) context.require_type(kMask, {DType::F32, DType::F16, DType::Bool});
    if (context.has_input(kPastKey)) context.require_type(kPastKey, {DType::F32, DType::F16});
    if (context.has_input(kPastValue)) context.require_type(kPastValue, {DType::F32, DType::F16});
    if (context.has_input(kNonpad)) context.require_type(kNonpad, {DType::I64});
    const DType t1 = context.input_type(kQ);
    const DType t2 = context.input_type(kV);
    if (context.input_type(kK) != t1 || (context.has_input(kPastKey) && context.input_type(kPastKey) != t1) ||
        (context.has_input(kPastValue) && context.input_type(kPastValue) != t2) ||
        (context.has_input(kMask) && context.input_type(kMask) != DType::Bool && context.input_type(kMask) != t1)) {
      context.node().fail_invalid("Attention: Q, K, past_key (and a float attn_mask) share one type; V and past_value another");
    }
    const Geometry g = geometry(context.node(), a_, context);
    if (g.rank3) {
      context.set_output(kY, t1, Shape{g.batch, g.q_len, g.q_heads * g.v_head_size});
    } else {
      context.set_output(kY, t1, Shape{g.batch, g.q_heads, g.q_len, g.v_head_size});
    }
    if (context.output_wanted(kPresentKey)) {
      context.set_output(kPresentKey, t1, Shape{g.batch, g.kv_heads, g.total_len, g.head_size});
    }
    if (context.output_wanted(kPresentValue)) {
      context.set_output(kPresentValue, t2, Shape{g.batch, g.kv_heads, g.total_len, g.v_head_size});
    }
    if (context.output_wanted(kQk)) {
      context.set_output(kQk, t1, Shape{g.batch, g.q_heads, g.q_len, g.total_len});
    }
  }

  void run(RunContext& context) const override;

 private:
  Attributes a_;
};

// Rebuilds the geometry from the run-time tensors (the same checks as infer()).
Geometry run_geometry(const NodeInfo& node, const Attributes& a, const RunContext& context) {
  std::vector<InferInput> inputs(context.input_count());
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    if (!context.has_input(i)) continue;
    inputs[i].present = true;
    inputs[i].type = context.input(i).dtype();
    inputs[i].shape = context.input(i).shape();
  }
  std::vector<InferOutput> outputs;
  InferContext infer(node, inputs, outputs);
  return geometry(node, a, infer);
}

// Section 2: K (or V) at (b, kv head, position j of the new tokens, x), as a row pointer, in the
// 3-D or the 4-D layout.
const float* new_row(const float* base, const Geometry& g, std::int64_t width, std::int64_t b, std::int64_t h,
                     std::int64_t j) {
  if (g.rank3) return base + ((b * g.kv_len + j) * g.kv_heads + h) * width;
  return base + ((b * g.kv_heads + h) * g.kv_len + j) * width;
}

// Section 2: present = concat(past, new) along the sequence, (batch, kv_heads, total_len, width).
std::vector<float> concat_cache(const float* past, const float* fresh, const Geometry& g, std::int64_t width) {
  std::vector<float> out(static_cast<std::size_t>(g.batch * g.kv_heads * g.total_len * width));
  float* o = out.data();
  for (std::int64_t b = 0; b < g.batch; ++b) {
    for (std::int64_t h = 0; h < g.kv_heads; ++h) {
      for (std::int64_t j = 0; j < g.total_len; ++j) {
        const float* src = j < g.past_len ? past + ((b * g.kv_heads + h) * g.past_len + j) * width
                                          : new_row(fresh, g, width, b, h, j - g.past_len);
        for (std::int64_t x = 0; x < width; ++x) *o++ = src[x];
      }
    }
  }
  return out;
}

void Attention::run(RunContext& context) const {
  // Section 1: float16 tensors are widened to float32 (exactly) and the results rounded back once
  // (f16_widening.hpp).
  const Geometry g = run_geometry(context.node(), a_, context);
  const std::vector<float> q = widen_f16_to_f32(context.input(kQ));
  std::vector<float> past_k, past_v;
  if (context.has_input(kPastKey)) {
    past_k = widen_f16_to_f32(context.input(kPastKey));
    past_v = widen_f16_to_f32(context.input(kPastValue));
  }
  const std::vector<float> keys = concat_cache(past_k.data(), widen_f16_to_f32(context.input(kK)).data(), g, g.head_size);
  const std::vector<float> values = concat_cache(past_v.data(), widen_f16_to_f32(context.input(kV)).data(), g, g.v_head_size);

  const bool bool_mask = g.has_mask && context.input(kMask).dtype() == DType::Bool;
  std::vector<float> mask_f;
  Tensor mask_t, nonpad_t;
  const std::uint8_t* mask_b = nullptr;
  if (g.has_mask) {
    if (bool_mask) {
      mask_t = context.input(kMask).contiguous();
      mask_b = mask_t.data<std::uint8_t>().data();
    } else {
      mask_f = widen_f16_to_f32(context.input(kMask));
    }
  }
  const std::int64_t* nonpad = nullptr;
  if (context.has_input(kNonpad)) {
    nonpad_t = context.input(kNonpad).contiguous();
    nonpad = nonpad_t.data<std::int64_t>().data();
  }

  // Section 3 step 1: sqrt(scale) multiplies Q and K before their product (ONNX schema pattern);
  // the default scale is 1/sqrt(head_size), both square roots in float64, then rounded to float32.
  const double scale = a_.has_scale ? static_cast<double>(a_.scale) : 1.0 / std::sqrt(static_cast<double>(g.head_size));
  const float root_scale = static_cast<float>(std::sqrt(scale));
  const bool capped = a_.softcap > 0.0f;
  const std::int64_t group = g.q_heads / g.kv_heads;
  const std::int64_t T = g.total_len;
  const std::int64_t D = g.head_size;
  const std::int64_t Dv = g.v_head_size;
  const auto at = [](std::int64_t n) { return static_cast<std::size_t>(n); };

  std::vector<float> y(at(g.batch * g.q_heads * g.q_len * Dv));
  const bool want_qk = context.output_wanted(kQk);
  std::vector<float> qk_out(want_qk ? at(g.batch * g.q_heads * g.q_len * T) : 0);

  std::vector<float> qs(at(D)), ks(at(D));
  std::vector<float> raw(at(T)), capped_s(at(T)), s(at(T)), p(at(T));
  const std::vector<float> masked_row(at(T), kNegInf);

  for (std::int64_t b = 0; b < g.batch; ++b) {
    for (std::int64_t h = 0; h < g.q_heads; ++h) {
      const std::int64_t kvh = h / group;  // section 2: q head h reads kv head h / (q_heads / kv_heads)
      for (std::int64_t i = 0; i < g.q_len; ++i) {
        const std::int64_t q_start = g.rank3 ? ((b * g.q_len + i) * g.q_heads + h) * D : ((b * g.q_heads + h) * g.q_len + i) * D;
        for (std::int64_t x = 0; x < D; ++x) qs[at(x)] = q[at(q_start + x)] * root_scale;
        // Section 3 step 4: the causal frontier, key j visible iff j <= i + offset.
        std::int64_t offset = 0;
        if (g.past_len > 0) offset = g.past_len;
        else if (nonpad != nullptr) offset = nonpad[b] - g.q_len;
        bool all_masked = true;
        for (std::int64_t j = 0; j < T; ++j) {
          const float* k_row = keys.data() + ((b * g.kv_heads + kvh) * T + j) * D;
          for (std::int64_t x = 0; x < D; ++x) ks[at(x)] = k_row[x] * root_scale;
          const float dot = dot_product(qs.data(), ks.data(), D);
          raw[at(j)] = dot;
          // Section 3 step 3: softcap * tanh(score / softcap), before the mask.
          const float c = capped ? exact::tanh(dot / a_.softcap) * a_.softcap : dot;
          capped_s[at(j)] = c;
          // Section 3 step 4: the additive bias.
          float bias = 0.0f;
          if (g.has_mask) {
            float mv = kNegInf;  // beyond the mask's last extent: masked
            if (j < g.mask_dims[3]) {
              const std::int64_t mb = g.mask_dims[0] == 1 ? 0 : b;
              const std::int64_t mh = g.mask_dims[1] == 1 ? 0 : h;
              const std::int64_t mi = g.mask_dims[2] == 1 ? 0 : i;
              const std::int64_t idx = ((mb * g.mask_dims[1] + mh) * g.mask_dims[2] + mi) * g.mask_dims[3] + j;
              mv = bool_mask ? (mask_b[idx] != 0 ? 0.0f : kNegInf) : mask_f[at(idx)];
            }
            bias = a_.is_causal ? mv : 0.0f + mv;
          }
          if (a_.is_causal) bias = bias + (j <= i + offset ? 0.0f : kNegInf);
          if (nonpad != nullptr) bias = bias + (j < nonpad[b] ? 0.0f : kNegInf);
          if (!(bias == kNegInf)) all_masked = false;
          s[at(j)] = c + bias;  // section 3 step 5
        }
        const std::int64_t y_start = g.rank3 ? ((b * g.q_len + i) * g.q_heads + h) * Dv : ((b * g.q_heads + h) * g.q_len + i) * Dv;
        const float* v_head = values.data() + (b * g.kv_heads + kvh) * T * Dv;
        if (a_.softmax_precision == kPrecisionDouble) {
          // Section 4 (float64 softmax, fast mode only) and section 5 over the whole row.
          softmax_row_f64(s.data(), p.data(), T);
          if (all_masked) std::fill(p.begin(), p.end(), 0.0f);
          for (std::int64_t x = 0; x < Dv; ++x) {
            float acc = 0.0f;
            for (std::int64_t j = 0; j < T; ++j) {
              const float product = p[at(j)] * v_head[j * Dv + x];
              acc = acc + product;
            }
            y[at(y_start + x)] = acc;
          }
        } else {
          // Section 5: the online softmax of kernels-attention.md over blocks of 64 keys. A fully
          // masked row (section 4 step 5) weighs every key 0: its scores are taken as -inf.
          const float* scores = all_masked ? masked_row.data() : s.data();
          attention_order::online_softmax_row<float>(
              scores, T, [&](std::int64_t j) { return v_head + j * Dv; }, Dv, y.data() + y_start,
              /*empty_row_divides_by_one=*/true, [](float x) { return exact::exp_non_positive(x); });
          // Section 6 mode 3: the probabilities, by the whole-row softmax of section 4.
          if (want_qk && a_.qk_mode == 3) {
            softmax_row_f32(s.data(), p.data(), T);
            if (all_masked) std::fill(p.begin(), p.end(), 0.0f);
          }
        }
        // Section 6: qk_matmul_output.
        if (want_qk) {
          const std::vector<float>& src = a_.qk_mode == 0 ? raw : a_.qk_mode == 1 ? capped_s : a_.qk_mode == 2 ? s : p;
          const std::int64_t row = ((b * g.q_heads + h) * g.q_len + i) * T;
          for (std::int64_t j = 0; j < T; ++j) qk_out[at(row + j)] = src[at(j)];
        }
      }
    }
  }
  store_f32_as_output(context.output(kY), y);
  if (want_qk) store_f32_as_output(context.output(kQk), qk_out);
  if (context.output_wanted(kPresentKey)) store_f32_as_output(context.output(kPresentKey), keys);
  if (context.output_wanted(kPresentValue)) store_f32_as_output(context.output(kPresentValue), values);
}

}  // namespace

std::unique_ptr<OpKernel> make_attention(const NodeInfo& node) {
  Attributes a;
  // spec/ops/attention.md section 1: nonpad_kv_seqlen (input 6) exists from opset 24.
  if (node.opset() < 24 && node.input_count() > 6) node.fail_invalid("Attention: opset 23 has six inputs");
  const std::int64_t causal = node.get_int("is_causal", 0);
  if (causal != 0 && causal != 1) node.fail_invalid("Attention: is_causal must be 0 or 1");
  a.is_causal = causal == 1;
  a.q_num_heads = node.get_int("q_num_heads", 0);
  a.kv_num_heads = node.get_int("kv_num_heads", 0);
  a.has_scale = node.has("scale");
  a.scale = node.get_float("scale", 0.0f);
  if (a.has_scale && !(a.scale > 0.0f && std::isfinite(a.scale))) {
    node.fail_invalid("Attention: scale must be positive and finite");  // sqrt(scale) multiplies Q and K
  }
  a.softcap = node.get_float("softcap", 0.0f);
  if (std::isnan(a.softcap) || std::isinf(a.softcap)) node.fail_invalid("Attention: softcap must be finite");
  a.qk_mode = node.get_int("qk_matmul_output_mode", 0);
  if (a.qk_mode < 0 || a.qk_mode > 3) node.fail_invalid("Attention: qk_matmul_output_mode must be 0, 1, 2 or 3");
  a.softmax_precision = node.get_int("softmax_precision", kPrecisionFloat);
  if (a.softmax_precision != kPrecisionFloat && a.softmax_precision != kPrecisionDouble) {
    node.fail_unsupported("Attention: softmax_precision " + std::to_string(a.softmax_precision) +
                          " is not supported; only FLOAT (1) and DOUBLE (11) are");
  }
  return std::make_unique<Attention>(a);
}

}  // namespace onemodel
