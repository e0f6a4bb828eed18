// spec/half-precision.md section 7: the binary16 and bfloat16 conversions against references that
// do not reuse the formulas under test.
//   - Widening: every one of the 65536 patterns of each format against the value computed from the
//     definition of the format (sign * significand * 2^exponent with std::ldexp in double).
//   - Round trip: narrowing a widened pattern gives it back (NaN: with the quiet bit set).
//   - Narrowing: over 2 million binary32 patterns (every tie of both formats and its neighbours,
//     boundaries, random patterns) against MPFR's correctly rounded conversion (mpfr_set_flt to the
//     format's precision, exponent range set to the format's, then mpfr_subnormalize), read back as
//     an exact double and mapped to bits by searching a table of the format's values.
#include <gtest/gtest.h>
#include <mpfr.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "onemodel/half.hpp"

namespace {

using onemodel::bfloat16_bits_to_float;
using onemodel::float_to_bfloat16_bits;
using onemodel::float_to_half_bits;
using onemodel::half_bits_to_float;

std::uint32_t bits_of(float value) {
  std::uint32_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  return bits;
}

float float_of(std::uint32_t bits) {
  float value;
  std::memcpy(&value, &bits, sizeof value);
  return value;
}

// The value of a binary16 pattern from the definition of the format (IEEE 754 section 3.4):
// bias 15, 10 fraction bits, subnormals 0.f * 2^-14. Infinity for the all-ones exponent with zero
// fraction; the caller handles NaN.
double half_value_by_definition(std::uint16_t h) {
  const int sign = (h & 0x8000) ? -1 : 1;
  const int exponent = (h >> 10) & 0x1F;
  const int fraction = h & 0x3FF;
  if (exponent == 0x1F) return sign * std::numeric_limits<double>::infinity();
  if (exponent == 0) return sign * std::ldexp(static_cast<double>(fraction), -24);
  return sign * std::ldexp(static_cast<double>(1024 + fraction), exponent - 25);
}

// The same for bfloat16: bias 127, 7 fraction bits, subnormals 0.f * 2^-126.
double bfloat16_value_by_definition(std::uint16_t b) {
  const int sign = (b & 0x8000) ? -1 : 1;
  const int exponent = (b >> 7) & 0xFF;
  const int fraction = b & 0x7F;
  if (exponent == 0xFF) return sign * std::numeric_limits<double>::infinity();
  if (exponent == 0) return sign * std::ldexp(static_cast<double>(fraction), -133);
  return sign * std::ldexp(static_cast<double>(128 + fraction), exponent - 134);
}

bool half_is_nan(std::uint16_t h) { return (h & 0x7C00) == 0x7C00 && (h & 0x3FF) != 0; }
bool bfloat16_is_nan(std::uint16_t b) { return (b & 0x7F80) == 0x7F80 && (b & 0x7F) != 0; }

// Widening compared as a value (double equality) plus the sign bit, so -0 is told from +0.
void expect_same_value(float got, double expected, std::uint16_t pattern) {
  ASSERT_EQ(static_cast<double>(got), expected) << "pattern 0x" << std::hex << pattern;
  ASSERT_EQ(std::signbit(got), std::signbit(expected)) << "pattern 0x" << std::hex << pattern;
}

TEST(HalfConversion, EveryBinary16PatternWidensToItsValue) {
  for (std::uint32_t h = 0; h <= 0xFFFF; ++h) {
    const auto pattern = static_cast<std::uint16_t>(h);
    const float wide = half_bits_to_float(pattern);
    if (half_is_nan(pattern)) {
      // spec/half-precision.md section 3: payload shifted left 13, quiet bit forced, sign kept.
      const std::uint32_t expected =
          ((h & 0x8000u) << 16) | 0x7F800000u | 0x400000u | ((h & 0x3FFu) << 13);
      ASSERT_TRUE(std::isnan(wide)) << std::hex << h;
      ASSERT_EQ(bits_of(wide), expected) << std::hex << h;
    } else {
      expect_same_value(wide, half_value_by_definition(pattern), pattern);
    }
  }
}

TEST(HalfConversion, EveryBinary16PatternNarrowsBackToItself) {
  for (std::uint32_t h = 0; h <= 0xFFFF; ++h) {
    const auto pattern = static_cast<std::uint16_t>(h);
    const std::uint16_t back = float_to_half_bits(half_bits_to_float(pattern));
    // spec/half-precision.md section 3: a NaN comes back with the quiet bit set.
    const std::uint16_t expected = half_is_nan(pattern) ? (pattern | 0x0200) : pattern;
    ASSERT_EQ(back, expected) << std::hex << h;
  }
}

TEST(HalfConversion, EveryBfloat16PatternWidensToItsValue) {
  for (std::uint32_t b = 0; b <= 0xFFFF; ++b) {
    const auto pattern = static_cast<std::uint16_t>(b);
    const float wide = bfloat16_bits_to_float(pattern);
    if (bfloat16_is_nan(pattern)) {
      // spec/half-precision.md section 5: the pattern in the upper half, quiet bit forced.
      ASSERT_TRUE(std::isnan(wide)) << std::hex << b;
      ASSERT_EQ(bits_of(wide), (b << 16) | 0x400000u) << std::hex << b;
    } else {
      expect_same_value(wide, bfloat16_value_by_definition(pattern), pattern);
    }
  }
}

TEST(HalfConversion, EveryBfloat16PatternNarrowsBackToItself) {
  for (std::uint32_t b = 0; b <= 0xFFFF; ++b) {
    const auto pattern = static_cast<std::uint16_t>(b);
    const std::uint16_t back = float_to_bfloat16_bits(bfloat16_bits_to_float(pattern));
    const std::uint16_t expected = bfloat16_is_nan(pattern) ? (pattern | 0x0040) : pattern;
    ASSERT_EQ(back, expected) << std::hex << b;
  }
}

// MPFR's correctly rounded conversion of a binary32 value to a format with `precision` significand
// bits and MPFR exponent range [emin, emax] (MPFR writes x = 0.1b... * 2^e), so
// binary16: precision 11, emin -23 (2^-24 = 0.5 * 2^-23), emax 16 (65504 = 0.11111111111b * 2^16);
// bfloat16: precision 8, emin -132 (2^-133 = 0.5 * 2^-132), emax 128.
// mpfr_set_flt rounds to nearest even and sends overflow to infinity and |x| <= half the smallest
// subnormal to zero; mpfr_subnormalize, given the ternary value, rounds again to the subnormal
// precision without double rounding. The result is read back as an exact double.
class MpfrRounder {
 public:
  MpfrRounder(int precision, mpfr_exp_t emin, mpfr_exp_t emax) : emin_(emin), emax_(emax) {
    mpfr_init2(value_, precision);
  }
  ~MpfrRounder() { mpfr_clear(value_); }
  MpfrRounder(const MpfrRounder&) = delete;
  MpfrRounder& operator=(const MpfrRounder&) = delete;

  double round(float x) {
    const mpfr_exp_t old_emin = mpfr_get_emin();
    const mpfr_exp_t old_emax = mpfr_get_emax();
    mpfr_set_emin(emin_);
    mpfr_set_emax(emax_);
    int ternary = mpfr_set_flt(value_, x, MPFR_RNDN);
    ternary = mpfr_subnormalize(value_, ternary, MPFR_RNDN);
    (void)ternary;
    mpfr_set_emin(old_emin);
    mpfr_set_emax(old_emax);
    return mpfr_get_d(value_, MPFR_RNDN);  // exact: the value has at most 11 bits
  }

 private:
  mpfr_t value_;
  mpfr_exp_t emin_;
  mpfr_exp_t emax_;
};

// Maps an exactly representable binary16 value (or infinity) to its bits: the non-negative patterns
// 0x0000..0x7C00 are increasing in value, so the index found by binary search is the pattern.
class HalfValueTable {
 public:
  HalfValueTable() {
    for (std::uint32_t h = 0; h <= 0x7C00; ++h) {
      values_.push_back(half_value_by_definition(static_cast<std::uint16_t>(h)));
    }
  }
  std::uint16_t bits_of_value(double v) const {
    const auto it = std::lower_bound(values_.begin(), values_.end(), std::fabs(v));
    EXPECT_TRUE(it != values_.end() && *it == std::fabs(v)) << "not a binary16 value: " << v;
    const auto magnitude = static_cast<std::uint16_t>(it - values_.begin());
    return static_cast<std::uint16_t>((std::signbit(v) ? 0x8000 : 0) | magnitude);
  }

 private:
  std::vector<double> values_;
};

struct References {
  MpfrRounder half_rounder{11, -23, 16};
  MpfrRounder bfloat16_rounder{8, -132, 128};
  HalfValueTable half_table;

  std::uint16_t half_of(float x) { return half_table.bits_of_value(half_rounder.round(x)); }

  std::uint16_t bfloat16_of(float x) {
    // A bfloat16 value is a binary32 whose low 16 bits are zero; the upper 16 bits are its pattern.
    const float rounded = static_cast<float>(bfloat16_rounder.round(x));
    const std::uint32_t bits = bits_of(rounded);
    EXPECT_EQ(bits & 0xFFFFu, 0u) << "not a bfloat16 value: " << rounded;
    return static_cast<std::uint16_t>(bits >> 16);
  }
};

// Adds pattern p and its neighbours p-2..p+2 (in the ordering of patterns of one sign), for both signs.
void add_with_neighbours(std::vector<std::uint32_t>& out, std::uint32_t magnitude_bits) {
  for (int delta = -2; delta <= 2; ++delta) {
    const std::int64_t p = static_cast<std::int64_t>(magnitude_bits) + delta;
    if (p < 0 || p > 0x7FFFFFFF) continue;
    out.push_back(static_cast<std::uint32_t>(p));
    out.push_back(static_cast<std::uint32_t>(p) | 0x80000000u);
  }
}

std::vector<std::uint32_t> narrowing_patterns() {
  std::vector<std::uint32_t> patterns;
  // Every binary32 exactly halfway between two adjacent non-negative binary16 values (normal and
  // subnormal, and the overflow tie 65520 between 65504 and 2^16), with neighbours, both signs.
  for (std::uint32_t h = 0; h < 0x7C00; ++h) {
    const double low = half_value_by_definition(static_cast<std::uint16_t>(h));
    const double high = (h + 1 == 0x7C00) ? 65536.0  // the next value if the exponent went on
                                          : half_value_by_definition(static_cast<std::uint16_t>(h + 1));
    const double middle = (low + high) / 2;
    const auto as_float = static_cast<float>(middle);
    EXPECT_EQ(static_cast<double>(as_float), middle);  // a binary16 midpoint is a binary32
    add_with_neighbours(patterns, bits_of(as_float));
  }
  // Every binary32 halfway between two adjacent non-negative bfloat16 values, including the overflow
  // tie 0x7F7F8000 between the largest finite value and 2^128, with neighbours, both signs.
  for (std::uint32_t b = 0; b < 0x7F80; ++b) {
    add_with_neighbours(patterns, (b << 16) | 0x8000u);
  }
  // Boundaries of spec/half-precision.md sections 2 and 4, each with neighbours and both signs.
  const std::uint32_t boundaries[] = {
      0x00000000u,  // zero
      0x00000001u,  // smallest binary32 subnormal
      0x007FFFFFu,  // largest binary32 subnormal
      0x00800000u,  // smallest binary32 normal
      0x33000000u,  // 2^-25, half the smallest binary16 subnormal
      0x33800000u,  // 2^-24, smallest binary16 subnormal
      0x387FC000u,  // largest binary16 subnormal
      0x38800000u,  // 2^-14, smallest binary16 normal
      0x3F800000u,  // 1
      0x477FE000u,  // 65504, largest binary16
      0x477FF000u,  // 65520, the binary16 overflow threshold
      0x47800000u,  // 65536
      0x7F7F0000u,  // largest bfloat16
      0x7F7F8000u,  // bfloat16 overflow tie
      0x7F7FFFFFu,  // largest binary32
      0x7F800000u,  // infinity
      0x7F800001u,  // smallest signalling NaN
      0x7FBFFFFFu,  // largest signalling NaN
      0x7FC00000u,  // default quiet NaN
      0x7FFFFFFFu,  // largest NaN pattern
      0x7F802000u,  // NaN whose payload is only bit 13
      0x7F801FFFu,  // NaN whose payload lies entirely below bit 13
  };
  for (const std::uint32_t b : boundaries) add_with_neighbours(patterns, b);
  // Every binary16 value itself (exact, must not move).
  for (std::uint32_t h = 0; h <= 0xFFFF; ++h) {
    patterns.push_back(bits_of(half_bits_to_float(static_cast<std::uint16_t>(h))));
  }
  // Random patterns: uniform over all 2^32, and uniform over the binary32 exponents near the
  // binary16 range (where most of its rounding cases lie). Fixed seed: the run is reproducible.
  std::mt19937 generator(20240611u);
  std::uniform_int_distribution<std::uint32_t> any_bits;
  std::uniform_int_distribution<std::uint32_t> near_exponent(96, 145);
  for (int i = 0; i < 1000000; ++i) patterns.push_back(any_bits(generator));
  for (int i = 0; i < 600000; ++i) {
    const std::uint32_t bits = any_bits(generator);
    patterns.push_back((bits & 0x807FFFFFu) | (near_exponent(generator) << 23));
  }
  std::sort(patterns.begin(), patterns.end());
  patterns.erase(std::unique(patterns.begin(), patterns.end()), patterns.end());
  return patterns;
}

bool float_is_nan(std::uint32_t bits) { return (bits & 0x7FFFFFFFu) > 0x7F800000u; }

TEST(HalfConversion, NarrowingMatchesMpfrOnTwoMillionPatterns) {
  const std::vector<std::uint32_t> patterns = narrowing_patterns();
  ASSERT_GE(patterns.size(), 2000000u);
  RecordProperty("distinct_patterns", static_cast<int>(patterns.size()));
  References references;
  std::size_t nan_count = 0;
  for (const std::uint32_t bits : patterns) {
    const float x = float_of(bits);
    const std::uint16_t half = float_to_half_bits(x);
    const std::uint16_t bfloat = float_to_bfloat16_bits(x);
    if (float_is_nan(bits)) {
      // MPFR has no NaN payloads: the payload rule of spec/half-precision.md sections 2.1 and 4,
      // and that the result is a NaN of the format.
      ++nan_count;
      ASSERT_TRUE(half_is_nan(half)) << std::hex << bits;
      ASSERT_EQ(half, ((bits >> 16) & 0x8000u) | 0x7E00u | ((bits >> 13) & 0x1FFu)) << std::hex << bits;
      ASSERT_TRUE(bfloat16_is_nan(bfloat)) << std::hex << bits;
      ASSERT_EQ(bfloat, (bits >> 16) | 0x40u) << std::hex << bits;
      continue;
    }
    ASSERT_EQ(half, references.half_of(x)) << "binary16 of 0x" << std::hex << bits;
    ASSERT_EQ(bfloat, references.bfloat16_of(x)) << "bfloat16 of 0x" << std::hex << bits;
  }
  EXPECT_GT(nan_count, 1000u);  // random patterns hit NaNs too
}

// Hand-derived values from the definitions (independent of both the code and MPFR), so that a
// mis-configured reference would be caught as well.
TEST(HalfConversion, HandDerivedValues) {
  References references;
  struct Case {
    float x;
    std::uint16_t half;
  };
  const Case cases[] = {
      {1.0f, 0x3C00},
      {1.0f + 0x1p-11f, 0x3C00},        // tie between 1 and 1+2^-10: even is 1
      {1.0f + 3 * 0x1p-11f, 0x3C02},    // tie between 1+2^-10 and 1+2^-9: even is 1+2^-9
      {65504.0f, 0x7BFF},
      {65519.99609375f, 0x7BFF},         // just below 65520
      {65520.0f, 0x7C00},                // tie: the even neighbour is 2^16, out of range
      {0x1p-24f, 0x0001},
      {0x1p-25f, 0x0000},                // tie between 0 and 2^-24: even is 0
      {std::nextafter(0x1p-25f, 1.0f), 0x0001},
      {-0x1p-25f, 0x8000},
      {3 * 0x1p-25f, 0x0002},            // tie between 1 and 2 units: even is 2
      {0x1p-14f - 0x1p-25f, 0x0400},     // tie between largest subnormal and 2^-14: even is 0x400
      {std::numeric_limits<float>::max(), 0x7C00},
      {-std::numeric_limits<float>::infinity(), 0xFC00},
  };
  for (const Case& c : cases) {
    EXPECT_EQ(float_to_half_bits(c.x), c.half) << c.x;
    EXPECT_EQ(references.half_of(c.x), c.half) << c.x;
  }
  struct BfCase {
    std::uint32_t bits;
    std::uint16_t bfloat;
  };
  const BfCase bf_cases[] = {
      {0x3F808000u, 0x3F80},  // tie, even stays
      {0x3F818000u, 0x3F82},  // tie, odd rounds up
      {0x3F808001u, 0x3F81},
      {0x7F7F7FFFu, 0x7F7F},
      {0x7F7F8000u, 0x7F80},  // overflow tie goes to infinity
      {0x00008000u, 0x0000},  // subnormal tie to even zero
      {0x00018000u, 0x0002},
      {0x80000000u, 0x8000},
  };
  for (const BfCase& c : bf_cases) {
    EXPECT_EQ(float_to_bfloat16_bits(float_of(c.bits)), c.bfloat) << std::hex << c.bits;
    EXPECT_EQ(references.bfloat16_of(float_of(c.bits)), c.bfloat) << std::hex << c.bits;
  }
}

TEST(HalfConversion, BulkFormsEqualScalarForms) {
  std::vector<std::uint16_t> all16(65536);
  for (std::uint32_t i = 0; i <= 0xFFFF; ++i) all16[i] = static_cast<std::uint16_t>(i);
  std::vector<float> wide(all16.size());
  onemodel::half_bits_to_floats(all16, wide);
  for (std::uint32_t i = 0; i <= 0xFFFF; ++i) {
    ASSERT_EQ(bits_of(wide[i]), bits_of(half_bits_to_float(all16[i])));
  }
  onemodel::bfloat16_bits_to_floats(all16, wide);
  for (std::uint32_t i = 0; i <= 0xFFFF; ++i) {
    ASSERT_EQ(bits_of(wide[i]), bits_of(bfloat16_bits_to_float(all16[i])));
  }
  std::vector<float> floats;
  std::mt19937 generator(7u);
  for (int i = 0; i < 200000; ++i) floats.push_back(float_of(generator()));
  std::vector<std::uint16_t> narrow(floats.size());
  onemodel::floats_to_half_bits(floats, narrow);
  for (std::size_t i = 0; i < floats.size(); ++i) ASSERT_EQ(narrow[i], float_to_half_bits(floats[i]));
  onemodel::floats_to_bfloat16_bits(floats, narrow);
  for (std::size_t i = 0; i < floats.size(); ++i) {
    ASSERT_EQ(narrow[i], float_to_bfloat16_bits(floats[i]));
  }
}

}  // namespace
