// Attention (opsets 23, 24), both modes: the fused online-softmax kernel of
// optimized/kernels/attention/ for the common float32 cases; everything else runs the reference.
//
// The reference (reference/ops/op_attention.cpp, spec/ops/attention.md) computes Y in the order
// of kernels-attention.md, "The exact definition" (section 5: blocks of 64 keys, the online
// softmax, the division at the end), which is the order of this kernel's exact flavour; what the
// ONNX operator adds is served so the bits stay the reference's:
//  - Q and K are multiplied by sqrt(scale) before the product (q_scale = k_scale = sqrt(scale),
//    kernel scale 1: dot * 1 is dot, so the scores are the reference's bits);
//  - a row with l = 0 divides by 1 (divide_empty_rows_by_one);
//  - a fully masked row (every bias -inf, section 4 step 5) weighs every key 0 whatever its
//    scores: the kernel would give NaN where a score is NaN, so such rows are rewritten after the
//    kernel (zero_fully_masked_rows) with what the reference computes for them.
// Exact mode therefore runs the kernel too (diff_attention_test checks the bits on every path at
// 1 and 2 threads). Served: float32 Q, K, V, contiguous, 3-D or 4-D, grouped heads, an additive
// float32 mask whose last extent is the key length (any broadcast of the others), the causal flag
// (folded into a scratch mask: mask + (j <= i ? 0 : -inf), section 3 step 4), no softcap, float
// softmax precision, no cache inputs, no nonpad lengths, none of the optional outputs.
#include <cmath>
#include <cstdint>
#include <limits>

#include "optimized/kernels/attention/attention.hpp"
#include "optimized/ops/optimized_kernel.hpp"

namespace onemodel::opt {
namespace {

// spec/ops/attention.md section 4 step 5 and section 5: a row whose bias (here the effective mask
// a.mask, the reference's bias bit for bit) is -inf for every key has p = 0 for every key, so
// Y[x] = ((+0 + 0*v[0][x]) + 0*v[1][x]) + ...: +0 when every v[j][x] is finite, NaN (stored as
// 0x7FC00000) when one is infinite or NaN (0 * inf is NaN). The online softmax with every score
// -inf gives exactly this (alpha = 0 keeps +0 or NaN, l = 0 divides by 1); the kernel is given the
// scores themselves, which may be NaN, so the rows are written here. Rows with a visible key are
// left as the kernel wrote them. Cheap: a row scan stops at its first key that is not -inf.
void zero_fully_masked_rows(const AttentionArgs& a) {
  constexpr float kNegInf = -std::numeric_limits<float>::infinity();
  const auto off = [](const AttentionStrides& s, std::size_t b, std::size_t h) {
    return static_cast<std::ptrdiff_t>(b) * s.batch + static_cast<std::ptrdiff_t>(h) * s.head;
  };
  for (std::size_t b = 0; b < a.batch; ++b) {
    for (std::size_t h = 0; h < a.heads; ++h) {
      const float* v = a.v + off(a.v_strides, b, h / a.kv_group);
      for (std::size_t i = 0; i < a.q_len; ++i) {
        const float* m = a.mask + off(a.mask_strides, b, h) + static_cast<std::ptrdiff_t>(i) * a.mask_strides.row;
        bool all_masked = true;
        for (std::size_t j = 0; j < a.kv_len && all_masked; ++j) {
          all_masked = m[static_cast<std::ptrdiff_t>(j) * a.mask_column_stride] == kNegInf;
        }
        if (!all_masked) continue;
        float* out = a.out + off(a.out_strides, b, h) + static_cast<std::ptrdiff_t>(i) * a.out_strides.row;
        for (std::size_t x = 0; x < a.dv; ++x) {
          bool finite = true;
          for (std::size_t j = 0; j < a.kv_len && finite; ++j) {
            finite = std::isfinite(v[static_cast<std::ptrdiff_t>(j) * a.v_strides.row + static_cast<std::ptrdiff_t>(x)]);
          }
          out[x] = finite ? 0.0f : canonical_nan_f32(std::numeric_limits<float>::quiet_NaN());
        }
      }
    }
  }
}

class AttentionOverride final : public OptimizedKernel {
 public:
  AttentionOverride(const NodeInfo& node, const OptimizedConfig& config)
      : OptimizedKernel(node, config),
        causal_(node.get_int("is_causal", 0) != 0),
        q_heads_(node.get_int("q_num_heads", 0)),
        kv_heads_(node.get_int("kv_num_heads", 0)),
        has_scale_(node.has("scale")),
        scale_(node.get_float("scale", 0.0f)),
        softcap_(node.get_float("softcap", 0.0f)),
        precision_(node.get_int("softmax_precision", 1)) {}

  void run(RunContext& context) const override {
    if (!served(context)) return run_reference(context);
    const Tensor& q = context.input(0);
    const Tensor& k = context.input(1);
    const Tensor& v = context.input(2);
    const bool rank3 = q.shape().rank() == 3;
    std::int64_t batch, hq, hkv, q_len, kv_len, d, dv;
    batch = q.shape()[0];
    if (rank3) {
      hq = q_heads_;
      hkv = kv_heads_;
      q_len = q.shape()[1];
      kv_len = k.shape()[1];
      d = q.shape()[2] / hq;
      dv = v.shape()[2] / hkv;
    } else {
      hq = q.shape()[1];
      hkv = k.shape()[1];
      q_len = q.shape()[2];
      kv_len = k.shape()[2];
      d = q.shape()[3];
      dv = v.shape()[3];
    }
    const Tensor& y = context.output(0);
    if (y.element_count() == 0) return;
    AttentionArgs a;
    a.q = q.data<float>().data();
    a.k = k.data<float>().data();
    a.v = v.data<float>().data();
    a.out = y.mutable_data<float>().data();
    a.batch = static_cast<std::size_t>(batch);
    a.heads = static_cast<std::size_t>(hq);
    a.q_len = static_cast<std::size_t>(q_len);
    a.kv_len = static_cast<std::size_t>(kv_len);
    a.d = static_cast<std::size_t>(d);
    a.dv = static_cast<std::size_t>(dv);
    a.kv_group = static_cast<std::size_t>(hq / hkv);
    // spec/ops/attention.md section 2: (batch, sequence, heads * size) or (batch, heads, sequence, size).
    // Strides as std::ptrdiff_t: narrower than the int64 extents on 32-bit targets (wasm32).
    const auto strides = [](std::int64_t batch, std::int64_t head, std::int64_t row) {
      return AttentionStrides{static_cast<std::ptrdiff_t>(batch), static_cast<std::ptrdiff_t>(head),
                              static_cast<std::ptrdiff_t>(row)};
    };
    if (rank3) {
      a.q_strides = strides(q_len * hq * d, d, hq * d);
      a.k_strides = strides(kv_len * hkv * d, d, hkv * d);
      a.v_strides = strides(kv_len * hkv * dv, dv, hkv * dv);
      a.out_strides = strides(q_len * hq * dv, dv, hq * dv);
    } else {
      a.q_strides = strides(hq * q_len * d, q_len * d, d);
      a.k_strides = strides(hkv * kv_len * d, kv_len * d, d);
      a.v_strides = strides(hkv * kv_len * dv, kv_len * dv, dv);
      a.out_strides = strides(hq * q_len * dv, q_len * dv, dv);
    }
    if (context.has_input(3)) {
      // Section 3: the mask broadcasts right-aligned to (batch, q_heads, q_len, total_len).
      const Tensor& m = context.input(3);
      std::int64_t md[4] = {1, 1, 1, 1};
      for (int i = 0; i < m.shape().rank(); ++i) md[4 - m.shape().rank() + i] = m.shape()[i];
      a.mask = m.data<float>().data();
      a.mask_column_stride = 1;
      a.mask_strides.row = md[2] == 1 ? 0 : md[3];
      a.mask_strides.head = md[1] == 1 ? 0 : md[2] * md[3];
      a.mask_strides.batch = md[0] == 1 ? 0 : md[1] * md[2] * md[3];
    }
    Tensor causal_mask;
    if (causal_) {
      // Section 3 step 4: key j is visible from query row i iff j <= i (no cache, no nonpad
      // lengths: offset 0); the bias is mask + (0 or -inf), as the reference adds them.
      const std::int64_t mb = a.mask != nullptr && a.mask_strides.batch != 0 ? batch : 1;
      const std::int64_t mh = a.mask != nullptr && a.mask_strides.head != 0 ? hq : 1;
      causal_mask = context.scratch(DType::F32, Shape{mb, mh, q_len, kv_len});
      float* cm = causal_mask.mutable_data<float>().data();
      for (std::int64_t b = 0; b < mb; ++b)
        for (std::int64_t h = 0; h < mh; ++h)
          for (std::int64_t i = 0; i < q_len; ++i) {
            const float* src = a.mask == nullptr ? nullptr
                                                 : a.mask + b * a.mask_strides.batch + h * a.mask_strides.head +
                                                       i * a.mask_strides.row;
            float* dst = cm + ((b * mh + h) * q_len + i) * kv_len;
            for (std::int64_t j = 0; j < kv_len; ++j) {
              const float visible = j <= i ? 0.0f : -INFINITY;
              dst[j] = src == nullptr ? 0.0f + visible : src[j] + visible;
            }
          }
      a.mask = cm;
      a.mask_column_stride = 1;
      a.mask_strides.row = kv_len;
      a.mask_strides.head = mh == 1 ? 0 : q_len * kv_len;
      a.mask_strides.batch = mb == 1 ? 0 : mh * q_len * kv_len;
    }
    // Section 3 step 1: sqrt(scale) multiplies Q and K; the default scale is 1/sqrt(head_size),
    // both square roots in float64, then rounded to float32 (as the reference computes it).
    const double scale = has_scale_ ? static_cast<double>(scale_) : 1.0 / std::sqrt(static_cast<double>(d));
    const float root_scale = static_cast<float>(std::sqrt(scale));
    a.q_scale = root_scale;
    a.k_scale = root_scale;
    a.scale = 1.0f;
    a.divide_empty_rows_by_one = true;
    attention_f32(kernel_context(context), a);
    if (a.mask != nullptr) zero_fully_masked_rows(a);
  }

 private:
  bool served(const RunContext& context) const {
    if (softcap_ > 0.0f || precision_ != 1) return false;
    for (std::size_t i = 4; i < context.input_count(); ++i) {
      if (context.has_input(i)) return false;  // past_key, past_value, nonpad_kv_seqlen
    }
    for (std::size_t i = 1; i < 4; ++i) {
      if (context.output_wanted(i)) return false;  // present_key, present_value, qk_matmul_output
    }
    for (std::size_t i = 0; i < 3; ++i) {
      const Tensor& t = context.input(i);
      if (t.dtype() != DType::F32 || !t.is_contiguous()) return false;
    }
    const Tensor& q = context.input(0);
    const Tensor& k = context.input(1);
    if (context.has_input(3)) {
      const Tensor& m = context.input(3);
      if (m.dtype() != DType::F32 || !m.is_contiguous() || m.shape().rank() < 1) return false;
      const std::int64_t total = q.shape().rank() == 3 ? k.shape()[1] : k.shape()[2];
      if (m.shape()[m.shape().rank() - 1] != total) return false;  // a shorter mask masks the rest
    }
    return true;
  }

  bool causal_;
  std::int64_t q_heads_, kv_heads_;
  bool has_scale_;
  float scale_;
  float softcap_;
  std::int64_t precision_;
};

}  // namespace

std::unique_ptr<OpKernel> make_optimized_attention(const NodeInfo& node, const OptimizedConfig& config) {
  return std::make_unique<AttentionOverride>(node, config);
}

}  // namespace onemodel::opt
