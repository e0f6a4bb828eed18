// Rows of the operator table for this family. Add a row per (operator, opset range), and declare
// its factory above the table; the factory lives in reference/ops/op_<name>.cpp.
#include <vector>

#include "reference/ops/op_families.hpp"

namespace onemodel {

// Factories (reference/ops/op_<name>.cpp).
std::unique_ptr<OpKernel> make_quantize_linear(const NodeInfo& node);
std::unique_ptr<OpKernel> make_dequantize_linear(const NodeInfo& node);
std::unique_ptr<OpKernel> make_dynamic_quantize_linear(const NodeInfo& node);
std::unique_ptr<OpKernel> make_matmul_integer(const NodeInfo& node);
std::unique_ptr<OpKernel> make_conv_integer(const NodeInfo& node);
std::unique_ptr<OpKernel> make_qlinear_matmul(const NodeInfo& node);
std::unique_ptr<OpKernel> make_qlinear_conv(const NodeInfo& node);

std::span<const OpDef> quant_ops() {
  static const std::vector<OpDef> rows = {
      {"", "QuantizeLinear", 10, 27, make_quantize_linear, "F32 F16 BF16 I32"},
      {"", "DequantizeLinear", 10, 27, make_dequantize_linear, "I8 I16 I32 U8 U16 U4 I4 F4E2M1 U2 I2"},
      {"", "DynamicQuantizeLinear", 11, 27, make_dynamic_quantize_linear, "F32"},
      {"", "MatMulInteger", 10, 27, make_matmul_integer, "I8 U8"},
      {"", "ConvInteger", 10, 27, make_conv_integer, "I8 U8"},
      {"", "QLinearMatMul", 10, 27, make_qlinear_matmul, "I8 U8"},
      {"", "QLinearConv", 10, 27, make_qlinear_conv, "I8 U8"},
  };
  return rows;
}

}  // namespace onemodel
