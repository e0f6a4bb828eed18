// binary16 and bfloat16 conversions, written step by step from spec/half-precision.md (which
// restates spec-source/tensors.md section 10). Integer operations on the bit patterns, plus one
// exact product of normal binary32 numbers when widening a subnormal half, so the result does not
// depend on the rounding mode, flush-to-zero or the compiler's contraction.
#include "onemodel/half.hpp"

#include <algorithm>
#include <cstddef>
#include <cstring>

namespace onemodel {
namespace {

// memcpy rather than std::bit_cast: emscripten's libc++ lacks std::bit_cast (DESIGN.md section 4).
std::uint32_t bits_of(float value) noexcept {
  std::uint32_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  return bits;
}

float float_of(std::uint32_t bits) noexcept {
  float value;
  std::memcpy(&value, &bits, sizeof value);
  return value;
}

constexpr std::uint32_t kFloatAbsMask = 0x7FFFFFFFu;
constexpr std::uint32_t kFloatInfinity = 0x7F800000u;
constexpr std::uint32_t kFloatQuietBit = 0x00400000u;

}  // namespace

std::uint16_t float_to_half_bits(float value) noexcept {
  const std::uint32_t bits = bits_of(value);
  const std::uint32_t a = bits & kFloatAbsMask;  // spec/half-precision.md section 2: a = bits of |x|
  const std::uint32_t sign = (bits >> 16) & 0x8000u;

  // spec/half-precision.md section 2.1: NaN -> quiet NaN, sign and top nine payload bits kept.
  if (a > kFloatInfinity) {
    return static_cast<std::uint16_t>(sign | 0x7E00u | ((a >> 13) & 0x1FFu));
  }
  // spec/half-precision.md section 2.2: infinity, and every |x| >= 65520 (the midpoint between
  // 65504 and 2^16, which rounds to even, i.e. away from 65504), becomes signed infinity.
  if (a == kFloatInfinity || a >= 0x477FF000u) {
    return static_cast<std::uint16_t>(sign | 0x7C00u);
  }
  // spec/half-precision.md section 2.3: normal range, |x| >= 2^-14. Rebias the exponent
  // (127 -> 15) and round the 23-bit mantissa to 10 bits, ties to even; a carry out of the
  // mantissa moves into the exponent, which is the correct result.
  if (a >= 0x38800000u) {
    const std::uint32_t m = a - (112u << 23);
    return static_cast<std::uint16_t>(sign | ((m + 0xFFFu + ((m >> 13) & 1u)) >> 13));
  }
  // spec/half-precision.md section 2.4: |x| <= 2^-25 (half the smallest subnormal, a tie that goes
  // to the even value zero) becomes signed zero.
  if (a <= 0x33000000u) {
    return static_cast<std::uint16_t>(sign);
  }
  // spec/half-precision.md section 2.5: subnormal result. Here 102 <= e <= 112, so 14 <= shift <= 24;
  // r counts units of 2^-24 and may round up to 0x400, the smallest normal, which is correct.
  const std::uint32_t e = a >> 23;
  const std::uint32_t mant = (a & 0x7FFFFFu) | 0x800000u;
  const std::uint32_t shift = 126u - e;
  std::uint32_t r = mant >> shift;
  const std::uint32_t remainder = mant & ((1u << shift) - 1u);
  const std::uint32_t half = 1u << (shift - 1u);
  if (remainder > half || (remainder == half && (r & 1u) != 0)) {
    ++r;
  }
  return static_cast<std::uint16_t>(sign | r);
}

float half_bits_to_float(std::uint16_t h) noexcept {
  const std::uint32_t sign = static_cast<std::uint32_t>(h & 0x8000u) << 16;
  const std::uint32_t exponent = (h >> 10) & 0x1Fu;
  const std::uint32_t man = h & 0x3FFu;

  if (exponent == 0) {
    // spec/half-precision.md section 3: zero and subnormals are man * 2^-24, exact in binary32
    // (man < 2^10); the sign is attached as a bit so that -0 stays -0.
    const float magnitude = static_cast<float>(man) * 0x1p-24f;
    return float_of(sign | bits_of(magnitude));
  }
  if (exponent == 0x1Fu) {
    // spec/half-precision.md section 3: infinity; NaN keeps its payload shifted left by 13 with
    // the quiet bit forced.
    if (man == 0) {
      return float_of(sign | kFloatInfinity);
    }
    return float_of(sign | kFloatInfinity | kFloatQuietBit | (man << 13));
  }
  // spec/half-precision.md section 3: normal, exponent rebiased 15 -> 127.
  return float_of(sign | ((exponent + 112u) << 23) | (man << 13));
}

std::uint16_t float_to_bfloat16_bits(float value) noexcept {
  const std::uint32_t bits = bits_of(value);
  // spec/half-precision.md section 4: NaN keeps the upper half with the quiet bit set.
  if ((bits & kFloatAbsMask) > kFloatInfinity) {
    return static_cast<std::uint16_t>((bits >> 16) | 0x40u);
  }
  // spec/half-precision.md section 4: round the low 16 bits away, ties to even. No overflow of the
  // 32-bit sum: the largest non-NaN pattern is 0xFF800000.
  return static_cast<std::uint16_t>((bits + 0x7FFFu + ((bits >> 16) & 1u)) >> 16);
}

float bfloat16_bits_to_float(std::uint16_t b) noexcept {
  std::uint32_t bits = static_cast<std::uint32_t>(b) << 16;
  // spec/half-precision.md section 5: exact; a NaN gets the quiet bit.
  if ((bits & kFloatAbsMask) > kFloatInfinity) {
    bits |= kFloatQuietBit;
  }
  return float_of(bits);
}

void floats_to_half_bits(std::span<const float> in, std::span<std::uint16_t> out) noexcept {
  const std::size_t n = std::min(in.size(), out.size());
  for (std::size_t i = 0; i < n; ++i) out[i] = float_to_half_bits(in[i]);
}

void half_bits_to_floats(std::span<const std::uint16_t> in, std::span<float> out) noexcept {
  const std::size_t n = std::min(in.size(), out.size());
  for (std::size_t i = 0; i < n; ++i) out[i] = half_bits_to_float(in[i]);
}

void floats_to_bfloat16_bits(std::span<const float> in, std::span<std::uint16_t> out) noexcept {
  const std::size_t n = std::min(in.size(), out.size());
  for (std::size_t i = 0; i < n; ++i) out[i] = float_to_bfloat16_bits(in[i]);
}

void bfloat16_bits_to_floats(std::span<const std::uint16_t> in, std::span<float> out) noexcept {
  const std::size_t n = std::min(in.size(), out.size());
  for (std::size_t i = 0; i < n; ++i) out[i] = bfloat16_bits_to_float(in[i]);
}

}  // namespace onemodel
