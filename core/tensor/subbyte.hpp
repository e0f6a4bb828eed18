// The sub-byte element types UINT4, INT4, FLOAT4E2M1, UINT2, INT2 (spec/tensors.md section 2.2):
// their packing in files and their scalar conversions. In memory a tensor of these types holds one
// element per byte (I4 and I2 sign-extended, U4 and U2 zero-extended, F4E2M1 the 4-bit code in
// the low bits), so every view, stride, size and kernel that moves bytes stays valid; the packed
// form (ONNX raw_data and int32_data, the OneModel format) exists only in IrTensor bytes and is
// turned into elements where an IrTensor becomes a Tensor (tensor_from_ir) and back (tests,
// graph builders).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "onemodel/dtype.hpp"

namespace onemodel {

// True for U4, I4, F4E2M1, U2, I2.
bool dtype_is_subbyte(DType type) noexcept;
// Bits per element in packed form: 4 (U4, I4, F4E2M1), 2 (U2, I2); 0 for every other type.
int subbyte_bits(DType type) noexcept;
// ceil(count * bits / 8) without overflow for count < 2^60.
std::uint64_t subbyte_packed_length(std::uint64_t count, int bits) noexcept;

// Packs one element per byte into the ONNX layout: element k in bits (k % per_byte) * bits of
// byte k / per_byte, first element in the least significant bits; the unused high bits of the
// last byte are zero. Only the low `bits` of each element byte are kept.
std::vector<std::byte> pack_subbyte(DType type, std::span<const std::byte> elements);
// The inverse: `elements.size()` elements from `packed`, which must hold exactly
// subbyte_packed_length(elements.size(), bits) bytes (TensorError(Shape) otherwise). Signed types
// are sign-extended; the padding bits of the last byte are ignored.
void unpack_subbyte(DType type, std::span<const std::byte> packed, std::span<std::byte> elements);

// True when `byte` is a valid in-memory element of `type`: a sign-extended INT4/INT2 value, a
// UINT4/UINT2 value, a FLOAT4E2M1 code (below 16).
bool subbyte_byte_is_valid(DType type, std::uint8_t byte) noexcept;

// FLOAT4E2M1 (spec/tensors.md section 2.2): sign bit 3, exponent bits 2..1 (bias 1), mantissa bit
// 0; no infinity, no NaN. Magnitudes of codes 0..7: 0, 0.5, 1, 1.5, 2, 3, 4, 6.
float float4e2m1_to_float(std::uint8_t code) noexcept;
// binary32 -> FLOAT4E2M1, round to nearest, ties to the even code; |x| > 6 and infinities
// saturate to +-6; a NaN gives zero with the opposite sign (the ONNX backend data; section 2.2).
// Proved equal to the IEEE definition for all 2^32 inputs (proofs/float4_rounding).
std::uint8_t float_to_float4e2m1(float value) noexcept;
// The same rule applied to a binary64 value directly (one rounding, not two through binary32).
std::uint8_t double_to_float4e2m1(double value) noexcept;

// Cast to the 4- and 2-bit integer types (spec/ops/elementwise.md section 7): a float is rounded to
// the nearest integer, ties to even, then reduced modulo 2^bits (two's complement for the signed
// types, as ONNX's fixed-point rule "discard higher bits"); NaN and infinities give 0. The result
// is the in-memory byte (sign-extended for I4, I2).
std::uint8_t subbyte_integer_from_double(DType type, double value) noexcept;
// An integer (its low bits: any two's-complement width) reduced modulo 2^bits.
std::uint8_t subbyte_integer_from_bits(DType type, std::uint64_t value) noexcept;

}  // namespace onemodel
