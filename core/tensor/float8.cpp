// The 8-bit float conversions of spec/tensors.md section 2.1 (from the ONNX Cast schema, opsets 19
// to 25, and its two tables for the E4M3/E5M2 types and one for E8M0). Integer operations on the
// bit patterns; the narrowing is one template over the source format (binary32 or binary64), so
// a binary64 value is rounded once from its exact value, never through binary32.
#include "onemodel/float8.hpp"

#include <cstring>

namespace onemodel {
namespace {

// How a format spends its top codes (spec/tensors.md section 2.1).
enum class Float8Specials {
  Fn,    // E4M3FN: S.1111.111 is NaN, no infinity, +-0
  Fnuz,  // E4M3FNUZ, E5M2FNUZ: 0x80 is the only NaN, no infinity, no -0
  Ieee,  // E5M2: exponent all ones is infinity (mantissa 0) or NaN, +-0
};

struct Float8Layout {
  int mantissa_bits;
  int bias;
  std::uint8_t max_code;  // the largest finite magnitude's code (sign bit clear)
  Float8Specials specials;
};

// spec/tensors.md section 2.1, the table of the four formats with a mantissa.
constexpr Float8Layout float8_layout(Float8Format format) noexcept {
  switch (format) {
    case Float8Format::E4M3FN: return {3, 7, 0x7E, Float8Specials::Fn};        // 448
    case Float8Format::E4M3FNUZ: return {3, 8, 0x7F, Float8Specials::Fnuz};    // 240
    case Float8Format::E5M2: return {2, 15, 0x7B, Float8Specials::Ieee};       // 57344
    case Float8Format::E5M2FNUZ: return {2, 16, 0x7F, Float8Specials::Fnuz};   // 57344
    case Float8Format::E8M0: break;
  }
  return {0, 127, 0xFE, Float8Specials::Fn};  // not used: E8M0 has its own functions
}

// The NaN of the format for a source NaN of sign `sign` (0 or 0x80): ONNX's tables keep the sign
// where the format has a signed NaN.
constexpr std::uint8_t float8_nan_code(const Float8Layout& l, std::uint8_t sign) noexcept {
  switch (l.specials) {
    case Float8Specials::Fn: return static_cast<std::uint8_t>(sign | 0x7F);
    case Float8Specials::Fnuz: return 0x80;
    case Float8Specials::Ieee: return static_cast<std::uint8_t>(sign | 0x7E);  // quiet: top mantissa bit set
  }
  return 0x80;
}

// What an infinity or a rounded magnitude above the largest finite value becomes (ONNX's tables):
// with saturate the largest finite value of the sign; without, NaN (Fn: signed; Fnuz: 0x80) or
// the signed infinity (E5M2).
constexpr std::uint8_t float8_overflow_code(const Float8Layout& l, std::uint8_t sign, bool saturate) noexcept {
  if (saturate) return static_cast<std::uint8_t>(sign | l.max_code);
  switch (l.specials) {
    case Float8Specials::Fn: return static_cast<std::uint8_t>(sign | 0x7F);
    case Float8Specials::Fnuz: return 0x80;
    case Float8Specials::Ieee: return static_cast<std::uint8_t>(sign | 0x7C);
  }
  return 0x80;
}

// A binary source format: U holds its bits, kMantissa stored mantissa bits, kExponent exponent
// bits (bias 2^(kExponent-1) - 1).
template <class U, int MantissaBits, int ExponentBits>
struct BinarySource {
  static constexpr int kMantissa = MantissaBits;
  static constexpr int kExponent = ExponentBits;
  static constexpr int kWidth = static_cast<int>(sizeof(U) * 8);
  static constexpr int kBias = (1 << (kExponent - 1)) - 1;
  static constexpr U kSignMask = U{1} << (kWidth - 1);
  static constexpr U kInfinity = ((U{1} << kExponent) - 1) << kMantissa;
  static constexpr U kMantissaMask = (U{1} << kMantissa) - 1;
};
using SourceBinary32 = BinarySource<std::uint32_t, 23, 8>;
using SourceBinary64 = BinarySource<std::uint64_t, 52, 11>;

// spec/tensors.md section 2.1, narrowing to E4M3FN, E4M3FNUZ, E5M2, E5M2FNUZ: round the
// magnitude to nearest, ties to even, with an unbounded exponent; then apply the overflow rule if
// the rounded magnitude is above the largest finite value.
template <class S, class U>
std::uint8_t narrow_to_float8_with_mantissa(const Float8Layout& l, U bits, bool saturate) noexcept {
  const U a = bits & ~S::kSignMask;  // |x|
  const std::uint8_t sign = (bits & S::kSignMask) != 0 ? std::uint8_t{0x80} : std::uint8_t{0};
  if (a > S::kInfinity) return float8_nan_code(l, sign);
  if (a == S::kInfinity) return float8_overflow_code(l, sign, saturate);

  const int drop = S::kMantissa - l.mantissa_bits;  // mantissa bits rounded away for a normal result
  const int source_exponent = static_cast<int>(a >> S::kMantissa);
  const int target_exponent = source_exponent - S::kBias + l.bias;  // biased, if the result is normal
  U code;
  if (target_exponent >= 1) {
    // Normal result: rebias the exponent field in place (it becomes target_exponent), then round
    // the low `drop` bits away, ties to even; a carry out of the mantissa moves into the exponent,
    // which is the correct result (and may pass max_code: overflow below).
    const U m = a - (static_cast<U>(S::kBias - l.bias) << S::kMantissa);
    code = (m + ((U{1} << (drop - 1)) - 1) + ((m >> drop) & 1)) >> drop;
  } else {
    // Subnormal (or zero) result, in units of the smallest subnormal 2^(1 - bias - mantissa_bits).
    // The hidden bit is set for normal sources; a subnormal source (binary32 below 2^-126,
    // binary64 below 2^-1022) is far below half the smallest subnormal of every format and gets
    // a shift past kMantissa + 1, hence zero.
    const int shift = drop + 1 - target_exponent;
    if (shift > S::kMantissa + 1) {
      code = 0;
    } else {
      const U full = (a & S::kMantissaMask) | (U{1} << S::kMantissa);
      code = full >> shift;
      const U remainder = full & ((U{1} << shift) - 1);
      const U half = U{1} << (shift - 1);
      if (remainder > half || (remainder == half && (code & 1) != 0)) ++code;
    }
  }
  if (code > static_cast<U>(l.max_code)) return float8_overflow_code(l, sign, saturate);
  if (code == 0 && l.specials == Float8Specials::Fnuz) return 0;  // no -0: both zeros are 0x00
  return static_cast<std::uint8_t>(sign | code);
}

// spec/tensors.md section 2.1, narrowing to E8M0 (2^(b-127)): the sign is ignored (ONNX leaves
// negative inputs unspecified; the magnitude is converted). |x| = 2^k * (1 + f), 0 <= f < 1:
// Down gives k, Up k + 1 when f > 0, Nearest k + 1 when f >= 1/2. A result below 2^-127 (and
// zero) saturates to 2^-127 or is NaN; above 2^127 (and infinity) saturates to 2^127 or is NaN.
template <class S, class U>
std::uint8_t narrow_to_float8_e8m0(U bits, bool saturate, E8M0Rounding rounding) noexcept {
  const U a = bits & ~S::kSignMask;
  if (a > S::kInfinity) return 0xFF;
  if (a == S::kInfinity) return saturate ? std::uint8_t{0xFE} : std::uint8_t{0xFF};
  if (a == 0) return saturate ? std::uint8_t{0x00} : std::uint8_t{0xFF};
  int k;
  U fraction;      // the bits of f, `fraction_bits` of them
  int fraction_bits;
  const int source_exponent = static_cast<int>(a >> S::kMantissa);
  if (source_exponent != 0) {
    k = source_exponent - S::kBias;
    fraction = a & S::kMantissaMask;
    fraction_bits = S::kMantissa;
  } else {
    // Subnormal source a * 2^(1 - bias - kMantissa): binary32's 2^-127 is one of them.
    int top = S::kMantissa - 1;
    while (((a >> top) & 1) == 0) --top;
    k = top + 1 - S::kBias - S::kMantissa;
    fraction = a - (U{1} << top);
    fraction_bits = top;
  }
  int e = k + 127;
  if (rounding == E8M0Rounding::Up && fraction != 0) ++e;
  if (rounding == E8M0Rounding::Nearest && fraction_bits > 0 && ((fraction >> (fraction_bits - 1)) & 1) != 0) ++e;
  if (e < 0) return saturate ? std::uint8_t{0x00} : std::uint8_t{0xFF};
  if (e > 254) return saturate ? std::uint8_t{0xFE} : std::uint8_t{0xFF};
  return static_cast<std::uint8_t>(e);
}

template <class S, class U>
std::uint8_t narrow_to_float8(Float8Format format, U bits, bool saturate, E8M0Rounding rounding) noexcept {
  if (format == Float8Format::E8M0) return narrow_to_float8_e8m0<S>(bits, saturate, rounding);
  return narrow_to_float8_with_mantissa<S>(float8_layout(format), bits, saturate);
}

// memcpy rather than std::bit_cast: emscripten's libc++ lacks std::bit_cast (DESIGN.md section 4).
float binary32_from_bits(std::uint32_t bits) noexcept {
  float value;
  std::memcpy(&value, &bits, sizeof value);
  return value;
}

constexpr std::uint32_t kBinary32QuietNan = 0x7FC00000u;

}  // namespace

bool is_float8_code(std::int32_t code) noexcept {
  return (code >= 17 && code <= 20) || code == 24;
}

float float8_bits_to_float(Float8Format format, std::uint8_t b) noexcept {
  // spec/tensors.md section 2.1, widening: every value is a binary32 number, built bit by bit.
  if (format == Float8Format::E8M0) {
    if (b == 0xFF) return binary32_from_bits(kBinary32QuietNan);
    if (b == 0) return binary32_from_bits(0x00400000u);  // 2^-127, a binary32 subnormal
    return binary32_from_bits(static_cast<std::uint32_t>(b) << 23);
  }
  const Float8Layout l = float8_layout(format);
  const std::uint32_t sign = static_cast<std::uint32_t>(b & 0x80u) << 24;
  const std::uint32_t magnitude = b & 0x7Fu;
  const std::uint32_t exponent = magnitude >> l.mantissa_bits;
  const std::uint32_t mantissa = magnitude & ((1u << l.mantissa_bits) - 1u);
  switch (l.specials) {
    case Float8Specials::Fnuz:
      if (b == 0x80) return binary32_from_bits(kBinary32QuietNan);
      break;
    case Float8Specials::Fn:
      if (magnitude == 0x7F) return binary32_from_bits(sign | kBinary32QuietNan);
      break;
    case Float8Specials::Ieee:
      if (exponent == 0x1F) return binary32_from_bits(sign | (mantissa == 0 ? 0x7F800000u : kBinary32QuietNan));
      break;
  }
  if (exponent == 0) {
    // Subnormal: mantissa * 2^(1 - bias - mantissa_bits); the binary32 result is normal, its
    // exponent field is that of the leading mantissa bit.
    if (mantissa == 0) return binary32_from_bits(sign);
    int top = l.mantissa_bits - 1;
    while (((mantissa >> top) & 1u) == 0) --top;
    const int unbiased = top + 1 - l.bias - l.mantissa_bits;
    const std::uint32_t rest = (mantissa - (1u << top)) << (23 - top);
    return binary32_from_bits(sign | (static_cast<std::uint32_t>(unbiased + 127) << 23) | rest);
  }
  const std::uint32_t field = exponent + static_cast<std::uint32_t>(127 - l.bias);
  return binary32_from_bits(sign | (field << 23) | (mantissa << (23 - l.mantissa_bits)));
}

std::uint8_t float_to_float8_bits(Float8Format format, float value, bool saturate, E8M0Rounding rounding) noexcept {
  std::uint32_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  return narrow_to_float8<SourceBinary32>(format, bits, saturate, rounding);
}

std::uint8_t double_to_float8_bits(Float8Format format, double value, bool saturate, E8M0Rounding rounding) noexcept {
  std::uint64_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  return narrow_to_float8<SourceBinary64>(format, bits, saturate, rounding);
}

}  // namespace onemodel
