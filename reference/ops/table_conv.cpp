// Rows of the operator table for this family. Add a row per (operator, opset range), and declare
// its factory above the table; the factory lives in reference/ops/op_<name>.cpp.
#include <vector>

#include "reference/ops/op_families.hpp"

namespace onemodel {

// Factories (reference/ops/op_<name>.cpp).
std::unique_ptr<OpKernel> make_roi_align(const NodeInfo&);
std::unique_ptr<OpKernel> make_non_max_suppression(const NodeInfo&);
std::unique_ptr<OpKernel> make_affine_grid(const NodeInfo&);
std::unique_ptr<OpKernel> make_grid_sample(const NodeInfo&);
std::unique_ptr<OpKernel> make_gemm_6(const NodeInfo&);
std::unique_ptr<OpKernel> make_batch_normalization_6(const NodeInfo&);
std::unique_ptr<OpKernel> make_matmul(const NodeInfo&);
std::unique_ptr<OpKernel> make_einsum(const NodeInfo&);
std::unique_ptr<OpKernel> make_gemm_7(const NodeInfo&);
std::unique_ptr<OpKernel> make_gemm_11(const NodeInfo&);
std::unique_ptr<OpKernel> make_conv(const NodeInfo&);
std::unique_ptr<OpKernel> make_conv_transpose(const NodeInfo&);
std::unique_ptr<OpKernel> make_max_pool(const NodeInfo&);
std::unique_ptr<OpKernel> make_average_pool(const NodeInfo&);
std::unique_ptr<OpKernel> make_global_average_pool(const NodeInfo&);
std::unique_ptr<OpKernel> make_global_max_pool(const NodeInfo&);
std::unique_ptr<OpKernel> make_lp_pool(const NodeInfo&);
std::unique_ptr<OpKernel> make_col2im(const NodeInfo&);
std::unique_ptr<OpKernel> make_max_unpool(const NodeInfo&);
std::unique_ptr<OpKernel> make_batch_normalization_7(const NodeInfo&);
std::unique_ptr<OpKernel> make_batch_normalization_9(const NodeInfo&);
std::unique_ptr<OpKernel> make_resize_10(const NodeInfo&);
std::unique_ptr<OpKernel> make_resize_11(const NodeInfo&);
std::unique_ptr<OpKernel> make_upsample_7(const NodeInfo&);
std::unique_ptr<OpKernel> make_upsample_9(const NodeInfo&);
std::unique_ptr<OpKernel> make_causal_conv_with_state(const NodeInfo&);
std::unique_ptr<OpKernel> make_deform_conv(const NodeInfo&);

// spec/ops/products-conv.md section 1: opset ranges. The upper bound 27 is the newest opset the
// backend tests import for these operators (Conv at 27, MatMul at 26); none changed them.
std::span<const OpDef> conv_ops() {
  static const std::vector<OpDef> rows = {
      {"", "MatMul", 1, 27, make_matmul, "F32 F64 F16 BF16 I32 I64 U32 U64"},
      {"", "Gemm", 6, 6, make_gemm_6, "F32 F64 F16 BF16 I32 I64 U32 U64"},
      {"", "Gemm", 7, 10, make_gemm_7, "F32 F64 F16 BF16 I32 I64 U32 U64"},
      {"", "Gemm", 11, 27, make_gemm_11, "F32 F64 F16 BF16 I32 I64 U32 U64"},
      {"", "Conv", 1, 27, make_conv, "F32"},
      {"", "ConvTranspose", 1, 27, make_conv_transpose, "F32"},
      {"", "MaxPool", 1, 27, make_max_pool, "F32 F64 F16 I8 U8"},
      {"", "AveragePool", 1, 27, make_average_pool, "F32 F64"},
      {"", "GlobalAveragePool", 1, 27, make_global_average_pool, "F32 F64"},
      {"", "GlobalMaxPool", 1, 27, make_global_max_pool, "F32 F64"},
      {"", "BatchNormalization", 6, 6, make_batch_normalization_6, "F32 F64"},
      {"", "LpPool", 2, 27, make_lp_pool, "F32 F64"},
      {"", "Col2Im", 18, 27, make_col2im, "F32 F64"},
      {"", "MaxUnpool", 9, 27, make_max_unpool, "F32 F64 F16 BF16"},
      {"", "Einsum", 12, 27, make_einsum, "F32 F64 I32 I64"},
      {"", "BatchNormalization", 7, 8, make_batch_normalization_7, "F32 F64"},
      {"", "BatchNormalization", 9, 27, make_batch_normalization_9, "F32 F64"},
      {"", "AffineGrid", 20, 27, make_affine_grid, "F32 F64 F16 BF16"},
      {"", "NonMaxSuppression", 10, 27, make_non_max_suppression, "F32"},  // spec/ops/detection.md
      {"", "RoiAlign", 10, 15, make_roi_align, "F32"},  // spec/ops/detection.md section 2
      {"", "RoiAlign", 16, 27, make_roi_align, "F32"},
      // spec/ops/grid-sample.md: opset 16 names the modes bilinear and bicubic and takes 4-D X only.
      {"", "GridSample", 16, 19, make_grid_sample, "F32 F64"},
      {"", "GridSample", 20, 27, make_grid_sample, "F32 F64"},
      {"", "Resize", 10, 10, make_resize_10, "F32"},
      {"", "Resize", 11, 27, make_resize_11, "F32"},
      {"", "Upsample", 7, 8, make_upsample_7, "F32"},
      {"", "Upsample", 9, 10, make_upsample_9, "F32"},
      // Issue 17: spec/ops/products-conv.md sections 14 and 15; float16 and bfloat16 run through
      // the adapter. DeformConv 22 only added bfloat16 to 19: one kernel.
      {"", "CausalConvWithState", 27, 27, make_causal_conv_with_state, "F32"},
      {"", "DeformConv", 19, 27, make_deform_conv, "F32 F64"},
  };
  return rows;
}

}  // namespace onemodel
