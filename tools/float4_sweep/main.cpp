// Every binary32 bit pattern (2^32) converted to FLOAT4E2M1 and to the 4- and 2-bit integer types
// by the library's scalar rules (core/tensor/subbyte.cpp, spec/tensors.md section 2.2,
// spec/ops/elementwise.md section 7), compared with computations written differently:
//   FLOAT4E2M1: the nearest of the 16 decoded values in binary64, ties to the even code, saturating
//     above 6, NaN to the zero of the opposite sign; checked for float_to_float4e2m1 and for
//     double_to_float4e2m1 on the same (exact) value;
//   INT4, UINT4, INT2, UINT2: std::nearbyint (round to nearest even in the default environment),
//     then an int64 remainder; NaN and infinities 0.
// The unit test (tests/unit/cast_subbyte_test.cpp) covers every binary16 pattern and a strided
// binary32 subset; this sweep is the whole space, too long for CI: run it by hand after touching a
// conversion. Exit status 0 when every pattern agrees, 1 otherwise (the first mismatches printed).
#include <cfenv>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>

#include "core/tensor/subbyte.hpp"
#include "tests/support/float4_reference.hpp"

namespace {

using float4_reference::decode;
using float4_reference::nearest_code;

int wrapped(onemodel::DType type, double x) {
  if (!std::isfinite(x)) return 0;
  const int bits = onemodel::subbyte_bits(type);
  const std::int64_t modulus = std::int64_t{1} << bits;
  const double r = std::nearbyint(x);
  const std::int64_t v = std::fabs(r) >= 0x1p62 ? 0 : static_cast<std::int64_t>(r);
  std::int64_t m = ((v % modulus) + modulus) % modulus;
  if ((type == onemodel::DType::I4 || type == onemodel::DType::I2) && m >= modulus / 2) m -= modulus;
  return static_cast<int>(m);
}

}  // namespace

int main() {
  using onemodel::DType;
  if (std::fegetround() != FE_TONEAREST) {
    std::printf("the rounding mode is not to-nearest\n");
    return 1;
  }
  const DType integer_types[] = {DType::U4, DType::I4, DType::U2, DType::I2};
  std::uint64_t f4_mismatches = 0, f4_double_mismatches = 0, integer_mismatches[4] = {0, 0, 0, 0};
  for (std::uint64_t b = 0; b < (std::uint64_t{1} << 32); ++b) {
    const auto bits = static_cast<std::uint32_t>(b);
    float x;
    std::memcpy(&x, &bits, sizeof x);
    const int want = nearest_code(x);
    const int got = onemodel::float_to_float4e2m1(x);
    if (got != want && ++f4_mismatches <= 5) std::printf("  float4: 0x%08x -> %d, want %d\n", bits, got, want);
    const int got_double = onemodel::double_to_float4e2m1(static_cast<double>(x));
    if (got_double != want && ++f4_double_mismatches <= 5) {
      std::printf("  float4 from binary64: 0x%08x -> %d, want %d\n", bits, got_double, want);
    }
    for (int t = 0; t < 4; ++t) {
      const DType type = integer_types[t];
      const std::uint8_t byte = onemodel::subbyte_integer_from_double(type, static_cast<double>(x));
      const int value = type == DType::I4 || type == DType::I2 ? static_cast<int>(static_cast<std::int8_t>(byte)) : byte;
      const int expected = wrapped(type, x);
      if (value != expected && ++integer_mismatches[t] <= 5) {
        std::printf("  %s: 0x%08x -> %d, want %d\n", onemodel::dtype_name(type).data(), bits, value, expected);
      }
    }
  }
  std::printf("FLOAT4E2M1 from binary32: %llu of 4294967296 patterns differ\n", static_cast<unsigned long long>(f4_mismatches));
  std::printf("FLOAT4E2M1 from binary64: %llu of 4294967296 patterns differ\n",
              static_cast<unsigned long long>(f4_double_mismatches));
  bool ok = f4_mismatches == 0 && f4_double_mismatches == 0;
  for (int t = 0; t < 4; ++t) {
    std::printf("%-6s from binary32: %llu of 4294967296 patterns differ\n", onemodel::dtype_name(integer_types[t]).data(),
                static_cast<unsigned long long>(integer_mismatches[t]));
    ok = ok && integer_mismatches[t] == 0;
  }
  return ok ? 0 : 1;
}
