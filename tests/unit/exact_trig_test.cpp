// The exact trigonometric and hyperbolic functions (reference/math/exact_trig.*, exact_hyperbolic.cpp,
// exact_inverse_trig.cpp; spec/exact-transcendentals.md sections 11-14): the integer range reduction
// against MPFR's pi, the documented error bounds against MPFR over a fixed sample, special values
// from the text, canonical NaN, and pinned output hashes.
#include <gtest/gtest.h>

#include <mpfr.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>

#include "core/util/sha256.hpp"
#include "reference/math/exact_trig.hpp"
#include "tests/support/mpfr_trig.hpp"

namespace {

using onemodel::testing::MpfrTrig;
using onemodel::testing::TrigFunction;

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

struct Function {
  const char* name;
  float (*fn)(float) noexcept;
  TrigFunction oracle;
  double bound;  // spec/exact-transcendentals.md section 14
};

const std::array<Function, 11> kFunctions = {{
    {"sin", onemodel::exact::sin, TrigFunction::sin, 0.501},
    {"cos", onemodel::exact::cos, TrigFunction::cos, 0.501},
    {"tan", onemodel::exact::tan, TrigFunction::tan, 0.501},
    {"sinh", onemodel::exact::sinh, TrigFunction::sinh, 0.501},
    {"cosh", onemodel::exact::cosh, TrigFunction::cosh, 0.501},
    {"asinh", onemodel::exact::asinh, TrigFunction::asinh, 0.501},
    {"acosh", onemodel::exact::acosh, TrigFunction::acosh, 0.501},
    {"atanh", onemodel::exact::atanh, TrigFunction::atanh, 0.501},
    {"atan", onemodel::exact::atan, TrigFunction::atan, 0.501},
    {"asin", onemodel::exact::asin, TrigFunction::asin, 0.501},
    {"acos", onemodel::exact::acos, TrigFunction::acos, 0.501},
}};

// ---------------------------------------------------------------- range reduction (section 11.2)

// |x| * 2/pi = n + f with MPFR at 400 bits (the largest float needs 128 integer bits and the
// smallest |f| of a float32 is near 2^-30, so 400 bits leave more than 200 to spare).
TEST(ExactTrig, ReductionMatchesMpfrPi) {
  mpfr_t y, twopi, n, f;
  mpfr_inits2(400, y, twopi, n, f, static_cast<mpfr_ptr>(nullptr));
  mpfr_const_pi(twopi, MPFR_RNDN);
  mpfr_ui_div(twopi, 2, twopi, MPFR_RNDN);  // 2/pi
  int checked = 0;
  // Every 65521st pattern from 0.78125 up to FLT_MAX, the float nearest each multiple of pi/2 up
  // to 2^12, and the float32 with the smallest |f| of all (7.72917892e28, |f| = 2^-29.86, found by
  // sweeping every float from 0.78125 up).
  std::vector<float> inputs;
  for (std::uint64_t u = 0x3F480000u; u <= 0x7F7FFFFFu; u += 65521) inputs.push_back(from_bits(static_cast<std::uint32_t>(u)));
  for (int k = 1; k < 2608; ++k) inputs.push_back(static_cast<float>(k * 1.5707963267948966));
  inputs.push_back(from_bits(0x6F79BE45u));
  for (float x : inputs) {
    mpfr_set_flt(y, x, MPFR_RNDN);
    mpfr_mul(y, y, twopi, MPFR_RNDN);  // relative error 2^-400
    mpfr_rint(n, y, MPFR_RNDN);
    mpfr_sub(f, y, n, MPFR_RNDN);
    mpfr_fmod_ui(n, n, 4, MPFR_RNDN);
    long q = mpfr_get_si(n, MPFR_RNDN);
    if (q < 0) q += 4;
    const double want = mpfr_get_d(f, MPFR_RNDN);
    const auto got = onemodel::exact::trig_detail::reduce_quarter_turns(x);
    // A fraction of exactly +-1/2 cannot occur (pi is irrational); the quadrant must agree.
    ASSERT_EQ(got.quadrant, static_cast<std::uint32_t>(q)) << "x = " << x;
    ASSERT_LE(std::fabs(got.f - want), std::fabs(want) * 0x1p-50) << "x = " << x << " f = " << want;
    ++checked;
  }
  mpfr_clears(y, twopi, n, f, static_cast<mpfr_ptr>(nullptr));
  EXPECT_GT(checked, 18000);
}

// ---------------------------------------------------------------- accuracy (section 14)

// The fixed sample: every 65537th bit pattern (both signs, every exponent), every 4096th float with
// 2^-10 <= |x| <= 8, and every 256th float of [0.9375, 1] and its negative (the inverse functions'
// hard ends).
std::vector<float> accuracy_sample() {
  std::vector<float> xs;
  for (std::uint64_t u = 0; u <= 0xFFFFFFFFull; u += 65537) xs.push_back(from_bits(static_cast<std::uint32_t>(u)));
  for (std::uint32_t u = 0x3A800000u; u <= 0x41000000u; u += 4096) {
    xs.push_back(from_bits(u));
    xs.push_back(from_bits(u | 0x80000000u));
  }
  for (std::uint32_t u = 0x3F700000u; u <= 0x3F800000u; u += 256) {
    xs.push_back(from_bits(u));
    xs.push_back(from_bits(u | 0x80000000u));
  }
  return xs;
}

TEST(ExactTrig, AccuracyIsWithinTheDocumentedBounds) {
  const std::vector<float> xs = accuracy_sample();
  MpfrTrig ref;
  for (const Function& f : kFunctions) {
    double max_ulp = 0;
    float at = 0;
    std::size_t points = 0;
    for (float x : xs) {
      if (!onemodel::testing::in_trig_domain(f.oracle, x)) continue;
      ref.evaluate(f.oracle, x);
      const double e = ref.ulp_error(f.fn(x));
      ++points;
      if (e > max_ulp) {
        max_ulp = e;
        at = x;
      }
    }
    EXPECT_GT(points, 20000u) << f.name;
    EXPECT_LE(max_ulp, f.bound) << f.name << " at x = " << at;
  }
}

// ---------------------------------------------------------------- special values (sections 11-13)

constexpr std::uint32_t kPosInf = 0x7F800000u, kNegInf = 0xFF800000u;
constexpr std::uint32_t kPosZero = 0x00000000u, kNegZero = 0x80000000u;
constexpr std::uint32_t kOne = 0x3F800000u, kNegOne = 0xBF800000u;
constexpr std::uint32_t kNan = 0x7FC00000u;
constexpr std::uint32_t kHalfPi = 0x3FC90FDBu;  // the float nearest pi/2
constexpr std::uint32_t kPi = 0x40490FDBu;      // the float nearest pi

struct Special {
  float (*fn)(float) noexcept;
  const char* name;
  std::uint32_t input;
  std::uint32_t expected;
};

TEST(ExactTrig, SpecialValuesFollowTheText) {
  using namespace onemodel::exact;
  const Special cases[] = {
      {sin, "sin", kPosZero, kPosZero}, {sin, "sin", kNegZero, kNegZero},
      {sin, "sin", kPosInf, kNan},      {sin, "sin", kNegInf, kNan},
      {cos, "cos", kNegZero, kOne},     {cos, "cos", kPosInf, kNan},
      {tan, "tan", kNegZero, kNegZero}, {tan, "tan", kNegInf, kNan},
      {sinh, "sinh", kNegZero, kNegZero}, {sinh, "sinh", kPosInf, kPosInf},
      {sinh, "sinh", kNegInf, kNegInf}, {sinh, "sinh", 0x42C80000u /*100*/, kPosInf},
      {cosh, "cosh", kNegZero, kOne},   {cosh, "cosh", kNegInf, kPosInf},
      {asinh, "asinh", kNegZero, kNegZero}, {asinh, "asinh", kNegInf, kNegInf},
      {acosh, "acosh", kOne, kPosZero}, {acosh, "acosh", kPosInf, kPosInf},
      {acosh, "acosh", 0x3F7FFFFFu, kNan}, {acosh, "acosh", kNegInf, kNan},
      {atanh, "atanh", kNegZero, kNegZero}, {atanh, "atanh", kOne, kPosInf},
      {atanh, "atanh", kNegOne, kNegInf}, {atanh, "atanh", 0x3F800001u, kNan},
      {atan, "atan", kNegZero, kNegZero}, {atan, "atan", kPosInf, kHalfPi},
      {atan, "atan", kNegInf, kHalfPi | 0x80000000u},
      {asin, "asin", kNegZero, kNegZero}, {asin, "asin", kOne, kHalfPi},
      {asin, "asin", kNegOne, kHalfPi | 0x80000000u}, {asin, "asin", 0xBF800001u, kNan},
      {acos, "acos", kOne, kPosZero},   {acos, "acos", kNegOne, kPi},
      {acos, "acos", kPosZero, kHalfPi}, {acos, "acos", 0x3F800001u, kNan},
  };
  for (const Special& c : cases) {
    EXPECT_EQ(bits(c.fn(from_bits(c.input))), c.expected)
        << c.name << "(0x" << std::hex << c.input << ")";
  }
}

TEST(ExactTrig, EveryNanInputGivesTheCanonicalNan) {
  const std::uint32_t nans[] = {0x7FC00000u, 0xFFC00000u, 0x7F800001u, 0xFF800001u, 0x7FFFFFFFu, 0x7FA5A5A5u};
  for (const Function& f : kFunctions) {
    for (std::uint32_t n : nans) EXPECT_EQ(bits(f.fn(from_bits(n))), kNan) << f.name;
  }
}

// ---------------------------------------------------------------- pinned hashes (section 14)

// SHA-256 of the little-endian float32 outputs over every 4099th bit pattern and a few specials:
// regression pins computed from this implementation after it passed the MPFR bounds above
// (tools/golden carries the same functions across platforms).
std::string output_hash(float (*fn)(float) noexcept) {
  onemodel::Sha256 sha;
  auto put = [&](float y) {
    const std::uint32_t b = bits(y);
    const std::array<std::byte, 4> le = {std::byte(b & 0xFF), std::byte((b >> 8) & 0xFF),
                                         std::byte((b >> 16) & 0xFF), std::byte(b >> 24)};
    sha.update(le);
  };
  for (std::uint64_t u = 0; u <= 0xFFFFFFFFu; u += 4099) put(fn(from_bits(static_cast<std::uint32_t>(u))));
  for (std::uint32_t s : {0x00000000u, 0x80000000u, 0x7F800000u, 0xFF800000u, 0x00000001u,
                          0x7F7FFFFFu, 0x3F800000u, 0xBF800000u, 0x3FC90FDBu, 0x40490FDBu}) {
    put(fn(from_bits(s)));
  }
  return onemodel::to_hex(sha.finish());
}

TEST(ExactTrig, OutputsMatchThePinnedHashes) {
  const std::array<const char*, 11> pins = {{
      "3f031e28334f1da32f0dda3af9d680b3e64b492f2fdf6161eb1ef77674c8b1c2",  // sin
      "373ff4a1cc06ad7fcde7dd611d231e384e8f55b36d0a108faa56ae33bfd4c6c5",  // cos
      "c88c34e67f926e345bddc91b29580e72773126b94928d26fc3d0e827d8ef5532",  // tan
      "29baf589d05e5d620d486e607d11017aca1247c536b44cc36446ba0438a66010",  // sinh
      "755260d40c1cbd49499a9e30bdc1d6259de584f7fa4a547517f0d9569a266fe9",  // cosh
      "cbf411157b5bb2b747c3bab8ec2e9b63498b466ad08e8e22263b7471ee348911",  // asinh
      "8bc0eb1ca9e2fcffb54724a4302b7cda28fd0172bd6f6ef39a96e35e79200099",  // acosh
      "8d34db6ee84dafd52b0cd35f5e05b2a826f64fe517fb8e0e3f5c7541fe8b1c84",  // atanh
      "9f7524de6d4622f4b60a9c7155fbecd6f6b1b224c97ab65b0add2935f50234f2",  // atan
      "130cfe160ae537f5676e566fafa5645d8d065d9da638fcd1d532c96eadf5ab7a",  // asin
      "63ebc1c8a6281b3c62905f4304b99bc8dbe21404b957026a1fccdbacca363bd5",  // acos
  }};
  for (std::size_t i = 0; i < kFunctions.size(); ++i) {
    EXPECT_EQ(output_hash(kFunctions[i].fn), pins[i]) << kFunctions[i].name;
  }
}

}  // namespace
