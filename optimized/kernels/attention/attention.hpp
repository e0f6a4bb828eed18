// Fused attention, fp32 (kernels-attention.md): for every (batch b, head h, query row i)
// O[i] = softmax(scale * Q[i] K^T + mask[i]) V, computed by the online softmax of that text with
// work items of QB = 32 query rows and key blocks of KB = 64 keys (both part of the exact
// definition). Exact mode: unfused, ExpNonPositive, division at the end, the same bits on every
// path and thread count. Fast mode: fused multiply-add, the fast exponential, multiply by 1/l.
// Every NaN output is 0x7FC00000.
#pragma once

#include <cstddef>

#include "optimized/frame/kernel_context.hpp"

namespace onemodel::opt {

// kernels-attention.md, "Work items and constants".
inline constexpr std::size_t kAttentionQueryBlock = 32;
inline constexpr std::size_t kAttentionKeyBlock = 64;
// Fast mode's work items span up to this many query rows (four blocks of 32, each computed as a
// 32-row item alone, so the bits do not change): a key block is packed once for the four.
inline constexpr std::size_t kAttentionFastItemRows = 128;

// Element offsets of a 4-D (batch, head, row, column) operand; columns are contiguous except for
// the mask, whose column stride may be 0 (broadcast) or 1. A stride of 0 broadcasts.
struct AttentionStrides {
  std::ptrdiff_t batch = 0;
  std::ptrdiff_t head = 0;
  std::ptrdiff_t row = 0;
};

struct AttentionArgs {
  const float* q = nullptr;     // (batch, heads, q_len, d)
  const float* k = nullptr;     // (batch, kv_heads, kv_len, d)
  const float* v = nullptr;     // (batch, kv_heads, kv_len, dv)
  const float* mask = nullptr;  // additive (batch, heads, q_len, kv_len) or nullptr (mask = +0)
  float* out = nullptr;         // (batch, heads, q_len, dv)
  std::size_t batch = 0, heads = 0, q_len = 0, kv_len = 0, d = 0, dv = 0;
  std::size_t kv_group = 1;  // query head h reads key/value head h / kv_group
  AttentionStrides q_strides, k_strides, v_strides, mask_strides, out_strides;
  std::ptrdiff_t mask_column_stride = 1;  // 1 or 0
  float scale = 1.0f;
  // Multipliers applied to every element of Q and K before the dot products (1 for the
  // definition of kernels-attention.md; the ONNX Attention operator multiplies both by
  // sqrt(scale), spec/ops/attention.md section 3, and passes scale = 1).
  float q_scale = 1.0f;
  float k_scale = 1.0f;
  // kernels-attention.md gives NaN for a row with l = 0 (fully masked). The ONNX Attention
  // reference divides by 1 instead (its rows are then sums of 0 * v, i.e. zeros).
  bool divide_empty_rows_by_one = false;
};

void attention_f32(const KernelContext& context, const AttentionArgs& args);

}  // namespace onemodel::opt
