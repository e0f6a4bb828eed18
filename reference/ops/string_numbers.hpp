// Numbers as text for Cast and CastLike to and from STRING (spec/ops/strings.md section 1).
// Shared helper of reference/ops/cast_convert.cpp.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace onemodel::ew {

// A floating-point value as ONNX Runtime writes it: "NaN", "INF", "-INF", else printf's "%.8g"
// (8 significant digits, exponent form below 1e-4 and from 1e8, "-0" for negative zero), with
// '.' as the decimal point whatever the C locale says.
std::string format_floating(double value);
// Integers in decimal.
std::string format_signed(std::int64_t value);
std::string format_unsigned(std::uint64_t value);

// The number a string holds, after optional ASCII whitespace on both sides: a decimal literal
// (sign, digits with an optional point, optional exponent), or "INF", "+INF", "-INF",
// "INFINITY", "NAN" (any case, NaN with an optional sign). nullopt for anything else (hex, trailing
// text, an empty string). `as_float` rounds once to binary32 (strtof) instead of binary64.
std::optional<double> parse_floating(std::string_view text, bool as_float);
// A decimal integer literal (optional sign, digits, nothing else but surrounding whitespace),
// reduced modulo 2^64 as integer casts wrap; nullopt when the text is not one.
std::optional<std::uint64_t> parse_integer_bits(std::string_view text);

}  // namespace onemodel::ew
