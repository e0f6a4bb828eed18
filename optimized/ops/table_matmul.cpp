// Optimized overrides of the matmul family: MatMul and Gemm on the blocked float32 matrix
// product (kernels-gemm.md); MatMulInteger and QLinearMatMul on the integer product kernel
// (int8.md), and DequantizeLinear beside them. Ranges lie inside the reference rows (reference/ops/table_conv.cpp:
// MatMul 1..27, Gemm 7..10 and 11..27); Gemm's opset 7 rule that C is required is checked by the
// reference kernel each override holds. QuantizeLinear (10..27) and DynamicQuantizeLinear (11..27)
// sit beside DequantizeLinear, inside reference/ops/table_quant.cpp's rows.
#include "optimized/ops/op_families.hpp"

namespace onemodel::opt {

std::unique_ptr<OpKernel> make_matmul_optimized(const NodeInfo& node, const OptimizedConfig& config);
std::unique_ptr<OpKernel> make_gemm_optimized(const NodeInfo& node, const OptimizedConfig& config);
std::unique_ptr<OpKernel> make_matmul_integer_optimized(const NodeInfo& node, const OptimizedConfig& config);
std::unique_ptr<OpKernel> make_qlinear_matmul_optimized(const NodeInfo& node, const OptimizedConfig& config);
std::unique_ptr<OpKernel> make_dequantize_linear_optimized(const NodeInfo& node, const OptimizedConfig& config);
std::unique_ptr<OpKernel> make_quantize_linear_optimized(const NodeInfo& node, const OptimizedConfig& config);
std::unique_ptr<OpKernel> make_dynamic_quantize_linear_optimized(const NodeInfo& node, const OptimizedConfig& config);

std::span<const OptimizedOpDef> matmul_optimized_ops() {
  static const OptimizedOpDef kOps[] = {
      {"", "MatMul", 1, 27, make_matmul_optimized},
      {"", "Gemm", 7, 10, make_gemm_optimized},
      {"", "Gemm", 11, 27, make_gemm_optimized},
      {"", "MatMulInteger", 10, 27, make_matmul_integer_optimized},
      {"", "QLinearMatMul", 10, 27, make_qlinear_matmul_optimized},
      {"", "DequantizeLinear", 10, 27, make_dequantize_linear_optimized},
      {"", "QuantizeLinear", 10, 27, make_quantize_linear_optimized},
      {"", "DynamicQuantizeLinear", 11, 27, make_dynamic_quantize_linear_optimized},
  };
  return kOps;
}

}  // namespace onemodel::opt
