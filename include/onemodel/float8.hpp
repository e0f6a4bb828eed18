// Conversions between binary32/binary64 and the five 8-bit float formats of ONNX (issue 17):
// FLOAT8E4M3FN, FLOAT8E4M3FNUZ, FLOAT8E5M2, FLOAT8E5M2FNUZ and FLOAT8E8M0. The rules are
// spec/tensors.md section 2.1 (from the ONNX Cast schema, opsets 19 to 25). Integer operations on
// the bit patterns, so the results are the same bits on every machine (exact mode relies on it).
// Every narrowing rounds once, from the exact source value: the binary64 form does not go
// through binary32 (which would round twice).
#pragma once

#include <cstdint>

// The shared library exports what this header declares and nothing else (CMakeLists.txt:
// the library is compiled with -fvisibility=hidden; docs/design.md "Installed package").
#pragma GCC visibility push(default)

namespace onemodel {

// The five formats; each value is the format's ONNX TensorProto.DataType code (= its DType).
enum class Float8Format : std::int32_t {
  E4M3FN = 17,    // bias 7, no infinity, NaN S.1111.111, max 448
  E4M3FNUZ = 18,  // bias 8, no infinity, no -0, NaN 0x80, max 240
  E5M2 = 19,      // bias 15, IEEE-like: infinity S.11111.00, NaN S.11111.xx, max 57344
  E5M2FNUZ = 20,  // bias 16, no infinity, no -0, NaN 0x80, max 57344
  E8M0 = 24,      // 2^(b - 127) for b = 0..254, NaN 0xFF, no sign, no zero
};

// FLOAT8E8M0's rounding (Cast's `round_mode`, opset 24 on): Up = to the next power of two away
// from zero (the default), Down = toward zero, Nearest = nearest, ties (1.5 * 2^k) up.
enum class E8M0Rounding : std::int32_t { Up, Down, Nearest };

// True for the five codes above.
bool is_float8_code(std::int32_t code) noexcept;

// spec/tensors.md section 2.1: the exact binary32 value of an 8-bit pattern (every value of the
// five formats is a binary32 number). A NaN pattern gives a quiet binary32 NaN with its sign
// (FNUZ and E8M0 NaN are positive).
float float8_bits_to_float(Float8Format format, std::uint8_t bits) noexcept;

// spec/tensors.md section 2.1: binary32 -> 8 bits. E4M3FN, E4M3FNUZ, E5M2, E5M2FNUZ round to
// nearest, ties to even; E8M0 by `rounding`. `saturate` chooses the overflow rule of ONNX's tables
// (the largest finite value of the sign, or NaN / infinity).
std::uint8_t float_to_float8_bits(Float8Format format, float value, bool saturate,
                                  E8M0Rounding rounding = E8M0Rounding::Up) noexcept;

// The same rules applied to the exact binary64 value (one rounding).
std::uint8_t double_to_float8_bits(Float8Format format, double value, bool saturate,
                                   E8M0Rounding rounding = E8M0Rounding::Up) noexcept;

}  // namespace onemodel

#pragma GCC visibility pop
