// Attention (opsets 23, 24), fast mode: the fused online-softmax kernel of
// optimized/kernels/attention/ for the common float32 cases; everything else runs the reference.
//
// The reference (reference/ops/op_attention.cpp, spec/ops/attention.md) is not the definition of
// kernels-attention.md, and has no exact mode (the node is refused there):
//  - it multiplies Q and K by sqrt(scale) before the product (served here: q_scale = k_scale =
//    sqrt(scale), kernel scale 1, so the scores are the reference's bits);
//  - it takes the softmax over the whole row and divides the weights before P V, where the kernel
//    rescales at every 64-key block and divides at the end (last-bit differences only);
//  - a row with l = 0 (fully masked) gives zeros, not NaN (served: divide_empty_rows_by_one).
// Served: float32 Q, K, V, contiguous, 3-D or 4-D, grouped heads, an additive float32 mask whose
// last extent is the key length (any broadcast of the others), the causal flag (folded into a
// scratch mask: mask + (j <= i ? 0 : -inf), section 3 step 4), no softcap, float softmax
// precision, no cache inputs, no nonpad lengths, none of the optional outputs.
#include <cmath>
#include <cstdint>

#include "optimized/kernels/attention/attention.hpp"
#include "optimized/ops/optimized_kernel.hpp"

namespace onemodel::opt {
namespace {

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
  }

 private:
  bool served(const RunContext& context) const {
    if (context.exact()) return false;  // the reference refuses exact mode; never reached there
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
