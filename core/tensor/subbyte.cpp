// spec/tensors.md section 2.2 (packing, FLOAT4E2M1) and spec/ops/elementwise.md section 7 (Cast to
// the 4- and 2-bit integer types).
#include "core/tensor/subbyte.hpp"

#include <array>
#include <cmath>
#include <cstring>
#include <string>

#include "onemodel/tensor_error.hpp"

namespace onemodel {

bool dtype_is_subbyte(DType type) noexcept { return subbyte_bits(type) != 0; }

int subbyte_bits(DType type) noexcept {
  switch (type) {
    case DType::U4:
    case DType::I4:
    case DType::F4E2M1: return 4;
    case DType::U2:
    case DType::I2: return 2;
    default: return 0;
  }
}

std::uint64_t subbyte_packed_length(std::uint64_t count, int bits) noexcept {
  const auto b = static_cast<std::uint64_t>(bits);
  return (count / 8) * b + ((count % 8) * b + 7) / 8;
}

namespace {

bool is_signed_subbyte(DType type) noexcept { return type == DType::I4 || type == DType::I2; }

void require_subbyte(DType type) {
  if (!dtype_is_subbyte(type)) {
    throw TensorError(TensorErrorKind::Type, "not a sub-byte element type: " + std::string(dtype_name(type)));
  }
}

}  // namespace

std::vector<std::byte> pack_subbyte(DType type, std::span<const std::byte> elements) {
  require_subbyte(type);
  const int bits = subbyte_bits(type);
  const std::size_t per_byte = static_cast<std::size_t>(8 / bits);
  const unsigned mask = (1u << bits) - 1u;
  std::vector<std::byte> packed(static_cast<std::size_t>(subbyte_packed_length(elements.size(), bits)), std::byte{0});
  for (std::size_t k = 0; k < elements.size(); ++k) {
    const unsigned value = std::to_integer<unsigned>(elements[k]) & mask;
    const unsigned shift = static_cast<unsigned>(k % per_byte) * static_cast<unsigned>(bits);
    packed[k / per_byte] |= static_cast<std::byte>(value << shift);
  }
  return packed;
}

void unpack_subbyte(DType type, std::span<const std::byte> packed, std::span<std::byte> elements) {
  require_subbyte(type);
  const int bits = subbyte_bits(type);
  const std::uint64_t expected = subbyte_packed_length(elements.size(), bits);
  if (packed.size() != expected) {
    throw TensorError(TensorErrorKind::Shape, std::to_string(packed.size()) + " packed bytes for " +
                                                  std::to_string(elements.size()) + " elements of " +
                                                  std::string(dtype_name(type)) + ", expected " +
                                                  std::to_string(expected));
  }
  const std::size_t per_byte = static_cast<std::size_t>(8 / bits);
  const unsigned mask = (1u << bits) - 1u;
  const unsigned sign = 1u << (bits - 1);
  const bool is_signed = is_signed_subbyte(type);
  for (std::size_t k = 0; k < elements.size(); ++k) {
    const unsigned shift = static_cast<unsigned>(k % per_byte) * static_cast<unsigned>(bits);
    unsigned value = (std::to_integer<unsigned>(packed[k / per_byte]) >> shift) & mask;
    if (is_signed && (value & sign) != 0) value |= ~mask;  // sign extension into the whole byte
    elements[k] = static_cast<std::byte>(value & 0xFFu);
  }
}

bool subbyte_byte_is_valid(DType type, std::uint8_t byte) noexcept {
  if (type == DType::F4E2M1) return byte < 16;
  return dtype_is_subbyte(type) && subbyte_integer_from_bits(type, byte) == byte;
}

float float4e2m1_to_float(std::uint8_t code) noexcept {
  static constexpr std::array<float, 8> kMagnitude = {0.0f, 0.5f, 1.0f, 1.5f, 2.0f, 3.0f, 4.0f, 6.0f};
  const float magnitude = kMagnitude[code & 7u];
  return (code & 8u) != 0 ? -magnitude : magnitude;
}

std::uint8_t float_to_float4e2m1(float value) noexcept {
  std::uint32_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  const auto sign = static_cast<std::uint8_t>((bits >> 28) & 8u);
  const std::uint32_t a = bits & 0x7FFFFFFFu;
  // section 2.2: a NaN gives zero with the opposite sign (what the ONNX backend data holds for
  // Cast of 0x7FC00000; ONNX's float4 page says 6, and FLOAT4E2M1 has no NaN to keep).
  if (a > 0x7F800000u) return static_cast<std::uint8_t>(sign ^ 8u);
  std::uint32_t magnitude;
  if (a >= 0x40C00000u) {
    magnitude = 7;  // 6 and above, infinity: saturate to 6
  } else if (a >= 0x3F800000u) {
    // [1, 6): the biased binary32 exponent and the top mantissa bit, (a >> 22), rounded to nearest
    // even on the 22 bits below (a carry moves into the exponent); 252 = 126 << 1 rebiases the
    // exponent (binary32 bias 127, FLOAT4E2M1 bias 1).
    magnitude = ((a + 0x1FFFFFu + ((a >> 22) & 1u)) >> 22) - 252u;
  } else if (a >= 0x3F400000u) {
    magnitude = 2;  // [0.75, 1): 1 (the tie 0.75 goes to the even code 2)
  } else if (a > 0x3E800000u) {
    magnitude = 1;  // (0.25, 0.75): 0.5
  } else {
    magnitude = 0;  // [0, 0.25]: 0 (the tie 0.25 goes to the even code 0)
  }
  return static_cast<std::uint8_t>(sign | magnitude);
}

std::uint8_t double_to_float4e2m1(double value) noexcept {
  const std::uint8_t sign = std::signbit(value) ? 8 : 0;
  if (std::isnan(value)) return static_cast<std::uint8_t>(sign ^ 8u);
  // The midpoints between consecutive magnitudes (exact in binary64): above one, the larger code;
  // on one, the even code of the two.
  static constexpr std::array<double, 7> kMidpoint = {0.25, 0.75, 1.25, 1.75, 2.5, 3.5, 5.0};
  const double a = std::fabs(value);
  std::uint8_t code = 0;
  while (code < 7 && (a > kMidpoint[code] || (a == kMidpoint[code] && (code & 1u) != 0))) ++code;
  return static_cast<std::uint8_t>(sign | code);
}

std::uint8_t subbyte_integer_from_bits(DType type, std::uint64_t value) noexcept {
  const int bits = subbyte_bits(type);
  const std::uint64_t mask = (std::uint64_t{1} << bits) - 1u;
  std::uint64_t low = value & mask;
  if (is_signed_subbyte(type) && (low >> (bits - 1)) != 0) low |= ~mask;
  return static_cast<std::uint8_t>(low & 0xFFu);
}

std::uint8_t subbyte_integer_from_double(DType type, double value) noexcept {
  if (!std::isfinite(value)) return 0;
  // Round half to even; v - floor(v) is exact for every double, so the tie test is exact.
  const double f = std::floor(value);
  const double d = value - f;
  const double r = d > 0.5 ? f + 1.0 : d < 0.5 ? f : (std::fmod(f, 2.0) == 0.0 ? f : f + 1.0);
  // fmod is exact: the remainder modulo 2^bits, then shifted into [0, 2^bits).
  const double modulus = static_cast<double>(1u << subbyte_bits(type));
  double m = std::fmod(r, modulus);
  if (m < 0.0) m += modulus;
  return subbyte_integer_from_bits(type, static_cast<std::uint64_t>(m));
}

}  // namespace onemodel
