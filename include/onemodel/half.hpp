// Conversions between binary32 and the two 16-bit storage formats, binary16 (IEEE 754 half) and
// bfloat16, as integer bit manipulation. The rules are spec/half-precision.md; every narrowing
// rounds to nearest, ties to even, and every widening is exact, so the results are the same bits
// on every machine (exact mode relies on this).
#pragma once

#include <cstdint>
#include <span>

// The shared library exports what this header declares and nothing else (CMakeLists.txt:
// the library is compiled with -fvisibility=hidden; docs/design.md "Installed package").
#pragma GCC visibility push(default)

namespace onemodel {

// spec/half-precision.md section 2: binary32 -> binary16, round to nearest even; NaN stays NaN
// (quiet, top payload bits kept), |x| >= 65520 becomes infinity.
std::uint16_t float_to_half_bits(float value) noexcept;

// spec/half-precision.md section 3: binary16 -> binary32, exact; NaN gets the quiet bit.
float half_bits_to_float(std::uint16_t bits) noexcept;

// spec/half-precision.md section 4: binary32 -> bfloat16, round to nearest even; NaN made quiet.
std::uint16_t float_to_bfloat16_bits(float value) noexcept;

// spec/half-precision.md section 5: bfloat16 -> binary32, exact; NaN gets the quiet bit.
float bfloat16_bits_to_float(std::uint16_t bits) noexcept;

// Bulk forms: element i of `out` is the scalar conversion of element i of `in`. The two spans
// must have the same size (checked by the caller; the functions convert min(in, out) values).
void floats_to_half_bits(std::span<const float> in, std::span<std::uint16_t> out) noexcept;
void half_bits_to_floats(std::span<const std::uint16_t> in, std::span<float> out) noexcept;
void floats_to_bfloat16_bits(std::span<const float> in, std::span<std::uint16_t> out) noexcept;
void bfloat16_bits_to_floats(std::span<const std::uint16_t> in, std::span<float> out) noexcept;

}  // namespace onemodel

#pragma GCC visibility pop
