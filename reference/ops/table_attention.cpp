// Rows of the operator table for this family. Add a row per (operator, opset range), and declare
// its factory above the table; the factory lives in reference/ops/op_<name>.cpp.
#include <vector>

#include "reference/ops/op_families.hpp"

namespace onemodel {

// Factories (reference/ops/op_<name>.cpp).
std::unique_ptr<OpKernel> make_attention(const NodeInfo& node);
std::unique_ptr<OpKernel> make_flex_attention(const NodeInfo& node);
std::unique_ptr<OpKernel> make_rotary_embedding(const NodeInfo& node);
std::unique_ptr<OpKernel> make_linear_attention(const NodeInfo& node);

std::span<const OpDef> attention_ops() {
  static const std::vector<OpDef> rows = {
      {"", "Attention", 23, 24, make_attention, "F32 F16"},  // 25 adds sliding windows: not served
      {"", "RotaryEmbedding", 23, 25, make_rotary_embedding, "F32"},
      // spec/ops/attention.md section 10 (issue 17); float16 and bfloat16 run through the adapter.
      {"", "LinearAttention", 27, 27, make_linear_attention, "F32"},
      // A non-default domain (spec/ops/attention.md section 9); float64 is fast mode only.
      {"ai.onnx.preview", "FlexAttention", 1, 1, make_flex_attention, "F32 F64 F16"},
  };
  return rows;
}

}  // namespace onemodel
