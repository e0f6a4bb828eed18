// The exact Pow (reference/math/exact_pow.*, spec/exact-transcendentals.md section 10):
// - special cases against C's pow (std::pow in double is the oracle for these only: its special
//   values are those of C17 Annex F.10.4.4, independent of our code);
// - the accuracy bounds of section 10.6 against MPFR's correctly rounded mpfr_pow, over a strided
//   sweep of float32 bases times a list of exponents, negative bases with integer exponents, and
//   seeded random pairs;
// - integer bases against exact GMP powers rounded to double (section 10.5);
// - the operator (reference engine, both modes) on a one-node model.
#include <gmp.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "core/util/sha256.hpp"
#include "reference/math/exact_pow.hpp"
#include "reference/ops/float_to_integer.hpp"
#include "tests/support/mpfr_pow.hpp"

namespace {

using onemodel::testing::MpfrPow;
namespace ex = onemodel::exact;

constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kNan = std::numeric_limits<float>::quiet_NaN();

std::uint32_t bits(float x) {
  std::uint32_t u;
  std::memcpy(&u, &x, sizeof u);
  return u;
}

float from_bits(std::uint32_t u) {
  float x;
  std::memcpy(&x, &u, sizeof x);
  return x;
}

// Section 10.6 bounds.
constexpr double kBoundLogExp = 0.501;  // step 9
constexpr double kBoundSquare = 0.5;    // y = 2
constexpr double kBoundCube = 1.5;      // y = 3: < 1 spacing from x*x, 0.5 from the last product

double bound_for(double y) {
  if (y == 2) return kBoundSquare;
  if (y == 3) return kBoundCube;
  if (y == 1) return 0;
  return kBoundLogExp;
}

// ---- Special cases: C pow (double) as the oracle, bit for bit incl. the sign of zero ---------

const float kSpecialBases[] = {0.0f, -0.0f, 1.0f, -1.0f, kInf, -kInf, kNan, 0.5f, -0.5f, 2.0f, -2.0f,
                               3.0f, -3.0f, 1e-45f, -1e-45f, 3.4028235e38f, -3.4028235e38f, 0.999999f,
                               -1.000001f};
const double kSpecialExponents[] = {0.0, -0.0, 1.0, -1.0, 2.0, -2.0, 3.0, -3.0, 4.0, -5.0, 0.5, -0.5, 2.5,
                                    -2.5, 1e10, -1e10, 9007199254740992.0, -9007199254740993.0 + 1.0,
                                    9007199254740990.0 + 1.0, 1e300, -1e300, 0.1, -0.1,
                                    std::numeric_limits<double>::infinity(),
                                    -std::numeric_limits<double>::infinity(),
                                    std::numeric_limits<double>::quiet_NaN()};

// A pair is "special" when C pow's result is decided by the special-case rules rather than by
// rounding: a zero, infinite, NaN or +-1 base, an infinite or NaN or zero exponent, a negative
// base with a non-integer exponent, or a result that overflows or underflows completely.
bool decided_by_rules(float x, double y, double c) {
  return x == 0 || std::isinf(x) || std::isnan(x) || std::fabs(x) == 1 || std::isinf(y) || std::isnan(y) ||
         y == 0 || std::isnan(c) || std::isinf(static_cast<float>(c)) || static_cast<float>(c) == 0;
}

TEST(PowExact, SpecialCasesEqualCPow) {
  int checked = 0;
  MpfrPow ref;
  for (float x : kSpecialBases) {
    for (double y : kSpecialExponents) {
      const double c = std::pow(static_cast<double>(x), y);
      const float got = ex::pow(x, y);
      SCOPED_TRACE(testing::Message() << "x=" << x << " y=" << y << " C pow=" << c << " got=" << got);
      if (decided_by_rules(x, y, c)) {
        if (std::isnan(c)) {
          EXPECT_TRUE(std::isnan(got));
        } else {
          EXPECT_EQ(bits(got), bits(static_cast<float>(c)));
        }
        ++checked;
      } else {
        // Finite, rounded results: the sign must agree, the magnitude within the bound.
        EXPECT_EQ(std::signbit(got), std::signbit(c));
        ref.evaluate(x, y);
        EXPECT_LE(ref.float_ulp_error(got), bound_for(y));
      }
      // The double base follows the same rules (C pow on the same double arguments).
      const double got_d = ex::pow(static_cast<double>(x), y);
      if (std::isnan(c)) {
        EXPECT_TRUE(std::isnan(got_d));
      } else if (decided_by_rules(x, y, c) && (c == 0 || std::isinf(c) || std::fabs(c) == 1)) {
        EXPECT_EQ(got_d, c);
        EXPECT_EQ(std::signbit(got_d), std::signbit(c));
      }
    }
  }
  EXPECT_GT(checked, 300);
}

TEST(PowExact, NamedCasesFromTheText) {
  // spec/exact-transcendentals.md section 10.2, one line per rule.
  EXPECT_EQ(ex::pow(kNan, 0.0), 1.0f);                         // 1: x^0 = 1 for NaN x
  EXPECT_EQ(ex::pow(1.0f, std::nan("")), 1.0f);                // 2: 1^y = 1 for NaN y
  EXPECT_TRUE(std::isnan(ex::pow(kNan, 2.0)));                 // 3
  EXPECT_EQ(bits(ex::pow(-0.0f, 3.0)), bits(-0.0f));           // 4: (-0)^3 = -0
  EXPECT_EQ(ex::pow(-kInf, 2.0), kInf);                        // 4
  EXPECT_EQ(ex::pow(-1.0f, -std::numeric_limits<double>::infinity()), 1.0f);  // 5
  EXPECT_EQ(bits(ex::pow(-0.0f, 5.0)), bits(-0.0f));           // 6: odd, y > 0: x itself
  EXPECT_EQ(bits(ex::pow(-0.0f, 4.0)), bits(0.0f));            // 6: even: +0
  EXPECT_EQ(ex::pow(-0.0f, -5.0), -kInf);                      // 6: odd, y < 0
  EXPECT_EQ(ex::pow(-0.0f, -0.5), kInf);                       // 6
  EXPECT_EQ(bits(ex::pow(-kInf, -5.0)), bits(-0.0f));          // 7
  EXPECT_EQ(ex::pow(-kInf, 5.0), -kInf);                       // 7
  EXPECT_EQ(ex::pow(-kInf, 0.5), kInf);                        // 7
  EXPECT_TRUE(std::isnan(ex::pow(-2.0f, 0.5)));                // 8
  EXPECT_EQ(ex::pow(-2.0f, 5.0), -32.0f);                      // 9: sign by parity
  EXPECT_EQ(ex::pow(-2.0f, -2.0), 0.25f);
  EXPECT_EQ(ex::pow(3.0f, 2.0), 9.0f);
  EXPECT_EQ(ex::pow(1e30f, 2.0), kInf);                        // the product overflows
  EXPECT_EQ(ex::pow(2.0f, 0.5), 1.41421354f);                  // sqrt(2) correctly rounded
  EXPECT_EQ(ex::pow(2.0f, -149.0), from_bits(1));              // the smallest subnormal
  // (2^-150 is a tie between 0 and 2^-149: step 9 lands within 2^-44 of it, either side, so a
  // result exactly halfway between two floats may round either way; section 10.6.)
  EXPECT_EQ(ex::pow(2.0f, 127.0), 1.7014118e38f);
  EXPECT_EQ(ex::pow(2.0f, 128.0), kInf);
}

TEST(PowExact, ParityAndIntegerTests) {
  namespace d = ex::pow_detail;
  EXPECT_TRUE(d::is_odd_integer(3.0));
  EXPECT_TRUE(d::is_odd_integer(-3.0));
  EXPECT_FALSE(d::is_odd_integer(4.0));
  EXPECT_FALSE(d::is_odd_integer(2.5));
  EXPECT_TRUE(d::is_odd_integer(9007199254740991.0));   // 2^53 - 1
  EXPECT_FALSE(d::is_odd_integer(9007199254740992.0));  // 2^53: even
  EXPECT_TRUE(d::is_integer(4503599627370497.0));        // 2^52 + 1
  EXPECT_FALSE(d::is_integer(4503599627370495.5));       // 2^52 - 0.5
  EXPECT_TRUE(d::is_integer(-0.0));
  EXPECT_FALSE(d::is_integer(std::nan("")));
}

// ---- Accuracy against MPFR ----------------------------------------------------------------------

struct Worst {
  double ulp = 0;
  float x = 0;
  double y = 0;
  long points = 0;
  void see(double e, float xx, double yy) {
    ++points;
    if (e > ulp) {
      ulp = e;
      x = xx;
      y = yy;
    }
  }
};

const double kSweepExponents[] = {2.0, 3.0, 0.5, -0.5, -1.0, -2.0, -3.0, 4.0, 5.0, 7.0, 1.5, 2.5, -1.5,
                                  1.0 / 3.0, 0.33333334326744080, 0.1, -0.1, 1.1, 10.0, -10.0, 31.0, 0.01,
                                  0.75, 1.0000001192092896};

TEST(PowExact, StridedSweepWithinTheBoundAgainstMpfr) {
  MpfrPow ref;
  Worst log_exp, square, cube;
  constexpr std::uint32_t kStride = 65521;  // a prime: every exponent field and mantissa pattern mix
  for (std::uint32_t u = 1; u < 0x7F800000u; u += kStride) {
    for (int sign = 0; sign < 2; ++sign) {
      const float x = from_bits(u | (sign ? 0x80000000u : 0u));
      for (double y : kSweepExponents) {
        if (x < 0 && !ex::pow_detail::is_integer(y)) continue;  // NaN, tested above
        const float got = ex::pow(x, y);
        // Section 10.2 step 4 states the products; they must be those bits, not just close.
        if (y == 2) {
          ASSERT_EQ(bits(got), bits(x * x)) << x;
        }
        if (y == 3) {
          ASSERT_EQ(bits(got), bits((x * x) * x)) << x;
        }
        ref.evaluate(x, y);
        const double e = ref.float_ulp_error(got);
        (y == 2 ? square : y == 3 ? cube : log_exp).see(e, x, y);
      }
    }
  }
  std::printf("step 9: %ld points, max %.6f ulp at x=%.9g y=%.17g\n", log_exp.points, log_exp.ulp,
              static_cast<double>(log_exp.x), log_exp.y);
  std::printf("y = 2: %ld points, max %.6f ulp; y = 3: %ld points, max %.6f ulp at x=%.9g\n", square.points,
              square.ulp, cube.points, cube.ulp, static_cast<double>(cube.x));
  EXPECT_GT(log_exp.points, 1000000);
  EXPECT_LE(log_exp.ulp, kBoundLogExp);
  EXPECT_LE(square.ulp, kBoundSquare);
  EXPECT_LE(cube.ulp, kBoundCube);
}

// Random pairs whose result lands in the float range: y chosen so that y ln|x| is uniform in
// [-110, 95], slightly beyond both limits, then rounded to float (an f32 exponent) or kept double.
TEST(PowExact, RandomPairsWithinTheBoundAgainstMpfr) {
  MpfrPow ref;
  Worst worst;
  std::mt19937_64 rng(20261201);
  std::uniform_real_distribution<double> target(-110.0, 95.0);
  for (int i = 0; i < 200000; ++i) {
    float x = from_bits(static_cast<std::uint32_t>(rng()) & 0x7F7FFFFFu);
    if (x == 0 || x == 1) continue;
    double y = target(rng) / std::log(static_cast<double>(x));
    if (i % 2 == 0) y = static_cast<float>(y);
    if (i % 3 == 0) {  // a negative base needs an integer exponent
      y = std::nearbyint(y);
      if (y == 0) continue;
      x = -x;
    }
    if (!std::isfinite(y)) continue;
    const float got = ex::pow(x, y);
    ref.evaluate(x, y);
    const double e = ref.float_ulp_error(got);
    ASSERT_LE(e, bound_for(y)) << "x=" << x << " y=" << y;
    worst.see(e, x, y);
  }
  std::printf("random: %ld pairs, max %.6f ulp at x=%.9g y=%.17g\n", worst.points, worst.ulp,
              static_cast<double>(worst.x), worst.y);
  EXPECT_GT(worst.points, 150000);
}

// Double bases: the bound of section 10.6 in double ulps, 0.5 + kDoublePerUnitOfT * (1 + |y ln|x||).
constexpr double kDoublePerUnitOfT = 4.0;

TEST(PowExact, DoubleBaseWithinTheBoundAgainstMpfr) {
  MpfrPow ref;
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> target(-740.0, 705.0);
  double worst_excess = -1, worst_ulp = 0, worst_t = 0;
  for (int i = 0; i < 100000; ++i) {
    const double x = std::ldexp(1.0 + static_cast<double>(rng() >> 12) * 0x1p-52,
                                static_cast<int>(rng() % 2000) - 1000);
    if (x == 1) continue;
    const double t = target(rng);
    const double y = t / std::log(x);
    const double got = ex::pow(x, y);
    ref.evaluate(x, y);
    const double e = ref.double_ulp_error(got);
    const double ratio = (e - 0.5) / (1 + std::fabs(t));
    if (ratio > worst_excess) {
      worst_excess = ratio;
      worst_ulp = e;
      worst_t = t;
    }
  }
  std::printf("double base: worst (ulp - 0.5) / (1 + |t|) = %.3f (%.3f ulp at |t| = %.3f)\n", worst_excess, worst_ulp,
              std::fabs(worst_t));
  EXPECT_LE(worst_excess, kDoublePerUnitOfT);
}

// ---- Integer bases: exact GMP powers, rounded once to double, then Cast's rule ------------------

double exact_power_rounded(std::int64_t b, unsigned long n) {
  mpz_t z;
  mpz_init(z);
  mpz_set_si(z, static_cast<long>(b));
  mpz_pow_ui(z, z, n);
  mpfr_t f;
  mpfr_init2(f, 53);
  mpfr_set_z(f, z, MPFR_RNDN);  // nearest even, like the spec's one rounding
  const double d = mpfr_get_d(f, MPFR_RNDN);
  mpfr_clear(f);
  mpz_clear(z);
  return d;
}

TEST(PowExact, IntegerBasesEqualExactPowers) {
  std::vector<std::int64_t> bases;
  for (std::int64_t b = -40; b <= 40; ++b) bases.push_back(b);
  const std::int64_t large[] = {1000, -1000, 65536, 99999, 3037000499LL, 3037000500LL, 4294967296LL,
                                9007199254740993LL, std::numeric_limits<std::int64_t>::max(),
                                std::numeric_limits<std::int64_t>::min()};
  for (std::int64_t b : large) {
    bases.push_back(b);
  }
  for (std::int64_t b : bases) {
    for (int n = 0; n <= 70; ++n) {
      const double want = exact_power_rounded(b, static_cast<unsigned long>(n));
      const double got = ex::pow_integer_base(b, n);
      ASSERT_EQ(onemodel::ew::saturate_to_integer<std::int64_t>(got),
                onemodel::ew::saturate_to_integer<std::int64_t>(want))
          << b << "^" << n;
      ASSERT_EQ(onemodel::ew::saturate_to_integer<std::int32_t>(got),
                onemodel::ew::saturate_to_integer<std::int32_t>(want))
          << b << "^" << n;
    }
    for (int n = 1; n <= 5; ++n) {  // negative exponents: 1/b^n truncated
      const double want = b == 0 ? std::numeric_limits<double>::infinity() : 1.0 / exact_power_rounded(b, n);
      ASSERT_EQ(onemodel::ew::saturate_to_integer<std::int64_t>(ex::pow_integer_base(b, -n)),
                onemodel::ew::saturate_to_integer<std::int64_t>(want))
          << b << "^-" << n;
    }
  }
}

TEST(PowExact, IntegerBasesWithFractionalExponents) {
  // Exact roots land on their integer (the snap of section 10.5); others truncate the real value.
  MpfrPow ref;
  for (std::int64_t k = 2; k <= 3000; ++k) {
    ASSERT_EQ(onemodel::ew::saturate_to_integer<std::int64_t>(ex::pow_integer_base(k * k, 0.5)), k);
    ASSERT_EQ(onemodel::ew::saturate_to_integer<std::int64_t>(ex::pow_integer_base(k * k * k, 1.0 / 3.0)), k);
  }
  int band = 0;
  for (std::int64_t b = 2; b <= 200; ++b) {
    for (double y : {0.5, 1.5, 2.5, 0.33333334326744080, 3.7, -0.5, 7.25}) {
      // ONNX Runtime's value: the power rounded to double, then truncated. Below 2^30 the double
      // path's error (about 2^-45 relative) and the snap (2^-42) cannot move the integer part
      // unless the power is within 2^-41 of an integer; above, it may differ by that amount.
      ref.evaluate(static_cast<double>(b), y);
      const double want = ref.rounded_double();
      const auto got = onemodel::ew::saturate_to_integer<std::int64_t>(ex::pow_integer_base(b, y));
      const auto expected = onemodel::ew::saturate_to_integer<std::int64_t>(want);
      const double nearest = std::nearbyint(want);
      if (want < 0x1p30 && nearest != want && std::fabs(want - nearest) <= nearest * 0x1p-41) {
        // Within the snap band of section 10.5 without being an integer: either side is allowed.
        ++band;
        ASSERT_TRUE(got == expected || static_cast<double>(got) == nearest) << b << "^" << y;
      } else if (want < 0x1p30) {
        ASSERT_EQ(got, expected) << b << "^" << y;
      } else {
        ASSERT_LE(std::fabs(static_cast<double>(got) - static_cast<double>(expected)), want * 0x1p-42 + 1) << b << "^" << y;
      }
    }
  }
  std::printf("integer bases: %d of 1393 powers in the snap band\n", band);
  EXPECT_LE(band, 2);
  EXPECT_TRUE(std::isnan(ex::pow_integer_base(-8, 1.0 / 3.0)));
  EXPECT_EQ(ex::pow_integer_base(0, -0.5), std::numeric_limits<double>::infinity());
}

// ---- Pinned output hashes -------------------------------------------------------------------------
// SHA-256 of the outputs (NaN written as 0x7FC00000, little-endian) over every 16411th float32 bit
// pattern, a prime stride (NaNs, infinities, zeros and subnormals included) times the exponents below, then the
// double base over the same patterns widened, then integer bases. Regression pins computed once
// from this implementation after it passed the MPFR and GMP checks above: they catch any change
// of bits (an FMA contracted in, a reordered step, a changed constant) that the bounds let through.
const double kHashedExponents[] = {0.0, -0.0, 1.0, 2.0, 3.0, -1.0, -2.0, 4.0, 0.5, -0.5, 1.5, 0.1, 7.0, 1e10,
                                   -1e10, 2.5, 1.0 / 3.0, std::numeric_limits<double>::infinity(),
                                   -std::numeric_limits<double>::infinity(), std::numeric_limits<double>::quiet_NaN()};

std::string pow_output_hash() {
  onemodel::Sha256 sha;
  auto put_bytes = [&](std::uint64_t v, int n) {
    std::byte b[8];
    for (int i = 0; i < n; ++i) b[i] = std::byte((v >> (8 * i)) & 0xFF);
    sha.update(std::span<const std::byte>(b, static_cast<std::size_t>(n)));
  };
  for (double y : kHashedExponents) {
    for (std::uint64_t u = 0; u <= 0xFFFFFFFFu; u += 16411) {
      const float x = from_bits(static_cast<std::uint32_t>(u));
      const float r = ex::pow(x, y);
      put_bytes(std::isnan(r) ? 0x7FC00000u : bits(r), 4);
      const double d = ex::pow(static_cast<double>(x), y);
      std::uint64_t db;
      std::memcpy(&db, &d, sizeof db);
      put_bytes(std::isnan(d) ? 0x7FF8000000000000ull : db, 8);
    }
    for (std::int64_t b = -300; b <= 300; ++b) {
      put_bytes(static_cast<std::uint64_t>(onemodel::ew::saturate_to_integer<std::int64_t>(ex::pow_integer_base(b, y))), 8);
    }
  }
  return onemodel::to_hex(sha.finish());
}

TEST(PowExact, OutputsMatchThePinnedHash) {
  EXPECT_EQ(pow_output_hash(), "54f195d0fb3e30c05c2ae7280deb62f8fbc8edb16f8167e919ca0a4ff8318e31");
}

}  // namespace
