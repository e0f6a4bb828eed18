// The exact binary64 exp and log (reference/math/exact_exp64.cpp, exact_log64.cpp;
// spec/exact-transcendentals.md section 15): the stated error bounds against MPFR (128 bits) over a
// fixed sample, special values and limits from the text, canonical NaN, and a pinned output hash.
#include <gtest/gtest.h>

#include <mpfr.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>

#include "core/util/sha256.hpp"
#include "reference/math/exact_math64.hpp"
#include "tests/support/mpfr_f64.hpp"

namespace {

using onemodel::exact::exp_f64;
using onemodel::exact::log_f64;
using onemodel::testing::F64Function;
using onemodel::testing::MpfrF64;

// spec/exact-transcendentals.md section 15.5.
constexpr double kExpBound = 0.80;
constexpr double kLogBound = 0.85;

std::uint64_t bits(double x) {
  std::uint64_t u;
  std::memcpy(&u, &x, sizeof u);
  return u;
}

double from_bits(std::uint64_t u) {
  double x;
  std::memcpy(&x, &u, sizeof x);
  return x;
}

// Every 2^44-th bit pattern from 12345 (2^20 - 1 patterns, both signs, every exponent).
constexpr std::uint64_t kPatternStride = 1ull << 44;
constexpr std::uint64_t kPatternEnd = 0xFFFFF00000000000ull;

// The fixed sample: the bit patterns above, and every 2^-16 step of [-1, 1] and of [0.5, 2], and the stride-2^32 patterns
// next to 1.0 (log's sensitive region) — some 1.2 million points per function.
template <class Visit>
void for_each_sample(Visit visit) {
  for (std::uint64_t u = 12345; u < kPatternEnd; u += kPatternStride) visit(from_bits(u));
  for (int i = -65536; i <= 65536; ++i) visit(static_cast<double>(i) * 0x1p-16);
  for (int i = 0; i <= 98304; ++i) visit(0.5 + static_cast<double>(i) * 0x1p-16);
  for (std::uint64_t j = 0; j < 65536; ++j) {
    visit(from_bits(bits(1.0) + j * 0x100000001ull));
    visit(from_bits(bits(1.0) - 1 - j * 0x100000001ull));
  }
  for (int i = -7460; i <= 7100; ++i) visit(static_cast<double>(i) * 0.1 + 0.0123);
}

TEST(ExactF64Transcendentals, ExpIsWithinItsBoundOnTheSample) {
  MpfrF64 mpfr;
  double worst = 0, at = 0;
  std::uint64_t points = 0;
  for_each_sample([&](double x) {
    if (!std::isfinite(x) || x > 710.0 || x < -746.0) return;
    mpfr.evaluate(F64Function::exp, x);
    const double e = mpfr.ulp_error(exp_f64(x));
    ++points;
    if (e > worst) {
      worst = e;
      at = x;
    }
  });
  EXPECT_GT(points, 100000u);
  EXPECT_LE(worst, kExpBound) << "at x = " << at;
}

TEST(ExactF64Transcendentals, LogIsWithinItsBoundOnTheSample) {
  MpfrF64 mpfr;
  double worst = 0, at = 0;
  std::uint64_t points = 0;
  for_each_sample([&](double x) {
    const double a = std::fabs(x);
    if (!std::isfinite(a) || a == 0.0) return;
    mpfr.evaluate(F64Function::log, a);
    const double e = mpfr.ulp_error(log_f64(a));
    ++points;
    if (e > worst) {
      worst = e;
      at = a;
    }
  });
  EXPECT_GT(points, 100000u);
  EXPECT_LE(worst, kLogBound) << "at x = " << at;
}

// Sections 15.2 and 15.3, step 1, and values that are exact.
TEST(ExactF64Transcendentals, SpecialValuesAndLimits) {
  const double inf = std::numeric_limits<double>::infinity();
  const std::uint64_t canonical = 0x7FF8000000000000ull;
  EXPECT_EQ(bits(exp_f64(from_bits(0xFFF0000000000123ull))), canonical);  // a NaN with sign and payload
  EXPECT_EQ(bits(log_f64(from_bits(0x7FF4000000000001ull))), canonical);
  EXPECT_EQ(bits(log_f64(-1.0)), canonical);
  EXPECT_EQ(bits(log_f64(-inf)), canonical);
  EXPECT_EQ(bits(log_f64(-0x1p-1074)), canonical);
  EXPECT_EQ(log_f64(0.0), -inf);
  EXPECT_EQ(log_f64(-0.0), -inf);
  EXPECT_EQ(log_f64(inf), inf);
  EXPECT_EQ(bits(log_f64(1.0)), 0u);  // +0
  EXPECT_EQ(exp_f64(0.0), 1.0);
  EXPECT_EQ(exp_f64(-0.0), 1.0);
  EXPECT_EQ(exp_f64(inf), inf);
  EXPECT_EQ(bits(exp_f64(-inf)), 0u);
  EXPECT_EQ(exp_f64(710.0), inf);   // e^710 > 2^1024
  EXPECT_EQ(exp_f64(709.78), 1.7928227943945155e308);  // MPFR's correctly rounded e^709.78
  EXPECT_EQ(bits(exp_f64(-746.0)), 0u);
  EXPECT_EQ(exp_f64(-745.0), 0x1p-1074);  // e^-745 = 1.98e-324 rounds to the smallest subnormal
  EXPECT_EQ(log_f64(0x1p-1074), -744.44007192138126);  // -1074 ln 2, correctly rounded
  EXPECT_EQ(log_f64(2.0), 0.69314718055994531);        // ln 2, correctly rounded
  EXPECT_EQ(log_f64(std::numeric_limits<double>::max()), 709.78271289338397);
}

// SHA-256 of the little-endian outputs over the stride-2^44 bit patterns and a few specials: a
// regression pin. The two pins were first computed by an independent transcription of section 15
// into Python (whose float is IEEE binary64 with round-to-nearest-even, one rounding per operator),
// then reproduced by this implementation.
std::string output_hash(double (*fn)(double) noexcept) {
  onemodel::Sha256 sha;
  auto put = [&](double y) {
    const std::uint64_t b = bits(y);
    std::array<std::byte, 8> le{};
    for (int i = 0; i < 8; ++i) le[static_cast<std::size_t>(i)] = std::byte((b >> (8 * i)) & 0xFF);
    sha.update(le);
  };
  for (std::uint64_t u = 12345; u < kPatternEnd; u += kPatternStride) put(fn(from_bits(u)));
  for (std::uint64_t s : {0x0000000000000000ull, 0x8000000000000000ull, 0x7FF0000000000000ull, 0xFFF0000000000000ull,
                          0x0000000000000001ull, 0x7FEFFFFFFFFFFFFFull, 0x3FF0000000000000ull, 0xBFF0000000000000ull}) {
    put(fn(from_bits(s)));
  }
  return onemodel::to_hex(sha.finish());
}

TEST(ExactF64Transcendentals, OutputsMatchThePinnedHashes) {
  EXPECT_EQ(output_hash(exp_f64), "a71a149f56e3abc7735d456945d68c0a32f5e41fc8f09c88195c24225360a90f");
  EXPECT_EQ(output_hash(log_f64), "8786a81059dc04ad7b16d0f7ebf53bd91b3410a8b1db8dc427647e35d5709f3e");
}

}  // namespace
