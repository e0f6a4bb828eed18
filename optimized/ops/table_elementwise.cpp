// Optimized overrides of the elementwise family: float32 unary and binary kernels
// (optimized/kernels/elementwise/), Cast, Pow with a one-element exponent, the comparisons,
// Boolean operators and Where, and Transpose (optimized/kernels/transpose/). Each opset range
// lies inside the reference row's range (reference/ops/table_elementwise.cpp, table_shape.cpp).
#include "optimized/ops/op_families.hpp"

namespace onemodel::opt {

std::unique_ptr<OpKernel> make_optimized_abs(const NodeInfo&, const OptimizedConfig&);
// The mask operators (op_compare.cpp, op_where.cpp).
std::unique_ptr<OpKernel> make_optimized_and(const NodeInfo&, const OptimizedConfig&);
std::unique_ptr<OpKernel> make_optimized_equal(const NodeInfo&, const OptimizedConfig&);
std::unique_ptr<OpKernel> make_optimized_greater(const NodeInfo&, const OptimizedConfig&);
std::unique_ptr<OpKernel> make_optimized_greater_or_equal(const NodeInfo&, const OptimizedConfig&);
std::unique_ptr<OpKernel> make_optimized_less(const NodeInfo&, const OptimizedConfig&);
std::unique_ptr<OpKernel> make_optimized_less_or_equal(const NodeInfo&, const OptimizedConfig&);
std::unique_ptr<OpKernel> make_optimized_not(const NodeInfo&, const OptimizedConfig&);
std::unique_ptr<OpKernel> make_optimized_or(const NodeInfo&, const OptimizedConfig&);
std::unique_ptr<OpKernel> make_optimized_where(const NodeInfo&, const OptimizedConfig&);
std::unique_ptr<OpKernel> make_optimized_xor(const NodeInfo&, const OptimizedConfig&);
std::unique_ptr<OpKernel> make_optimized_add(const NodeInfo&, const OptimizedConfig&);
std::unique_ptr<OpKernel> make_optimized_cast(const NodeInfo&, const OptimizedConfig&);
std::unique_ptr<OpKernel> make_optimized_clip_6(const NodeInfo&, const OptimizedConfig&);
std::unique_ptr<OpKernel> make_optimized_clip_11(const NodeInfo&, const OptimizedConfig&);
std::unique_ptr<OpKernel> make_optimized_div(const NodeInfo&, const OptimizedConfig&);
std::unique_ptr<OpKernel> make_optimized_erf(const NodeInfo&, const OptimizedConfig&);
std::unique_ptr<OpKernel> make_optimized_exp(const NodeInfo&, const OptimizedConfig&);
std::unique_ptr<OpKernel> make_optimized_gelu(const NodeInfo&, const OptimizedConfig&);
std::unique_ptr<OpKernel> make_optimized_hard_sigmoid(const NodeInfo&, const OptimizedConfig&);
std::unique_ptr<OpKernel> make_optimized_hard_swish(const NodeInfo&, const OptimizedConfig&);
std::unique_ptr<OpKernel> make_optimized_leaky_relu(const NodeInfo&, const OptimizedConfig&);
std::unique_ptr<OpKernel> make_optimized_log(const NodeInfo&, const OptimizedConfig&);
std::unique_ptr<OpKernel> make_optimized_mul(const NodeInfo&, const OptimizedConfig&);
std::unique_ptr<OpKernel> make_optimized_neg(const NodeInfo&, const OptimizedConfig&);
std::unique_ptr<OpKernel> make_optimized_pow(const NodeInfo&, const OptimizedConfig&);
std::unique_ptr<OpKernel> make_optimized_relu(const NodeInfo&, const OptimizedConfig&);
std::unique_ptr<OpKernel> make_optimized_sigmoid(const NodeInfo&, const OptimizedConfig&);
std::unique_ptr<OpKernel> make_optimized_sqrt(const NodeInfo&, const OptimizedConfig&);
std::unique_ptr<OpKernel> make_optimized_sub(const NodeInfo&, const OptimizedConfig&);
std::unique_ptr<OpKernel> make_optimized_tanh(const NodeInfo&, const OptimizedConfig&);
std::unique_ptr<OpKernel> make_optimized_transpose(const NodeInfo&, const OptimizedConfig&);

std::span<const OptimizedOpDef> elementwise_optimized_ops() {
  static const OptimizedOpDef kOps[] = {
      {"", "Abs", 6, 27, make_optimized_abs},
      {"", "Add", 7, 27, make_optimized_add},
      {"", "Cast", 6, 27, make_optimized_cast},
      {"", "Clip", 6, 10, make_optimized_clip_6},
      {"", "Clip", 11, 27, make_optimized_clip_11},
      {"", "Div", 7, 27, make_optimized_div},
      {"", "Erf", 9, 27, make_optimized_erf},
      {"", "Exp", 6, 27, make_optimized_exp},
      {"", "Gelu", 20, 27, make_optimized_gelu},
      {"", "HardSigmoid", 6, 27, make_optimized_hard_sigmoid},
      {"", "HardSwish", 14, 27, make_optimized_hard_swish},
      {"", "LeakyRelu", 6, 27, make_optimized_leaky_relu},
      {"", "Log", 6, 27, make_optimized_log},
      {"", "Mul", 7, 27, make_optimized_mul},
      {"", "Neg", 6, 27, make_optimized_neg},
      {"", "Pow", 7, 27, make_optimized_pow},
      {"", "Relu", 6, 27, make_optimized_relu},
      {"", "Sigmoid", 6, 27, make_optimized_sigmoid},
      {"", "Sqrt", 6, 27, make_optimized_sqrt},
      {"", "Sub", 7, 27, make_optimized_sub},
      {"", "Tanh", 6, 27, make_optimized_tanh},
      {"", "Transpose", 1, 27, make_optimized_transpose},
      // The mask operators (op_compare.cpp, op_where.cpp): the reference rows' ranges.
      {"", "And", 7, 27, make_optimized_and},
      {"", "Equal", 7, 27, make_optimized_equal},
      {"", "Greater", 7, 27, make_optimized_greater},
      {"", "GreaterOrEqual", 12, 27, make_optimized_greater_or_equal},
      {"", "Less", 7, 27, make_optimized_less},
      {"", "LessOrEqual", 12, 27, make_optimized_less_or_equal},
      {"", "Not", 1, 27, make_optimized_not},
      {"", "Or", 7, 27, make_optimized_or},
      {"", "Where", 9, 27, make_optimized_where},
      {"", "Xor", 7, 27, make_optimized_xor},
  };
  return kOps;
}

}  // namespace onemodel::opt
