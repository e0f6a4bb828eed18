// Cast and CastLike from and to the sub-byte types UINT4, INT4, FLOAT4E2M1, UINT2, INT2
// (spec/ops/elementwise.md section 7, "Sub-byte types"), apart from cast_convert.hpp so that the
// element-tag dispatch of the other types is unchanged:
//   float -> 4/2-bit integer: nearest integer, ties to even, then modulo 2^bits; NaN, inf give 0;
//   integer or Bool -> 4/2-bit integer: modulo 2^bits (ONNX's "discard higher bits");
//   anything -> FLOAT4E2M1: the value rounded to nearest, ties to even code, saturating at +-6
//     (binary64 sources rounded once; NaN gives zero of the opposite sign, spec/tensors.md 2.1);
//   4/2-bit integer -> anything: its integer value by Cast's integer rules;
//   FLOAT4E2M1 -> anything: its value (exact in every float type) by Cast's float rules.
#pragma once

#include "core/graph/op_kernel.hpp"

namespace onemodel::ew {

// Unsupported naming the node, input and type unless input `input` is a stored type or a
// sub-byte type.
void require_castable(const InferContext& context, std::size_t input);

// True when Cast between these types goes through convert_subbyte_tensor.
bool is_subbyte_cast(DType from, DType to) noexcept;

// Converts every element of `in` into `out` (contiguous, same shape); one of the two types is a
// sub-byte type.
void convert_subbyte_tensor(const Tensor& in, const Tensor& out);

}  // namespace onemodel::ew
