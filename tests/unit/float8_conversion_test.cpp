// spec/tensors.md section 2.1: the 8-bit float conversions of onemodel/float8.hpp against the
// independent statement of tests/support/float8_reference.hpp (std::ldexp decoding; nearest entry
// of the table of values, ties to the even code; std::frexp for E8M0).
//   - Widening: all 256 patterns of each of the five formats.
//   - Narrowing from binary16: all 65536 patterns, saturate on and off, every E8M0 rounding.
//   - Narrowing from binary32: a strided subset of the 2^32 patterns (every 4099th, about a
//     million) plus every boundary: each table value, each midpoint between neighbours and the
//     binary32 numbers on either side, the largest finite value, the overflow threshold,
//     subnormals, NaN, infinities, signed zeros; saturate on and off. tools/float8_sweep runs
//     all 2^32.
//   - Narrowing from binary64: midpoints nudged by 2^-40 relative, where going through binary32
//     first would round twice (and does, shown), must round once.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include "onemodel/float8.hpp"
#include "onemodel/half.hpp"
#include "tests/support/float8_reference.hpp"

namespace onemodel {
namespace {

using float8_reference::Table;

constexpr Float8Format kMantissaFormats[] = {Float8Format::E4M3FN, Float8Format::E4M3FNUZ, Float8Format::E5M2,
                                             Float8Format::E5M2FNUZ};
constexpr Float8Format kAllFormats[] = {Float8Format::E4M3FN, Float8Format::E4M3FNUZ, Float8Format::E5M2,
                                        Float8Format::E5M2FNUZ, Float8Format::E8M0};
constexpr E8M0Rounding kRoundings[] = {E8M0Rounding::Up, E8M0Rounding::Down, E8M0Rounding::Nearest};

float float_of(std::uint32_t bits) {
  float value;
  std::memcpy(&value, &bits, sizeof value);
  return value;
}

int name_of(Float8Format f) { return static_cast<int>(f); }

float8_reference::Expected expected(Float8Format f, const Table* table, double x, bool saturate, E8M0Rounding r) {
  if (f == Float8Format::E8M0) return float8_reference::encode_e8m0(x, saturate, r);
  return table->encode(x, saturate);
}

// Counts the values where float_to_float8_bits (and, on the same value, double_to_float8_bits)
// differ from the reference; prints the first few.
struct Checker {
  Float8Format format;
  Table* table;
  int failures = 0;
  void check(float x) {
    for (const bool saturate : {true, false}) {
      for (const E8M0Rounding r : kRoundings) {
        if (format != Float8Format::E8M0 && r != E8M0Rounding::Up) continue;
        const float8_reference::Expected want = expected(format, table, static_cast<double>(x), saturate, r);
        const std::uint8_t got32 = float_to_float8_bits(format, x, saturate, r);
        const std::uint8_t got64 = double_to_float8_bits(format, static_cast<double>(x), saturate, r);
        if (!float8_reference::matches(format, want, got32) || !float8_reference::matches(format, want, got64)) {
          if (++failures <= 8) {
            std::uint32_t bits;
            std::memcpy(&bits, &x, sizeof bits);
            ADD_FAILURE() << "format " << name_of(format) << " x = " << x << " (0x" << std::hex << bits << ") saturate "
                          << saturate << " rounding " << static_cast<int>(r) << ": got 0x" << int{got32} << " / 0x"
                          << int{got64} << ", want 0x" << int{want.code} << (want.nan ? " (NaN)" : "");
          }
        }
      }
    }
  }
};

TEST(Float8Conversion, EveryPatternWidensToItsValue) {
  for (const Float8Format f : kAllFormats) {
    int nans = 0;
    for (int c = 0; c < 256; ++c) {
      const auto code = static_cast<std::uint8_t>(c);
      const float got = float8_bits_to_float(f, code);
      const double want = float8_reference::decode(f, code);
      if (std::isnan(want)) {
        ++nans;
        EXPECT_TRUE(std::isnan(got)) << name_of(f) << " code " << c;
        continue;
      }
      EXPECT_EQ(static_cast<double>(got), want) << name_of(f) << " code " << c;
      EXPECT_EQ(std::signbit(got), std::signbit(want)) << name_of(f) << " code " << c;
    }
    // NaN codes per format: FN 2 (S.1111.111), FNUZ 1 (0x80), E5M2 6 (S.11111.01/10/11), E8M0 1.
    const int want_nans = f == Float8Format::E4M3FN ? 2 : f == Float8Format::E5M2 ? 6 : 1;
    EXPECT_EQ(nans, want_nans) << name_of(f);
  }
}

TEST(Float8Conversion, LargestValuesAreOnnxs) {
  // The ONNX Cast schema's FLT_MAX of each format, and E8M0's ends.
  EXPECT_EQ(float8_bits_to_float(Float8Format::E4M3FN, 0x7E), 448.0f);
  EXPECT_EQ(float8_bits_to_float(Float8Format::E4M3FNUZ, 0x7F), 240.0f);
  EXPECT_EQ(float8_bits_to_float(Float8Format::E5M2, 0x7B), 57344.0f);
  EXPECT_EQ(float8_bits_to_float(Float8Format::E5M2FNUZ, 0x7F), 57344.0f);
  EXPECT_EQ(float8_bits_to_float(Float8Format::E8M0, 0xFE), std::ldexp(1.0f, 127));
  EXPECT_EQ(float8_bits_to_float(Float8Format::E8M0, 0x00), std::ldexp(1.0f, -127));
  EXPECT_EQ(float8_bits_to_float(Float8Format::E5M2, 0x7C), std::numeric_limits<float>::infinity());
}

TEST(Float8Conversion, EveryBinary16PatternNarrowsLikeTheReference) {
  for (const Float8Format f : kAllFormats) {
    Table table(f == Float8Format::E8M0 ? Float8Format::E4M3FN : f);
    Checker checker{f, &table};
    for (std::uint32_t h = 0; h < 65536; ++h) checker.check(half_bits_to_float(static_cast<std::uint16_t>(h)));
    EXPECT_EQ(checker.failures, 0) << name_of(f);
  }
}

TEST(Float8Conversion, StridedBinary32PatternsNarrowLikeTheReference) {
  for (const Float8Format f : kAllFormats) {
    Table table(f == Float8Format::E8M0 ? Float8Format::E4M3FN : f);
    Checker checker{f, &table};
    for (std::uint64_t bits = 0; bits < (std::uint64_t{1} << 32); bits += 4099) {
      checker.check(float_of(static_cast<std::uint32_t>(bits)));
    }
    EXPECT_EQ(checker.failures, 0) << name_of(f);
  }
}

TEST(Float8Conversion, EveryBoundaryNarrowsLikeTheReference) {
  const float inf = std::numeric_limits<float>::infinity();
  std::vector<float> specials = {0.0f, -0.0f, inf, -inf, std::numeric_limits<float>::quiet_NaN(),
                                 float_of(0xFFC00000u), float_of(0x7F800001u), float_of(0xFF800001u),
                                 float_of(0x00000001u), float_of(0x80000001u), float_of(0x007FFFFFu),
                                 float_of(0x00400000u), float_of(0x00400001u), float_of(0x003FFFFFu),
                                 float_of(0x00600000u), float_of(0x00800000u), float_of(0x7F7FFFFFu),
                                 float_of(0xFF7FFFFFu)};
  for (const Float8Format f : kMantissaFormats) {
    Table table(f);
    Checker checker{f, &table};
    const std::vector<double>& v = table.values();
    for (std::size_t i = 0; i < v.size(); ++i) {
      std::vector<float> points = {static_cast<float>(v[i])};
      if (i + 1 < v.size()) points.push_back(static_cast<float>((v[i] + v[i + 1]) / 2));  // the tie
      for (const float p : std::vector<float>(points)) {
        points.push_back(std::nextafter(p, inf));
        points.push_back(std::nextafter(p, -inf));
      }
      for (const float p : points) {
        checker.check(p);
        checker.check(-p);
      }
    }
    // Far above the overflow threshold and far below the smallest subnormal's half.
    for (const float p : {1e10f, 3e38f, 1e-10f, 1e-30f}) {
      checker.check(p);
      checker.check(-p);
    }
    for (const float p : specials) checker.check(p);
    EXPECT_EQ(checker.failures, 0) << name_of(f);
  }
  // E8M0: every power of two of its range and the neighbours of 2^k and 1.5 * 2^k.
  Table unused(Float8Format::E4M3FN);
  Checker e8m0{Float8Format::E8M0, &unused};
  for (int k = -150; k <= 129; ++k) {
    for (const double m : {1.0, 1.5}) {
      const float p = static_cast<float>(std::ldexp(m, k));
      for (const float q : {p, std::nextafter(p, inf), std::nextafter(p, -inf)}) {
        e8m0.check(q);
        e8m0.check(-q);
      }
    }
  }
  for (const float p : specials) e8m0.check(p);
  EXPECT_EQ(e8m0.failures, 0);
}

// The ONNX Cast schema's two tables, row by row, for E4M3FN (float32 input).
TEST(Float8Conversion, OnnxTablesForE4M3FN) {
  const Float8Format f = Float8Format::E4M3FN;
  const float inf = std::numeric_limits<float>::infinity();
  EXPECT_EQ(float_to_float8_bits(f, inf, true), 0x7E);
  EXPECT_EQ(float_to_float8_bits(f, -inf, true), 0xFE);
  EXPECT_EQ(float_to_float8_bits(f, inf, false), 0x7F);
  EXPECT_EQ(float_to_float8_bits(f, -inf, false), 0xFF);
  EXPECT_EQ(float_to_float8_bits(f, -0.0f, true), 0x80);
  EXPECT_EQ(float_to_float8_bits(Float8Format::E4M3FNUZ, -0.0f, true), 0x00);
  EXPECT_EQ(float_to_float8_bits(Float8Format::E5M2FNUZ, -1e-30f, false), 0x00);
  // 464 is the tie between 448 (0x7E, even) and 480 (beyond the range): 448. Above it overflows.
  EXPECT_EQ(float_to_float8_bits(f, 464.0f, false), 0x7E);
  EXPECT_EQ(float_to_float8_bits(f, std::nextafter(464.0f, inf), false), 0x7F);
  EXPECT_EQ(float_to_float8_bits(f, std::nextafter(464.0f, inf), true), 0x7E);
  // E5M2: 61440 is the tie between 57344 (0x7B, odd) and 65536 (0x7C, even): infinity / max.
  EXPECT_EQ(float_to_float8_bits(Float8Format::E5M2, 61440.0f, false), 0x7C);
  EXPECT_EQ(float_to_float8_bits(Float8Format::E5M2, 61440.0f, true), 0x7B);
  EXPECT_EQ(float_to_float8_bits(Float8Format::E5M2, std::nextafter(61440.0f, 0.0f), false), 0x7B);
}

// A binary64 value is rounded once: the midpoint between two neighbours nudged by a relative 2^-40
// rounds to binary32 onto the midpoint itself, whose tie then goes to the even code; the direct
// rounding goes to the side of the nudge.
TEST(Float8Conversion, Binary64RoundsOnceNotThroughBinary32) {
  int double_rounding_cases = 0;
  for (const Float8Format f : kMantissaFormats) {
    Table table(f);
    const std::vector<double>& v = table.values();
    int failures = 0;
    for (std::size_t i = 0; i + 2 < v.size(); ++i) {
      const double mid = (v[i] + v[i + 1]) / 2;
      for (const double x : {mid + std::ldexp(mid, -40), mid - std::ldexp(mid, -40)}) {
        for (const bool saturate : {true, false}) {
          for (const double s : {x, -x}) {
            const auto want = table.encode(s, saturate);
            const std::uint8_t got = double_to_float8_bits(f, s, saturate);
            if (!float8_reference::matches(f, want, got) && ++failures <= 5) {
              ADD_FAILURE() << name_of(f) << " x = " << s << ": got 0x" << std::hex << int{got} << ", want 0x"
                            << int{want.code};
            }
            if (float_to_float8_bits(f, static_cast<float>(s), saturate) != got) ++double_rounding_cases;
          }
        }
      }
    }
    EXPECT_EQ(failures, 0) << name_of(f);
  }
  // The test has teeth: rounding through binary32 would be wrong at half of these points.
  EXPECT_GT(double_rounding_cases, 100);
  // E8M0 Up: 2^60 * (1 + 2^-40) is above 2^60, so it goes up to 2^61 (code 188).
  EXPECT_EQ(double_to_float8_bits(Float8Format::E8M0, std::ldexp(1.0 + std::ldexp(1.0, -40), 60), true), 188);
  EXPECT_EQ(float_to_float8_bits(Float8Format::E8M0, static_cast<float>(std::ldexp(1.0 + std::ldexp(1.0, -40), 60)), true), 187);
}

}  // namespace
}  // namespace onemodel
