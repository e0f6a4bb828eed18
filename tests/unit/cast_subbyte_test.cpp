// Cast from and to the 4- and 2-bit types (spec/ops/elementwise.md section 7, "Sub-byte types";
// spec/tensors.md section 2.2), exhaustively where the space is small, against computations
// written here differently from the library's:
//   FLOAT4E2M1 values from the ONNX float4 page's formula (-1)^S 2^(e-1) (1 + m/2), or m/2 when e = 0;
//   rounding to FLOAT4E2M1 as "the nearest of the 16 decoded values in binary64, ties to the even
//     code" (the library uses binary32 bit arithmetic or midpoint comparisons);
//   float -> 4/2-bit integer as std::nearbyint (the FE_TONEAREST environment) then an int64 modulo
//     (the library uses floor, fmod and masks).
// Every binary16 pattern, a strided subset of binary32 patterns (every 65521st) and every
// boundary (midpoints and their neighbours, 6 and above, infinities, NaN, signed zeros) are
// covered; all 2^32 binary32 patterns are swept by tools/float4_sweep (run by hand).
#include <gtest/gtest.h>

#include <cfenv>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include "core/graph/tensor_bytes.hpp"
#include "core/tensor/subbyte.hpp"
#include "onemodel/half.hpp"
#include "onemodel/session.hpp"
#include "reference/ops/cast_convert.hpp"
#include "tests/support/ir_builder.hpp"
#include "tests/support/float4_reference.hpp"

namespace onemodel {
namespace {

double decode_f4(int code) { return float4_reference::decode(code); }
int expected_f4(double x) { return float4_reference::nearest_code(x); }

// Round to nearest even by the environment, then modulo 2^bits, then the in-memory byte.
int expected_subbyte_integer(DType type, double x) {
  if (!std::isfinite(x)) return 0;
  const int bits = subbyte_bits(type);
  const std::int64_t modulus = std::int64_t{1} << bits;
  const double r = std::nearbyint(x);
  // A binary32 or binary64 value of magnitude 2^62 or more is a multiple of 2^9: 0 modulo 16.
  const std::int64_t v = std::fabs(r) >= 0x1p62 ? 0 : static_cast<std::int64_t>(r);
  std::int64_t m = ((v % modulus) + modulus) % modulus;
  if ((type == DType::I4 || type == DType::I2) && m >= modulus / 2) m -= modulus;
  return static_cast<int>(m);
}

int as_int(DType type, std::uint8_t byte) {
  return type == DType::I4 || type == DType::I2 ? static_cast<int>(static_cast<std::int8_t>(byte)) : byte;
}

float float_of_bits(std::uint32_t bits) {
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

// Cast of a whole tensor by the reference's conversion.
Tensor cast(const Tensor& in, DType to) {
  Tensor out = Tensor::zeros(to, in.shape());
  ew::convert_tensor(in, out);
  return out;
}

// Binary32 inputs: every 65521st pattern and every boundary of FLOAT4E2M1 and of the integers.
std::vector<float> f32_inputs() {
  std::vector<float> v;
  for (std::uint64_t b = 0; b < (std::uint64_t{1} << 32); b += 65521) v.push_back(float_of_bits(static_cast<std::uint32_t>(b)));
  const float inf = std::numeric_limits<float>::infinity();
  for (float s : {1.0f, -1.0f}) {
    for (float p : {0.0f, 0.25f, 0.5f, 0.75f, 1.0f, 1.25f, 1.5f, 1.75f, 2.0f, 2.5f, 3.0f, 3.5f, 4.0f, 5.0f, 6.0f, 7.0f,
                    8.0f, 0.125f, 9.5f, 15.5f, 16.5f}) {
      v.push_back(s * p);
      v.push_back(std::nextafter(s * p, inf));
      v.push_back(std::nextafter(s * p, -inf));
    }
    for (int k = -40; k <= 40; ++k) {
      const float h = s * (static_cast<float>(k) + 0.5f);
      v.insert(v.end(), {h, std::nextafter(h, inf), std::nextafter(h, -inf)});
    }
    v.insert(v.end(), {s * inf, s * std::numeric_limits<float>::max(), s * std::numeric_limits<float>::denorm_min(),
                       s * std::numeric_limits<float>::min(), s * 1e10f, s * 2147483648.0f});
  }
  v.insert(v.end(), {float_of_bits(0x7FC00000u), float_of_bits(0xFFC00000u), float_of_bits(0x7F800001u),
                     float_of_bits(0xFFFFFFFFu)});
  return v;
}

const DType kIntegerSubbyte[] = {DType::U4, DType::I4, DType::U2, DType::I2};

TEST(CastSubbyte, EveryFloat4CodeDecodesExactlyToEveryFloatType) {
  std::vector<std::uint8_t> codes;
  for (int c = 0; c < 16; ++c) codes.push_back(static_cast<std::uint8_t>(c));
  const Tensor in = Tensor::from_values<std::uint8_t>(DType::F4E2M1, Shape{16}, std::span<const std::uint8_t>(codes));
  const auto f32 = cast(in, DType::F32).to_vector<float>();
  const auto f64 = cast(in, DType::F64).to_vector<double>();
  const auto f16 = cast(in, DType::F16).to_vector<std::uint16_t>();
  const auto bf16 = cast(in, DType::BF16).to_vector<std::uint16_t>();
  for (int c = 0; c < 16; ++c) {
    const double want = decode_f4(c);
    EXPECT_EQ(float4e2m1_to_float(static_cast<std::uint8_t>(c)), static_cast<float>(want)) << c;
    EXPECT_EQ(f32[c], static_cast<float>(want)) << c;
    EXPECT_EQ(std::signbit(f32[c]), c >= 8) << c;  // -0 for code 8
    EXPECT_EQ(f64[c], want) << c;
    EXPECT_EQ(half_bits_to_float(f16[c]), static_cast<float>(want)) << c;
    EXPECT_EQ(std::signbit(half_bits_to_float(f16[c])), c >= 8) << c;
    EXPECT_EQ(bfloat16_bits_to_float(bf16[c]), static_cast<float>(want)) << c;
  }
  // To integers, Cast's float rule (truncation): 1.5 -> 1, -6 -> -6; to Bool: non-zero.
  EXPECT_EQ(cast(in, DType::I8).to_vector<std::int8_t>(),
            (std::vector<std::int8_t>{0, 0, 1, 1, 2, 3, 4, 6, 0, 0, -1, -1, -2, -3, -4, -6}));
  EXPECT_EQ(cast(in, DType::Bool).to_vector<std::uint8_t>(),
            (std::vector<std::uint8_t>{0, 1, 1, 1, 1, 1, 1, 1, 0, 1, 1, 1, 1, 1, 1, 1}));
  // To 4-bit integers, the sub-byte float rule (nearest even, modulo 16): 0.5 -> 0, 1.5 -> 2.
  const auto i4 = cast(in, DType::I4).to_vector<std::int8_t>();
  for (int c = 0; c < 16; ++c) EXPECT_EQ(i4[c], expected_subbyte_integer(DType::I4, decode_f4(c))) << c;
}

TEST(CastSubbyte, EveryIntegerCodeToFloatsAndWiderIntegers) {
  for (DType type : kIntegerSubbyte) {
    std::vector<std::uint8_t> bytes;
    for (int b = 0; b < 256; ++b) {
      if (subbyte_byte_is_valid(type, static_cast<std::uint8_t>(b))) bytes.push_back(static_cast<std::uint8_t>(b));
    }
    ASSERT_EQ(bytes.size(), std::size_t{1} << subbyte_bits(type));
    Tensor in = Tensor::zeros(type, Shape{static_cast<std::int64_t>(bytes.size())});
    std::memcpy(mutable_tensor_bytes(in).data(), bytes.data(), bytes.size());
    const auto f32 = cast(in, DType::F32).to_vector<float>();
    const auto f16 = cast(in, DType::F16).to_vector<std::uint16_t>();
    const auto i64 = cast(in, DType::I64).to_vector<std::int64_t>();
    const auto u8 = cast(in, DType::U8).to_vector<std::uint8_t>();
    const auto f4 = cast(in, DType::F4E2M1).to_vector<std::uint8_t>();
    for (std::size_t k = 0; k < bytes.size(); ++k) {
      const int v = as_int(type, bytes[k]);
      EXPECT_EQ(f32[k], static_cast<float>(v)) << dtype_name(type) << " " << v;
      EXPECT_EQ(half_bits_to_float(f16[k]), static_cast<float>(v));
      EXPECT_EQ(i64[k], v);
      EXPECT_EQ(u8[k], static_cast<std::uint8_t>(v & 0xFF));  // wraps like every integer cast
      EXPECT_EQ(f4[k], expected_f4(v)) << dtype_name(type) << " " << v;
    }
  }
}

// binary32 -> FLOAT4E2M1, by the scalar rule and through Cast, against the nearest decoded value.
TEST(CastSubbyte, Float32ToFloat4RoundsToNearestEvenAndSaturates) {
  const std::vector<float> inputs = f32_inputs();
  const Tensor in = Tensor::from_values<float>(DType::F32, Shape{static_cast<std::int64_t>(inputs.size())},
                                               std::span<const float>(inputs));
  const auto got = cast(in, DType::F4E2M1).to_vector<std::uint8_t>();
  const auto from_f64 = cast(cast(in, DType::F64), DType::F4E2M1).to_vector<std::uint8_t>();
  std::size_t mismatches = 0;
  for (std::size_t k = 0; k < inputs.size(); ++k) {
    const int want = expected_f4(inputs[k]);
    // Cast to f64 stores NaN as the canonical positive NaN (elementwise.md section 3): its sign is
    // not the input's, so the f64 path is compared on the other inputs.
    const bool f64_differs = !std::isnan(inputs[k]) && from_f64[k] != want;
    if (float_to_float4e2m1(inputs[k]) != want || got[k] != want || f64_differs) {
      if (++mismatches <= 10) ADD_FAILURE() << std::hexfloat << inputs[k] << " gives " << int(got[k]) << ", want " << want;
    }
  }
  EXPECT_EQ(mismatches, 0u) << "of " << inputs.size();
  // The hand-worked boundaries of spec/tensors.md section 2.2.
  EXPECT_EQ(float_to_float4e2m1(0.25f), 0);
  EXPECT_EQ(float_to_float4e2m1(0.75f), 2);
  EXPECT_EQ(float_to_float4e2m1(1.25f), 2);
  EXPECT_EQ(float_to_float4e2m1(1.75f), 4);
  EXPECT_EQ(float_to_float4e2m1(2.5f), 4);
  EXPECT_EQ(float_to_float4e2m1(3.5f), 6);
  EXPECT_EQ(float_to_float4e2m1(5.0f), 6);
  EXPECT_EQ(float_to_float4e2m1(std::nextafter(5.0f, 6.0f)), 7);
  EXPECT_EQ(float_to_float4e2m1(-std::numeric_limits<float>::infinity()), 15);
  EXPECT_EQ(float_to_float4e2m1(-0.0f), 8);
  EXPECT_EQ(float_to_float4e2m1(-0.1f), 8);
  EXPECT_EQ(float_to_float4e2m1(float_of_bits(0x7FC00000u)), 8);  // the ONNX backend data's NaN
}

// Every binary16 pattern to FLOAT4E2M1 (and binary64 neighbours of the midpoints, rounded once).
TEST(CastSubbyte, EveryFloat16PatternToFloat4) {
  std::vector<std::uint16_t> patterns(65536);
  for (std::size_t k = 0; k < patterns.size(); ++k) patterns[k] = static_cast<std::uint16_t>(k);
  const Tensor in = Tensor::from_values<std::uint16_t>(DType::F16, Shape{65536}, std::span<const std::uint16_t>(patterns));
  const auto got = cast(in, DType::F4E2M1).to_vector<std::uint8_t>();
  std::size_t mismatches = 0;
  for (std::size_t k = 0; k < patterns.size(); ++k) {
    const float x = half_bits_to_float(patterns[k]);
    if (got[k] != expected_f4(x) && ++mismatches <= 10) ADD_FAILURE() << "f16 0x" << std::hex << k;
  }
  EXPECT_EQ(mismatches, 0u);
  for (double m : {0.25, 0.75, 1.25, 1.75, 2.5, 3.5, 5.0, 6.0}) {
    for (double s : {1.0, -1.0}) {
      for (double x : {s * m, std::nextafter(s * m, 10.0), std::nextafter(s * m, -10.0)}) {
        EXPECT_EQ(double_to_float4e2m1(x), expected_f4(x)) << std::hexfloat << x;
      }
    }
  }
}

// The in-memory values of a sub-byte integer tensor (sign-extended bytes for I4, I2).
std::vector<int> ints_of(const Tensor& t) {
  std::vector<int> v;
  if (t.dtype() == DType::I4 || t.dtype() == DType::I2) {
    for (std::int8_t x : t.to_vector<std::int8_t>()) v.push_back(x);
  } else {
    for (std::uint8_t x : t.to_vector<std::uint8_t>()) v.push_back(x);
  }
  return v;
}

// float -> 4/2-bit integers: nearest even, then modulo 2^bits (the backend data: -9 -> 7 for
// int4); NaN and infinities give 0. Every binary16 pattern and the binary32 set.
TEST(CastSubbyte, FloatsToSubbyteIntegersRoundToEvenAndWrap) {
  std::vector<std::uint16_t> patterns(65536);
  for (std::size_t k = 0; k < patterns.size(); ++k) patterns[k] = static_cast<std::uint16_t>(k);
  const Tensor h = Tensor::from_values<std::uint16_t>(DType::F16, Shape{65536}, std::span<const std::uint16_t>(patterns));
  const std::vector<float> inputs = f32_inputs();
  const Tensor f = Tensor::from_values<float>(DType::F32, Shape{static_cast<std::int64_t>(inputs.size())},
                                              std::span<const float>(inputs));
  ASSERT_EQ(std::fegetround(), FE_TONEAREST);
  for (DType type : kIntegerSubbyte) {
    std::size_t mismatches = 0;
    const std::vector<int> from_h = ints_of(cast(h, type));
    for (std::size_t k = 0; k < patterns.size(); ++k) {
      if (from_h[k] != expected_subbyte_integer(type, half_bits_to_float(patterns[k])) && ++mismatches <= 10) {
        ADD_FAILURE() << dtype_name(type) << " f16 0x" << std::hex << k << " gives " << std::dec << from_h[k];
      }
    }
    const std::vector<int> from_f = ints_of(cast(f, type));
    for (std::size_t k = 0; k < inputs.size(); ++k) {
      const int want = expected_subbyte_integer(type, inputs[k]);
      if (from_f[k] != want && ++mismatches <= 10) {
        ADD_FAILURE() << dtype_name(type) << " " << std::hexfloat << inputs[k] << " gives " << from_f[k];
      }
      EXPECT_EQ(as_int(type, subbyte_integer_from_double(type, static_cast<double>(inputs[k]))), want);
    }
    EXPECT_EQ(mismatches, 0u) << dtype_name(type);
  }
  // The backend case test_cast_FLOAT_to_INT4's ends, worked by hand: -9 -> 7, 8 -> -8, 15 -> -1.
  EXPECT_EQ(as_int(DType::I4, subbyte_integer_from_double(DType::I4, -9.0)), 7);
  EXPECT_EQ(as_int(DType::I4, subbyte_integer_from_double(DType::I4, 8.0)), -8);
  EXPECT_EQ(as_int(DType::U2, subbyte_integer_from_double(DType::U2, -1.0)), 3);
  EXPECT_EQ(as_int(DType::I4, subbyte_integer_from_double(DType::I4, 2.5)), 2);
  EXPECT_EQ(as_int(DType::I4, subbyte_integer_from_double(DType::I4, -2.5)), -2);
  EXPECT_EQ(as_int(DType::I4, subbyte_integer_from_double(DType::I4, 7.5)), -8);  // 8 wraps
}

// Integer and Bool -> 4/2-bit integers: modulo 2^bits, every int8 and int16 value; the ends of
// the 64-bit types.
TEST(CastSubbyte, IntegersToSubbyteIntegersWrap) {
  std::vector<std::int16_t> values;
  for (int v = -32768; v <= 32767; ++v) values.push_back(static_cast<std::int16_t>(v));
  const Tensor in = Tensor::from_values<std::int16_t>(DType::I16, Shape{65536}, std::span<const std::int16_t>(values));
  for (DType type : kIntegerSubbyte) {
    const std::vector<int> got = ints_of(cast(in, type));
    for (std::size_t k = 0; k < values.size(); ++k) {
      ASSERT_EQ(got[k], expected_subbyte_integer(type, values[k])) << dtype_name(type) << " " << values[k];
    }
  }
  const Tensor ends = Tensor::from_values<std::int64_t>(DType::I64, Shape{3},
                                                        {std::numeric_limits<std::int64_t>::min(), std::int64_t{-1},
                                                         std::numeric_limits<std::int64_t>::max()});
  EXPECT_EQ(ints_of(cast(ends, DType::I4)), (std::vector<int>{0, -1, -1}));
  EXPECT_EQ(ints_of(cast(ends, DType::U2)), (std::vector<int>{0, 3, 3}));
  EXPECT_EQ(cast(ends, DType::F4E2M1).to_vector<std::uint8_t>(), (std::vector<std::uint8_t>{15, 10, 7}));
  const Tensor u = Tensor::from_values<std::uint64_t>(DType::U64, Shape{1}, {std::numeric_limits<std::uint64_t>::max()});
  EXPECT_EQ(ints_of(cast(u, DType::I4)), (std::vector<int>{-1}));
  const Tensor b = Tensor::from_values<std::uint8_t>(DType::Bool, Shape{2}, {std::uint8_t{0}, std::uint8_t{1}});
  EXPECT_EQ(ints_of(cast(b, DType::I2)), (std::vector<int>{0, 1}));
  EXPECT_EQ(cast(b, DType::F4E2M1).to_vector<std::uint8_t>(), (std::vector<std::uint8_t>{0, 2}));
}

// Through a session: Cast and CastLike accept the types in infer (both modes), and a sub-byte
// output of one Cast feeds the next.
TEST(CastSubbyte, CastAndCastLikeRunInASession) {
  using namespace ir_builder;
  for (ExecutionMode mode : {ExecutionMode::Exact, ExecutionMode::Fast}) {
    const Tensor x = Tensor::from_values<float>(DType::F32, Shape{5}, {-9.0f, 0.25f, 2.5f, 3.5f, 100.0f});
    auto y = run_one_node("Cast", 25, {{"x", x}}, {fixed_tensor_value_info("y", 22, Shape{5})}, {int_attr("to", 22)}, mode);
    EXPECT_EQ(ints_of(y.at(0)), (std::vector<int>{7, 0, 2, 4, 4}));
    auto z = run_one_node("Cast", 25, {{"x", x}}, {fixed_tensor_value_info("y", 23, Shape{5})}, {int_attr("to", 23)}, mode);
    EXPECT_EQ(z.at(0).to_vector<std::uint8_t>(), (std::vector<std::uint8_t>{15, 0, 4, 6, 7}));
    const Tensor like = Tensor::zeros(DType::U2, Shape{0});
    auto w = run_one_node("CastLike", 25, {{"x", x}, {"like", like}}, {fixed_tensor_value_info("y", 25, Shape{5})}, {}, mode);
    EXPECT_EQ(ints_of(w.at(0)), (std::vector<int>{3, 0, 2, 0, 0}));
    auto back = run_one_node("Cast", 25, {{"x", y.at(0)}}, {fixed_tensor_value_info("y", 1, Shape{5})}, {int_attr("to", 1)}, mode);
    EXPECT_EQ(back.at(0).to_vector<float>(), (std::vector<float>{7.0f, 0.0f, 2.0f, 4.0f, 4.0f}));
  }
  // COMPLEX64 (14) is not stored: Unsupported (FLOAT8E8M0, 24, is since the float8 types).
  EXPECT_EQ(session_error_kind_of([] {
              (void)run_one_node("Cast", 25, {{"x", Tensor::zeros(DType::F32, Shape{1})}},
                                 {fixed_tensor_value_info("y", 14, Shape{1})}, {int_attr("to", 14)}, ExecutionMode::Fast);
            }),
            SessionErrorKind::Unsupported);
}

}  // namespace
}  // namespace onemodel
