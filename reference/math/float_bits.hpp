// Bit-level helpers shared by the exact transcendental functions (reference/math/exact_*.cpp).
// spec/exact-transcendentals.md section 1: only binary32 + - * /, comparisons, bit operations and
// 32-bit integer add/subtract/shift on a float's bit pattern. Integer arithmetic on bit patterns
// is done in uint32 (wrap-around is defined) and reinterpreted; memcpy rather than std::bit_cast
// because emscripten's libc++ lacks std::bit_cast (DESIGN.md section 4).
#pragma once

#include <cstdint>
#include <cstring>

namespace onemodel::exact::detail {

inline std::uint32_t bits_of(float x) noexcept {
  std::uint32_t u;
  std::memcpy(&u, &x, sizeof u);
  return u;
}

inline float float_from_bits(std::uint32_t u) noexcept {
  float x;
  std::memcpy(&x, &u, sizeof x);
  return x;
}

// The same for binary64 (the double-precision steps of exact Pow and of CTC's exp and ln).
inline std::uint64_t bits64_of(double x) noexcept {
  std::uint64_t u;
  std::memcpy(&u, &x, sizeof u);
  return u;
}

inline double double_from_bits(std::uint64_t u) noexcept {
  double x;
  std::memcpy(&x, &u, sizeof x);
  return x;
}

// spec/exact-transcendentals.md section 1: every NaN result is the canonical quiet NaN 0x7FC00000.
inline constexpr std::uint32_t kCanonicalNanBits = 0x7FC00000u;
inline float canonical_nan() noexcept { return float_from_bits(kCanonicalNanBits); }

inline constexpr std::uint32_t kSignBit = 0x80000000u;

// |x| by clearing the sign bit (a bit operation, no rounding).
inline float abs_bits(float x) noexcept { return float_from_bits(bits_of(x) & ~kSignBit); }

// The sign bit of `sign_source` OR-ed onto `magnitude`.
inline float or_sign(float magnitude, float sign_source) noexcept {
  return float_from_bits(bits_of(magnitude) | (bits_of(sign_source) & kSignBit));
}

// Arithmetic shift right of a 32-bit two's-complement value (C++20 defines >> on negative
// signed values as arithmetic; the conversion from uint32 wraps modulo 2^32).
inline std::int32_t arithmetic_shift_right(std::uint32_t value, int amount) noexcept {
  return static_cast<std::int32_t>(value) >> amount;
}

// spec/exact-transcendentals.md section 1: "round to nearest integer" uses M = 1.5 * 2^23.
inline constexpr float kRoundingMagic = 12582912.0f;

}  // namespace onemodel::exact::detail
