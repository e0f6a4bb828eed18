// Whole-tensor conversions between binary32 and the 16-bit storage types, for the half-precision
// adapter (spec/half-precision.md sections 2-5 per element, section 8 for their use).
#pragma once

#include "onemodel/tensor.hpp"

namespace onemodel {

// A fresh binary32 tensor holding `half` (F16 or BF16, any strides) widened, exactly.
Tensor widen_tensor(const Tensor& half);
// `half` widened into `out`, a contiguous F32 tensor of the same shape.
void widen_into(const Tensor& half, const Tensor& out);
// `f32` (contiguous) rounded to nearest even into `out`, a contiguous F16 or BF16 tensor of the
// same shape.
void narrow_into(const Tensor& f32, const Tensor& out);
// A fresh tensor of `type` (F16 or BF16) holding `f32` rounded.
Tensor narrow_tensor(const Tensor& f32, DType type);

}  // namespace onemodel
