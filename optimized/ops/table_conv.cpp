// Optimized overrides of the conv family: Conv (im2col + matrix product, direct depthwise) and
// ConvTranspose (matrix product + col2im); ConvInteger and QLinearConv on the integer product
// kernel (im2col + int8.md's product). Ranges lie inside the reference rows (1-27).
#include "optimized/ops/op_families.hpp"

namespace onemodel::opt {

std::unique_ptr<OpKernel> make_optimized_conv(const NodeInfo& node, const OptimizedConfig& config);
std::unique_ptr<OpKernel> make_optimized_conv_transpose(const NodeInfo& node, const OptimizedConfig& config);
std::unique_ptr<OpKernel> make_conv_integer_optimized(const NodeInfo& node, const OptimizedConfig& config);
std::unique_ptr<OpKernel> make_qlinear_conv_optimized(const NodeInfo& node, const OptimizedConfig& config);

std::span<const OptimizedOpDef> conv_optimized_ops() {
  static const OptimizedOpDef ops[] = {
      {"", "Conv", 1, 27, make_optimized_conv},
      {"", "ConvTranspose", 1, 27, make_optimized_conv_transpose},
      {"", "ConvInteger", 10, 27, make_conv_integer_optimized},
      {"", "QLinearConv", 10, 27, make_qlinear_conv_optimized},
  };
  return ops;
}

}  // namespace onemodel::opt
