// Rows of the operator table for this family. Add a row per (operator, opset range), and declare
// its factory above the table; the factory lives in reference/ops/op_<name>.cpp (Clip_6 and
// Clip_11 both in op_clip.cpp). Opsets as in spec/ops/elementwise.md section 1.
#include <vector>

#include "reference/ops/op_families.hpp"

namespace onemodel {

// Factories (reference/ops/op_<name>.cpp).
std::unique_ptr<OpKernel> make_add_6(const NodeInfo&);
std::unique_ptr<OpKernel> make_sub_6(const NodeInfo&);
std::unique_ptr<OpKernel> make_mul_6(const NodeInfo&);
std::unique_ptr<OpKernel> make_div_6(const NodeInfo&);
std::unique_ptr<OpKernel> make_pow_1(const NodeInfo&);
std::unique_ptr<OpKernel> make_prelu_6(const NodeInfo&);
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
std::unique_ptr<OpKernel> make_acos(const NodeInfo&);
std::unique_ptr<OpKernel> make_acosh(const NodeInfo&);
std::unique_ptr<OpKernel> make_asin(const NodeInfo&);
std::unique_ptr<OpKernel> make_asinh(const NodeInfo&);
std::unique_ptr<OpKernel> make_atan(const NodeInfo&);
std::unique_ptr<OpKernel> make_atanh(const NodeInfo&);
std::unique_ptr<OpKernel> make_cosh(const NodeInfo&);
std::unique_ptr<OpKernel> make_sinh(const NodeInfo&);
std::unique_ptr<OpKernel> make_tan(const NodeInfo&);
std::unique_ptr<OpKernel> make_softplus(const NodeInfo&);
std::unique_ptr<OpKernel> make_softsign(const NodeInfo&);
std::unique_ptr<OpKernel> make_sqrt(const NodeInfo&);
std::unique_ptr<OpKernel> make_swish(const NodeInfo&);
std::unique_ptr<OpKernel> make_sub(const NodeInfo&);
std::unique_ptr<OpKernel> make_sum(const NodeInfo&);
std::unique_ptr<OpKernel> make_tanh(const NodeInfo&);
std::unique_ptr<OpKernel> make_thresholded_relu(const NodeInfo&);
std::unique_ptr<OpKernel> make_where(const NodeInfo&);
std::unique_ptr<OpKernel> make_xor(const NodeInfo&);

std::span<const OpDef> elementwise_ops() {
  static const std::vector<OpDef> rows = {
      {"", "Abs", 6, 27, make_abs, "F32 F64 F16 I8 I16 I32 I64 U8 U16 U32 U64"},
      {"", "Acos", 7, 27, make_acos, "F32 F64"},
      {"", "Acosh", 9, 27, make_acosh, "F32 F64"},
      // Opset 6 (Pow: 1 to 6): the legacy broadcast and axis attributes (section 11).
      {"", "Add", 6, 6, make_add_6, "F32 F64 F16 I8 I16 I32 I64 U8 U16 U32 U64"},
      {"", "Add", 7, 27, make_add, "F32 F64 F16 I8 I16 I32 I64 U8 U16 U32 U64"},
      {"", "And", 7, 27, make_and, "Bool"},
      {"", "Asin", 7, 27, make_asin, "F32 F64"},
      {"", "Asinh", 9, 27, make_asinh, "F32 F64"},
      {"", "Atan", 7, 27, make_atan, "F32 F64"},
      {"", "Atanh", 9, 27, make_atanh, "F32 F64"},
      {"", "BitShift", 11, 27, make_bit_shift, "U8 U16 U32 U64"},
      {"", "BitwiseAnd", 18, 27, make_bitwise_and, "I8 I16 I32 I64 U8 U16 U32 U64"},
      {"", "BitwiseNot", 18, 27, make_bitwise_not, "I8 I16 I32 I64 U8 U16 U32 U64"},
      {"", "BitwiseOr", 18, 27, make_bitwise_or, "I8 I16 I32 I64 U8 U16 U32 U64"},
      {"", "BitwiseXor", 18, 27, make_bitwise_xor, "I8 I16 I32 I64 U8 U16 U32 U64"},
      {"", "Cast", 6, 27, make_cast, "F32 F64 F16 BF16 I8 I16 I32 I64 U8 U16 U32 U64 Bool String F8E4M3FN F8E4M3FNUZ F8E5M2 F8E5M2FNUZ F8E8M0 U4 I4 F4E2M1 U2 I2"},
      {"", "CastLike", 15, 27, make_cast_like, "F32 F64 F16 BF16 I8 I16 I32 I64 U8 U16 U32 U64 Bool String F8E4M3FN F8E4M3FNUZ F8E5M2 F8E5M2FNUZ F8E8M0 U4 I4 F4E2M1 U2 I2"},
      {"", "Ceil", 6, 27, make_ceil, "F32 F64 F16"},
      {"", "Celu", 12, 27, make_celu, "F32"},
      {"", "Clip", 6, 10, make_clip_6, "F32 F64 F16"},
      {"", "Clip", 11, 27, make_clip_11, "F32 F64 F16 I8 I16 I32 I64 U8 U16 U32 U64"},
      {"", "Cos", 7, 27, make_cos, "F32 F64"},
      {"", "Cosh", 9, 27, make_cosh, "F32 F64"},
      {"", "Div", 6, 6, make_div_6, "F32 F64 F16 I8 I16 I32 I64 U8 U16 U32 U64"},
      {"", "Div", 7, 27, make_div, "F32 F64 F16 I8 I16 I32 I64 U8 U16 U32 U64"},
      {"", "Elu", 6, 27, make_elu, "F32 F64"},
      // String from opset 19 only (the kernel serves strings there: spec/ops/strings.md section 2).
      {"", "Equal", 7, 27, make_equal, "F32 F64 F16 I8 I16 I32 I64 U8 U16 U32 U64 Bool String"},
      {"", "Erf", 9, 27, make_erf, "F32 F64"},
      {"", "Exp", 6, 27, make_exp, "F32 F64"},
      {"", "Floor", 6, 27, make_floor, "F32 F64 F16"},
      {"", "Gelu", 20, 27, make_gelu, "F32 F64"},
      {"", "Greater", 7, 27, make_greater, "F32 F64 F16 I8 I16 I32 I64 U8 U16 U32 U64"},
      {"", "GreaterOrEqual", 12, 27, make_greater_or_equal, "F32 F64 F16 I8 I16 I32 I64 U8 U16 U32 U64"},
      {"", "HardSigmoid", 6, 27, make_hard_sigmoid, "F32 F64"},
      {"", "HardSwish", 14, 27, make_hard_swish, "F32 F64"},
      {"", "IsInf", 10, 27, make_is_inf, "F32 F64 F16 BF16"},
      {"", "IsNaN", 9, 27, make_is_nan, "F32 F64 F16 BF16"},
      {"", "LeakyRelu", 6, 27, make_leaky_relu, "F32 F64"},
      {"", "Less", 7, 27, make_less, "F32 F64 F16 I8 I16 I32 I64 U8 U16 U32 U64"},
      {"", "LessOrEqual", 12, 27, make_less_or_equal, "F32 F64 F16 I8 I16 I32 I64 U8 U16 U32 U64"},
      {"", "Log", 6, 27, make_log, "F32 F64"},
      {"", "Max", 6, 27, make_max, "F32 F64 F16 I8 I16 I32 I64 U8 U16 U32 U64"},
      {"", "Mean", 6, 27, make_mean, "F32 F64 F16"},
      {"", "Min", 6, 27, make_min, "F32 F64 F16 I8 I16 I32 I64 U8 U16 U32 U64"},
      {"", "Mish", 18, 27, make_mish, "F32 F64"},
      // Mod: the floats only with fmod = 1 (fmod = 0 refuses them, InvalidModel).
      {"", "Mod", 10, 27, make_mod, "F32 F64 F16 I8 I16 I32 I64 U8 U16 U32 U64"},
      {"", "Mul", 6, 6, make_mul_6, "F32 F64 F16 I8 I16 I32 I64 U8 U16 U32 U64"},
      {"", "Mul", 7, 27, make_mul, "F32 F64 F16 I8 I16 I32 I64 U8 U16 U32 U64"},
      {"", "Neg", 6, 27, make_neg, "F32 F64 F16 I8 I16 I32 I64"},
      {"", "Not", 1, 27, make_not, "Bool"},
      {"", "Or", 7, 27, make_or, "Bool"},
      {"", "PRelu", 6, 6, make_prelu_6, "F32 F64 F16 I8 I16 I32 I64"},
      {"", "PRelu", 7, 27, make_prelu, "F32 F64 F16 I8 I16 I32 I64"},
      {"", "Pow", 1, 6, make_pow_1, "F32 F64 I32 I64"},
      {"", "Pow", 7, 27, make_pow, "F32 F64 I32 I64"},  // the base X; Y: F32 F64 I32 I64 U32 U64
      {"", "Reciprocal", 6, 27, make_reciprocal, "F32 F64 F16"},
      {"", "Relu", 6, 27, make_relu, "F32 F64 F16 I8 I16 I32 I64"},
      {"", "Round", 11, 27, make_round, "F32 F64 F16"},
      {"", "Selu", 6, 27, make_selu, "F32 F64"},
      {"", "Shrink", 9, 27, make_shrink, "F32 F64"},
      {"", "Sigmoid", 6, 27, make_sigmoid, "F32 F64"},
      {"", "Sign", 9, 27, make_sign, "F32 F64 F16 I8 I16 I32 I64 U8 U16 U32 U64"},
      {"", "Sin", 7, 27, make_sin, "F32 F64"},
      {"", "Sinh", 9, 27, make_sinh, "F32 F64"},
      {"", "Softplus", 1, 27, make_softplus, "F32 F64"},
      {"", "Softsign", 1, 27, make_softsign, "F32 F64"},
      {"", "Sqrt", 6, 27, make_sqrt, "F32 F64 F16"},
      {"", "Sub", 6, 6, make_sub_6, "F32 F64 F16 I8 I16 I32 I64 U8 U16 U32 U64"},
      {"", "Sub", 7, 27, make_sub, "F32 F64 F16 I8 I16 I32 I64 U8 U16 U32 U64"},
      {"", "Sum", 6, 27, make_sum, "F32 F64 F16"},
      {"", "Swish", 24, 27, make_swish, "F32 F64"},
      {"", "Tan", 7, 27, make_tan, "F32 F64"},
      {"", "Tanh", 6, 27, make_tanh, "F32 F64"},
      {"", "ThresholdedRelu", 10, 27, make_thresholded_relu, "F32 F64"},
      // Where: the types of X and Y (inputs 1 and 2); the condition is Bool.
      {"", "Where", 9, 27, make_where, "F32 F64 F16 BF16 I8 I16 I32 I64 U8 U16 U32 U64 Bool String"},
      {"", "Xor", 7, 27, make_xor, "Bool"},
  };
  return rows;
}

}  // namespace onemodel
