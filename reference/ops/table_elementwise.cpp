// Rows of the operator table for this family. Add a row per (operator, opset range), and declare
// its factory above the table; the factory lives in reference/ops/op_<name>.cpp (Clip_6 and
// Clip_11 both in op_clip.cpp). Opsets as in spec/ops/elementwise.md section 1.
#include <vector>

#include "reference/ops/op_families.hpp"

namespace onemodel {

// Factories (reference/ops/op_<name>.cpp).
std::unique_ptr<OpKernel> make_abs(const NodeInfo&);
std::unique_ptr<OpKernel> make_add(const NodeInfo&);
std::unique_ptr<OpKernel> make_and(const NodeInfo&);
std::unique_ptr<OpKernel> make_bit_shift(const NodeInfo&);
std::unique_ptr<OpKernel> make_bitwise_and(const NodeInfo&);
std::unique_ptr<OpKernel> make_bitwise_not(const NodeInfo&);
std::unique_ptr<OpKernel> make_bitwise_or(const NodeInfo&);
std::unique_ptr<OpKernel> make_bitwise_xor(const NodeInfo&);
std::unique_ptr<OpKernel> make_cast(const NodeInfo&);
std::unique_ptr<OpKernel> make_cast_like(const NodeInfo&);
std::unique_ptr<OpKernel> make_ceil(const NodeInfo&);
std::unique_ptr<OpKernel> make_celu(const NodeInfo&);
std::unique_ptr<OpKernel> make_clip_11(const NodeInfo&);
std::unique_ptr<OpKernel> make_clip_6(const NodeInfo&);
std::unique_ptr<OpKernel> make_cos(const NodeInfo&);
std::unique_ptr<OpKernel> make_div(const NodeInfo&);
std::unique_ptr<OpKernel> make_elu(const NodeInfo&);
std::unique_ptr<OpKernel> make_equal(const NodeInfo&);
std::unique_ptr<OpKernel> make_erf(const NodeInfo&);
std::unique_ptr<OpKernel> make_exp(const NodeInfo&);
std::unique_ptr<OpKernel> make_floor(const NodeInfo&);
std::unique_ptr<OpKernel> make_gelu(const NodeInfo&);
std::unique_ptr<OpKernel> make_greater(const NodeInfo&);
std::unique_ptr<OpKernel> make_greater_or_equal(const NodeInfo&);
std::unique_ptr<OpKernel> make_hard_sigmoid(const NodeInfo&);
std::unique_ptr<OpKernel> make_hard_swish(const NodeInfo&);
std::unique_ptr<OpKernel> make_is_inf(const NodeInfo&);
std::unique_ptr<OpKernel> make_is_nan(const NodeInfo&);
std::unique_ptr<OpKernel> make_leaky_relu(const NodeInfo&);
std::unique_ptr<OpKernel> make_less(const NodeInfo&);
std::unique_ptr<OpKernel> make_less_or_equal(const NodeInfo&);
std::unique_ptr<OpKernel> make_log(const NodeInfo&);
std::unique_ptr<OpKernel> make_max(const NodeInfo&);
std::unique_ptr<OpKernel> make_mean(const NodeInfo&);
std::unique_ptr<OpKernel> make_min(const NodeInfo&);
std::unique_ptr<OpKernel> make_mish(const NodeInfo&);
std::unique_ptr<OpKernel> make_mod(const NodeInfo&);
std::unique_ptr<OpKernel> make_mul(const NodeInfo&);
std::unique_ptr<OpKernel> make_neg(const NodeInfo&);
std::unique_ptr<OpKernel> make_not(const NodeInfo&);
std::unique_ptr<OpKernel> make_or(const NodeInfo&);
std::unique_ptr<OpKernel> make_pow(const NodeInfo&);
std::unique_ptr<OpKernel> make_prelu(const NodeInfo&);
std::unique_ptr<OpKernel> make_reciprocal(const NodeInfo&);
std::unique_ptr<OpKernel> make_relu(const NodeInfo&);
std::unique_ptr<OpKernel> make_round(const NodeInfo&);
std::unique_ptr<OpKernel> make_selu(const NodeInfo&);
std::unique_ptr<OpKernel> make_shrink(const NodeInfo&);
std::unique_ptr<OpKernel> make_sigmoid(const NodeInfo&);
std::unique_ptr<OpKernel> make_sign(const NodeInfo&);
std::unique_ptr<OpKernel> make_sin(const NodeInfo&);
std::unique_ptr<OpKernel> make_softplus(const NodeInfo&);
std::unique_ptr<OpKernel> make_softsign(const NodeInfo&);
std::unique_ptr<OpKernel> make_sqrt(const NodeInfo&);
std::unique_ptr<OpKernel> make_sub(const NodeInfo&);
std::unique_ptr<OpKernel> make_sum(const NodeInfo&);
std::unique_ptr<OpKernel> make_tanh(const NodeInfo&);
std::unique_ptr<OpKernel> make_thresholded_relu(const NodeInfo&);
std::unique_ptr<OpKernel> make_where(const NodeInfo&);
std::unique_ptr<OpKernel> make_xor(const NodeInfo&);

std::span<const OpDef> elementwise_ops() {
  static const std::vector<OpDef> rows = {
      {"", "Abs", 6, 27, make_abs},
      {"", "Add", 7, 27, make_add},
      {"", "And", 7, 27, make_and},
      {"", "BitShift", 11, 27, make_bit_shift},
      {"", "BitwiseAnd", 18, 27, make_bitwise_and},
      {"", "BitwiseNot", 18, 27, make_bitwise_not},
      {"", "BitwiseOr", 18, 27, make_bitwise_or},
      {"", "BitwiseXor", 18, 27, make_bitwise_xor},
      {"", "Cast", 6, 27, make_cast},
      {"", "CastLike", 15, 27, make_cast_like},
      {"", "Ceil", 6, 27, make_ceil},
      {"", "Celu", 12, 27, make_celu},
      {"", "Clip", 6, 10, make_clip_6},
      {"", "Clip", 11, 27, make_clip_11},
      {"", "Cos", 7, 27, make_cos},
      {"", "Div", 7, 27, make_div},
      {"", "Elu", 6, 27, make_elu},
      {"", "Equal", 7, 27, make_equal},
      {"", "Erf", 9, 27, make_erf},
      {"", "Exp", 6, 27, make_exp},
      {"", "Floor", 6, 27, make_floor},
      {"", "Gelu", 20, 27, make_gelu},
      {"", "Greater", 7, 27, make_greater},
      {"", "GreaterOrEqual", 12, 27, make_greater_or_equal},
      {"", "HardSigmoid", 6, 27, make_hard_sigmoid},
      {"", "HardSwish", 14, 27, make_hard_swish},
      {"", "IsInf", 10, 27, make_is_inf},
      {"", "IsNaN", 9, 27, make_is_nan},
      {"", "LeakyRelu", 6, 27, make_leaky_relu},
      {"", "Less", 7, 27, make_less},
      {"", "LessOrEqual", 12, 27, make_less_or_equal},
      {"", "Log", 6, 27, make_log},
      {"", "Max", 6, 27, make_max},
      {"", "Mean", 6, 27, make_mean},
      {"", "Min", 6, 27, make_min},
      {"", "Mish", 18, 27, make_mish},
      {"", "Mod", 10, 27, make_mod},
      {"", "Mul", 7, 27, make_mul},
      {"", "Neg", 6, 27, make_neg},
      {"", "Not", 1, 27, make_not},
      {"", "Or", 7, 27, make_or},
      {"", "PRelu", 7, 27, make_prelu},
      {"", "Pow", 7, 27, make_pow},
      {"", "Reciprocal", 6, 27, make_reciprocal},
      {"", "Relu", 6, 27, make_relu},
      {"", "Round", 11, 27, make_round},
      {"", "Selu", 6, 27, make_selu},
      {"", "Shrink", 9, 27, make_shrink},
      {"", "Sigmoid", 6, 27, make_sigmoid},
      {"", "Sign", 9, 27, make_sign},
      {"", "Sin", 7, 27, make_sin},
      {"", "Softplus", 1, 27, make_softplus},
      {"", "Softsign", 1, 27, make_softsign},
      {"", "Sqrt", 6, 27, make_sqrt},
      {"", "Sub", 7, 27, make_sub},
      {"", "Sum", 6, 27, make_sum},
      {"", "Tanh", 6, 27, make_tanh},
      {"", "ThresholdedRelu", 10, 27, make_thresholded_relu},
      {"", "Where", 9, 27, make_where},
      {"", "Xor", 7, 27, make_xor},
  };
  return rows;
}

}  // namespace onemodel
