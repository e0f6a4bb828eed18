// The exact binary64 sin, cos, tan, atan, asin, acos (reference/math/exact_trig64.cpp,
// exact_inverse_trig64.cpp; spec/exact-transcendentals.md section 16): the reduction against
// MPFR's pi, the stated error bound against MPFR (256 bits) over a fixed sample, special values,
// canonical NaN, a pinned output hash, and the float64 operators in exact mode in both engines.
#include <gtest/gtest.h>

#include <mpfr.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <span>
#include <string>
#include <vector>

#include "core/util/sha256.hpp"
#include "onemodel/session.hpp"
#include "reference/math/exact_trig64.hpp"
#include "tests/support/ir_builder.hpp"
#include "tests/support/mpfr_trig64.hpp"

namespace {

using onemodel::testing::MpfrTrig64;
using onemodel::testing::Trig64Function;
namespace ex = onemodel::exact;

// spec/exact-transcendentals.md section 16.6: the bound for all six functions.
constexpr double kBound = 0.501;

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

using Fn = double (*)(double) noexcept;
struct Function {
  Fn fn;
  Trig64Function oracle;
};
const std::array<Function, 6> kFunctions = {{{ex::sin_f64, Trig64Function::sin},
                                             {ex::cos_f64, Trig64Function::cos},
                                             {ex::tan_f64, Trig64Function::tan},
                                             {ex::atan_f64, Trig64Function::atan},
                                             {ex::asin_f64, Trig64Function::asin},
                                             {ex::acos_f64, Trig64Function::acos}}};

// The doubles nearest k pi/2 for k = 1..count (rounded by MPFR from 256-bit products), with both
// neighbours: the hardest arguments for the reduction among small ones.
std::vector<double> near_quarter_turns(int count) {
  std::vector<double> xs;
  mpfr_t v;
  mpfr_init2(v, 256);
  for (int k = 1; k <= count; ++k) {
    mpfr_const_pi(v, MPFR_RNDN);
    mpfr_mul_si(v, v, k, MPFR_RNDN);
    mpfr_div_2ui(v, v, 1, MPFR_RNDN);
    const double x = mpfr_get_d(v, MPFR_RNDN);
    xs.push_back(x);
    xs.push_back(from_bits(bits(x) - 1));
    xs.push_back(from_bits(bits(x) + 1));
  }
  mpfr_clear(v);
  return xs;
}

// Huge arguments: the double with the smallest known distance to a multiple of pi/2
// (6381956970095103 * 2^797, distance about 2^-61), DBL_MAX, and a few large powers and their
// neighbours.
std::vector<double> huge_arguments() {
  std::vector<double> xs = {std::ldexp(6381956970095103.0, 797), std::numeric_limits<double>::max()};
  for (int e : {60, 100, 200, 500, 700, 900, 1000, 1023}) {
    const double p = std::ldexp(1.0, e);
    xs.push_back(p);
    xs.push_back(from_bits(bits(p) - 1));
    xs.push_back(from_bits(bits(p) + 12345));
  }
  return xs;
}

// Section 16.2: quadrant and fraction of the reduction against a 1600-bit product with MPFR's
// 2/pi, for every 2^45-th positive pattern from 0.5 up, the doubles next to k pi/2 (k <= 20000)
// and the huge arguments. The fraction must agree to 2^-100 relative.
TEST(ExactTrig64, ReductionMatchesMpfrPi) {
  mpfr_t y, two_over_pi, n, f, got;
  mpfr_inits2(1600, y, two_over_pi, n, f, got, static_cast<mpfr_ptr>(nullptr));
  mpfr_const_pi(two_over_pi, MPFR_RNDN);
  mpfr_ui_div(two_over_pi, 2, two_over_pi, MPFR_RNDN);
  std::vector<double> inputs = near_quarter_turns(20000);
  for (std::uint64_t u = 0x3FE0000000000000ull; u <= 0x7FEFFFFFFFFFFFFFull; u += 1ull << 45) inputs.push_back(from_bits(u));
  for (double x : huge_arguments()) inputs.push_back(x);
  int checked = 0;
  double smallest = 1;
  for (double x : inputs) {
    mpfr_set_d(y, x, MPFR_RNDN);
    mpfr_mul(y, y, two_over_pi, MPFR_RNDN);  // relative error 2^-1600: absolute below 2^-570
    mpfr_rint(n, y, MPFR_RNDN);
    mpfr_sub(f, y, n, MPFR_RNDN);
    mpfr_fmod_ui(n, n, 4, MPFR_RNDN);
    long q = mpfr_get_si(n, MPFR_RNDN);
    if (q < 0) q += 4;
    const auto red = ex::trig64_detail::reduce_quarter_turns(x);
    ASSERT_EQ(red.quadrant, static_cast<std::uint32_t>(q)) << "x = " << x;
    mpfr_set_d(got, red.f.hi, MPFR_RNDN);
    mpfr_add_d(got, got, red.f.lo, MPFR_RNDN);
    mpfr_sub(got, got, f, MPFR_RNDN);
    mpfr_div(got, got, f, MPFR_RNDN);
    ASSERT_LE(std::fabs(mpfr_get_d(got, MPFR_RNDN)), 0x1p-100) << "x = " << x;
    smallest = std::min(smallest, std::fabs(red.f.hi));
    ++checked;
  }
  mpfr_clears(y, two_over_pi, n, f, got, static_cast<mpfr_ptr>(nullptr));
  EXPECT_GT(checked, 150000);
  EXPECT_LT(smallest, 0x1p-60);  // the hard case was reached: |f| about 2^-61.6
}

// The fixed sample: every 2^47-th bit pattern (both signs, every exponent), every 2^-12 step of
// [-10, 10], the doubles next to k pi/2 (k <= 2000) and their negatives, the huge arguments, and
// 1 - j 2^-40, 1 - 2^-j (the inverse functions' hard ends) with their negatives.
std::vector<double> accuracy_sample() {
  std::vector<double> xs;
  for (std::uint64_t u = 777; u < 0xFFF0000000000000ull; u += 1ull << 47) xs.push_back(from_bits(u));
  for (int i = -40960; i <= 40960; ++i) xs.push_back(static_cast<double>(i) * 0x1p-12);
  for (double x : near_quarter_turns(2000)) {
    xs.push_back(x);
    xs.push_back(-x);
  }
  for (double x : huge_arguments()) xs.push_back(x);
  for (int j = 1; j <= 4096; ++j) {
    xs.push_back(1.0 - j * 0x1p-40);
    xs.push_back(-(1.0 - j * 0x1p-40));
  }
  for (int j = 1; j <= 53; ++j) {
    xs.push_back(1.0 - std::ldexp(1.0, -j));
    xs.push_back(-(1.0 - std::ldexp(1.0, -j)));
  }
  return xs;
}

TEST(ExactTrig64, AccuracyIsWithinTheDocumentedBound) {
  const std::vector<double> xs = accuracy_sample();
  MpfrTrig64 ref;
  for (const Function& f : kFunctions) {
    double worst = 0, at = 0;
    std::size_t points = 0;
    const bool unit_domain = f.oracle == Trig64Function::asin || f.oracle == Trig64Function::acos;
    for (double x : xs) {
      if (!std::isfinite(x) || (unit_domain && std::fabs(x) > 1.0)) continue;
      ref.evaluate(f.oracle, x);
      const double e = ref.ulp_error(f.fn(x));
      ++points;
      if (e > worst) {
        worst = e;
        at = x;
      }
    }
    EXPECT_GT(points, unit_domain ? 80000u : 200000u);
    EXPECT_LE(worst, kBound) << onemodel::testing::trig64_name(f.oracle) << " at x = " << at;
  }
  mpfr_free_cache();
}

// Sections 16.3-16.5: special values, signed zeros, subnormals, limits.
TEST(ExactTrig64, SpecialValues) {
  const double inf = std::numeric_limits<double>::infinity();
  const double tiny = std::numeric_limits<double>::denorm_min();
  const std::uint64_t canonical = 0x7FF8000000000000ull;
  const double nan_with_payload = from_bits(0xFFF4000000000123ull);
  for (const Function& f : kFunctions) EXPECT_EQ(bits(f.fn(nan_with_payload)), canonical);
  for (Fn fn : {ex::sin_f64, ex::cos_f64, ex::tan_f64}) {
    EXPECT_EQ(bits(fn(inf)), canonical);
    EXPECT_EQ(bits(fn(-inf)), canonical);
  }
  for (Fn fn : {ex::asin_f64, ex::acos_f64}) {
    EXPECT_EQ(bits(fn(std::nextafter(1.0, 2.0))), canonical);
    EXPECT_EQ(bits(fn(-std::nextafter(1.0, 2.0))), canonical);
    EXPECT_EQ(bits(fn(inf)), canonical);
  }
  // Odd functions keep -0 and subnormals; cos(+-0) = 1.
  for (Fn fn : {ex::sin_f64, ex::tan_f64, ex::atan_f64, ex::asin_f64}) {
    EXPECT_EQ(bits(fn(-0.0)), 0x8000000000000000ull);
    EXPECT_EQ(bits(fn(0.0)), 0u);
    EXPECT_EQ(fn(tiny), tiny);
    EXPECT_EQ(fn(-tiny), -tiny);
    EXPECT_EQ(fn(0x1p-1022), 0x1p-1022);
  }
  EXPECT_EQ(ex::cos_f64(0.0), 1.0);
  EXPECT_EQ(ex::cos_f64(-0.0), 1.0);
  EXPECT_EQ(ex::cos_f64(tiny), 1.0);
  const double pio2 = 1.5707963267948966, pi = 3.141592653589793;  // the doubles nearest
  EXPECT_EQ(ex::atan_f64(inf), pio2);
  EXPECT_EQ(ex::atan_f64(-inf), -pio2);
  EXPECT_EQ(ex::atan_f64(std::numeric_limits<double>::max()), pio2);
  EXPECT_EQ(ex::asin_f64(1.0), pio2);
  EXPECT_EQ(ex::asin_f64(-1.0), -pio2);
  EXPECT_EQ(bits(ex::acos_f64(1.0)), 0u);  // +0
  EXPECT_EQ(ex::acos_f64(-1.0), pi);
  EXPECT_EQ(ex::acos_f64(0.0), pio2);
  EXPECT_EQ(ex::acos_f64(-0.0), pio2);
  EXPECT_EQ(ex::atan_f64(1.0), 0.78539816339744828);  // pi/4, correctly rounded
  // The correctly rounded values (mpmath at 400 bits).
  EXPECT_EQ(ex::sin_f64(pi), 1.2246467991473532e-16);
  EXPECT_EQ(ex::cos_f64(pio2), 6.123233995736766e-17);
  EXPECT_EQ(ex::sin_f64(1e22), -0.85220084976718879);
  EXPECT_EQ(ex::cos_f64(-1e22), 0.52321478539513894);
}

// SHA-256 of the little-endian outputs over every 2^44-th bit pattern from 12345 and a few
// specials: a regression pin of this implementation (reproduced by the same functions built alone
// with g++ -O2, clang -O0 and em++ under node; see section 16.6).
std::string output_hash(Fn fn) {
  onemodel::Sha256 sha;
  auto put = [&](double y) {
    const std::uint64_t b = bits(y);
    std::array<std::byte, 8> le{};
    for (int i = 0; i < 8; ++i) le[static_cast<std::size_t>(i)] = std::byte((b >> (8 * i)) & 0xFF);
    sha.update(le);
  };
  for (std::uint64_t u = 12345; u < 0xFFFFF00000000000ull; u += 1ull << 44) put(fn(from_bits(u)));
  for (std::uint64_t s : {0x0000000000000000ull, 0x8000000000000000ull, 0x7FF0000000000000ull, 0xFFF0000000000000ull,
                          0x0000000000000001ull, 0x7FEFFFFFFFFFFFFFull, 0x3FF0000000000000ull, 0xBFF0000000000000ull}) {
    put(fn(from_bits(s)));
  }
  return onemodel::to_hex(sha.finish());
}

TEST(ExactTrig64, OutputsMatchThePinnedHashes) {
  EXPECT_EQ(output_hash(ex::sin_f64), "5c4163438f79b69d6403db9eb2a2627bf0887e316c62664019fdda029c6f3479");
  EXPECT_EQ(output_hash(ex::cos_f64), "f25d44c889e9d71058cc6124ff39b82e6a5dda53ebb8c48a24ef02111a795104");
  EXPECT_EQ(output_hash(ex::tan_f64), "69fdd9b045ae800134f5cf4481a546f46d3decce0264cd11e8a83e7bb87d128d");
  EXPECT_EQ(output_hash(ex::atan_f64), "6eec609ecf21859b2aaf7284bfe9ce6630e9b2bfb9aff476b9a912acfc9b0326");
  EXPECT_EQ(output_hash(ex::asin_f64), "93eb62c28f63f01966a0183c177f72bec82d7edcebfa903cea74c06c2e5a1125");
  EXPECT_EQ(output_hash(ex::acos_f64), "46f5e7f49c6bc0333ed5bf190c945262c00659dd6f2bcf89473eed9734e39a9d");
}

// The float64 operators (issue 17): an exact-mode session with a float64 Sin, Cos, Tan, Atan, Asin
// or Acos node runs, in both engines and both modes, and gives the bits of the functions above.
TEST(ExactTrig64, Float64OperatorsRunInExactModeWithTheseBits) {
  using namespace onemodel;
  using namespace onemodel::ir_builder;
  const std::vector<double> values = {-1e22, -2.5, -0.75, -0.0, 0x1p-1074, 0.5, 1.0, 3.141592653589793,
                                      1e300, std::nan("")};
  const std::vector<std::pair<const char*, Fn>> ops = {{"Sin", ex::sin_f64},   {"Cos", ex::cos_f64},
                                                       {"Tan", ex::tan_f64},   {"Atan", ex::atan_f64},
                                                       {"Asin", ex::asin_f64}, {"Acos", ex::acos_f64}};
  for (const auto& [op, fn] : ops) {
    std::vector<std::uint64_t> want;
    for (double v : values) want.push_back(bits(fn(v)));
    const std::vector<NodeInput> inputs{
        {"x", Tensor::from_values<double>(DType::F64, Shape{2, 5}, std::span<const double>(values))}};
    for (ExecutionMode mode : {ExecutionMode::Exact, ExecutionMode::Fast}) {
      for (EngineKind engine : {EngineKind::Reference, EngineKind::Optimized}) {
        SCOPED_TRACE(std::string(op) + (mode == ExecutionMode::Exact ? " exact " : " fast ") +
                     (engine == EngineKind::Reference ? "reference" : "optimized"));
        IrModel model = one_node_model(op, 7, inputs, {unshaped_tensor_value_info("y", 11)}, {});
        SessionOptions options;
        options.mode = mode;
        options.engine = engine;
        options.intra_op_threads = 1;
        const Session session = Session::create(std::move(model), options);
        const std::vector<Tensor> out = session.run(feeds_of(inputs));
        std::vector<std::uint64_t> got;
        for (double v : out.at(0).to_vector<double>()) got.push_back(bits(v));
        EXPECT_EQ(got, want);
      }
    }
  }
}

}  // namespace
