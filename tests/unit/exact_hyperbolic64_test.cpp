// The exact binary64 expm1, log1p, sinh, cosh, tanh, asinh, acosh, atanh, erf and 1 + erf
// (reference/math/exact_hyperbolic64.cpp, exact_erf64.cpp; spec/exact-transcendentals.md section 17):
// the stated error bounds against MPFR (128 bits) over a fixed sample, special values from the
// text, canonical NaN, a pinned output hash, and the float64 operators built on them (Tanh, Erf,
// Gelu, Mish, Swish, Sinh, ...) running in exact mode in both engines with the functions' bits.
#include <gtest/gtest.h>

#include <mpfr.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <span>
#include <string>
#include <vector>

#include "core/util/sha256.hpp"
#include "onemodel/session.hpp"
#include "reference/math/exact_hyperbolic64.hpp"
#include "reference/math/exact_math64.hpp"
#include "tests/support/ir_builder.hpp"
#include "tests/support/mpfr_f64.hpp"

namespace onemodel {
namespace {

using testing::MpfrF64;
namespace ex = onemodel::exact;

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

// 1 + erf(x) = erfc(-x), for MPFR.
int mpfr_one_plus_erf(mpfr_ptr r, mpfr_srcptr x, mpfr_rnd_t rnd) {
  mpfr_t t;
  mpfr_init2(t, mpfr_get_prec(x));
  mpfr_neg(t, x, MPFR_RNDN);
  const int v = mpfr_erfc(r, t, rnd);
  mpfr_clear(t);
  return v;
}

// One function of section 17 with its MPFR reference, its domain test and its bound
// (spec/exact-transcendentals.md section 17.7).
struct Function {
  const char* name;
  double (*fn)(double) noexcept;
  MpfrF64::Unary reference;
  bool (*in_domain)(double);
  double bound;
};

bool any_finite(double x) { return std::isfinite(x); }
bool above_minus_one(double x) { return std::isfinite(x) && x > -1.0; }
bool at_least_one(double x) { return std::isfinite(x) && x >= 1.0; }
bool inside_unit(double x) { return std::fabs(x) < 1.0; }

const std::vector<Function>& functions() {
  static const std::vector<Function> list = {
      {"expm1", ex::expm1_f64, mpfr_expm1, any_finite, 0.95},
      {"log1p", ex::log1p_f64, mpfr_log1p, above_minus_one, 0.90},
      {"sinh", ex::sinh_f64, mpfr_sinh, any_finite, 0.85},
      {"cosh", ex::cosh_f64, mpfr_cosh, any_finite, 0.75},
      {"tanh", ex::tanh_f64, mpfr_tanh, any_finite, 0.85},
      {"asinh", ex::asinh_f64, mpfr_asinh, any_finite, 0.85},
      {"acosh", ex::acosh_f64, mpfr_acosh, at_least_one, 0.85},
      {"atanh", ex::atanh_f64, mpfr_atanh, inside_unit, 0.90},
      {"erf", ex::erf_f64, mpfr_erf, any_finite, 1.05},
      {"one_plus_erf", ex::one_plus_erf_f64, mpfr_one_plus_erf, any_finite, 3.0},
  };
  return list;
}

// Every 2^44-th bit pattern from 12345 (2^20 - 1 patterns, both signs, every exponent).
constexpr std::uint64_t kPatternStride = 1ull << 44;
constexpr std::uint64_t kPatternEnd = 0xFFFFF00000000000ull;

// The fixed sample (some 0.5 million points, each function keeps those in its domain): every
// fourth of the bit patterns above; every 2^-16 step of [-1, 1] (near 0), every 2^-8 step of [-30, 30] (the
// double-double ranges and the erf tail switch at 1), every 2^-10 step of [700, 712] (overflow of
// sinh and cosh), every 2^-9 step of [-28, -1] (the erfc tail of 1 + erf); the stride-2^33 patterns on both
// sides of 1.0 and below -1 (acosh, atanh, log1p near their singular points) and near +-2^-26,
// 2^28 (the switches).
template <class Visit>
void for_each_sample(Visit visit) {
  for (std::uint64_t i = 0; i < (1u << 18) - 1; ++i) visit(from_bits(12345 + i * 4 * kPatternStride));
  for (int i = -65536; i <= 65536; ++i) visit(static_cast<double>(i) * 0x1p-16);
  for (int i = -7680; i <= 7680; ++i) visit(static_cast<double>(i) * 0x1p-8 + 0x1p-30);
  for (int i = 0; i <= 12288; ++i) visit(700.0 + static_cast<double>(i) * 0x1p-10);
  for (int i = 0; i <= 13824; ++i) visit(-28.0 + static_cast<double>(i) * 0x1p-9);
  for (std::uint64_t j = 0; j < 65536; j += 2) {
    visit(from_bits(bits(1.0) + j * 0x100000001ull));
    visit(from_bits(bits(1.0) - 1 - j * 0x100000001ull));
    visit(-from_bits(bits(1.0) - 1 - j * 0x100000001ull));
  }
  for (double edge : {0x1p-26, 0x1p-27, 0x1p28, 0.3, 22.0, 6.0}) {
    for (std::uint64_t j = 0; j < 4096; ++j) {
      visit(from_bits(bits(edge) + j * 0x1000001ull));
      visit(-from_bits(bits(edge) - 1 - j * 0x1000001ull));
    }
  }
}

TEST(ExactHyperbolic64, EveryFunctionIsWithinItsBoundOnTheSample) {
  MpfrF64 mpfr;
  for (const Function& f : functions()) {
    double worst = 0, at = 0;
    std::uint64_t points = 0;
    for_each_sample([&](double x) {
      if (!f.in_domain(x)) return;
      mpfr.evaluate_with(f.reference, x);
      const double e = mpfr.ulp_error(f.fn(x));
      ++points;
      if (e > worst || e != e) {
        worst = e;
        at = x;
      }
    });
    EXPECT_GT(points, 100000u) << f.name;
    EXPECT_LE(worst, f.bound) << f.name << " at x = " << at;
  }
  mpfr_free_cache();
}

// Section 17, special values: NaN, signed zeros, infinities, limits and poles.
TEST(ExactHyperbolic64, SpecialValues) {
  const double inf = std::numeric_limits<double>::infinity();
  const std::uint64_t canonical = 0x7FF8000000000000ull;
  const double nan_with_payload = from_bits(0xFFF0000000000123ull);
  for (const Function& f : functions()) {
    SCOPED_TRACE(f.name);
    EXPECT_EQ(bits(f.fn(nan_with_payload)), canonical);
    EXPECT_EQ(bits(f.fn(from_bits(0x7FF4000000000001ull))), canonical);  // signalling
  }
  // Odd functions keep the sign of zero and return tiny arguments (subnormals included) unchanged.
  for (auto fn : {ex::expm1_f64, ex::log1p_f64, ex::sinh_f64, ex::tanh_f64, ex::asinh_f64, ex::atanh_f64}) {
    EXPECT_EQ(bits(fn(-0.0)), 0x8000000000000000ull);
    EXPECT_EQ(bits(fn(0.0)), 0u);
    EXPECT_EQ(fn(0x1p-1074), 0x1p-1074);
    EXPECT_EQ(fn(-0x1p-1074), -0x1p-1074);
    EXPECT_EQ(fn(0x1.8p-60), 0x1.8p-60);
  }
  for (auto fn : {ex::sinh_f64, ex::tanh_f64, ex::asinh_f64, ex::atanh_f64}) EXPECT_EQ(fn(-0x1.8p-28), -0x1.8p-28);
  EXPECT_EQ(bits(ex::erf_f64(-0.0)), 0x8000000000000000ull);
  EXPECT_EQ(bits(ex::erf_f64(0.0)), 0u);
  EXPECT_EQ(ex::cosh_f64(-0.0), 1.0);
  EXPECT_EQ(ex::cosh_f64(0x1p-1074), 1.0);
  EXPECT_EQ(ex::one_plus_erf_f64(0.0), 1.0);
  // Infinities and overflow.
  EXPECT_EQ(ex::sinh_f64(inf), inf);
  EXPECT_EQ(ex::sinh_f64(-inf), -inf);
  EXPECT_EQ(ex::sinh_f64(711.0), inf);  // sinh(711) > DBL_MAX
  EXPECT_EQ(ex::sinh_f64(-710.5), -inf);
  EXPECT_EQ(ex::sinh_f64(710.47), 1.7871893267684048e308);  // MPFR, correctly rounded
  EXPECT_EQ(ex::cosh_f64(-inf), inf);
  EXPECT_EQ(ex::cosh_f64(710.5), inf);
  EXPECT_EQ(ex::tanh_f64(inf), 1.0);
  EXPECT_EQ(ex::tanh_f64(-inf), -1.0);
  EXPECT_EQ(ex::tanh_f64(-30.0), -1.0);
  EXPECT_EQ(ex::expm1_f64(inf), inf);
  EXPECT_EQ(ex::expm1_f64(-inf), -1.0);
  EXPECT_EQ(ex::expm1_f64(710.0), inf);
  EXPECT_EQ(ex::asinh_f64(inf), inf);
  EXPECT_EQ(ex::asinh_f64(-inf), -inf);
  EXPECT_EQ(ex::asinh_f64(-std::numeric_limits<double>::max()), -710.475860073944);  // ln(2 DBL_MAX), MPFR
  EXPECT_EQ(ex::acosh_f64(inf), inf);
  EXPECT_EQ(ex::acosh_f64(std::numeric_limits<double>::max()), 710.475860073944);
  EXPECT_EQ(ex::log1p_f64(inf), inf);
  EXPECT_EQ(ex::erf_f64(inf), 1.0);
  EXPECT_EQ(ex::erf_f64(-inf), -1.0);
  EXPECT_EQ(ex::erf_f64(-6.0), -1.0);
  EXPECT_EQ(ex::one_plus_erf_f64(inf), 2.0);
  EXPECT_EQ(bits(ex::one_plus_erf_f64(-inf)), 0u);
  EXPECT_EQ(bits(ex::one_plus_erf_f64(-27.5)), 0u);
  // Domains and poles.
  EXPECT_EQ(ex::acosh_f64(1.0), 0.0);
  EXPECT_EQ(bits(ex::acosh_f64(1.0)), 0u);
  EXPECT_EQ(bits(ex::acosh_f64(0.9999999999999999)), canonical);
  EXPECT_EQ(bits(ex::acosh_f64(-inf)), canonical);
  EXPECT_EQ(bits(ex::acosh_f64(-0.0)), canonical);
  EXPECT_EQ(ex::atanh_f64(1.0), inf);
  EXPECT_EQ(ex::atanh_f64(-1.0), -inf);
  EXPECT_EQ(bits(ex::atanh_f64(1.0000000000000002)), canonical);
  EXPECT_EQ(bits(ex::atanh_f64(-inf)), canonical);
  EXPECT_EQ(ex::log1p_f64(-1.0), -inf);
  EXPECT_EQ(bits(ex::log1p_f64(-1.0000000000000002)), canonical);
  EXPECT_EQ(bits(ex::log1p_f64(-inf)), canonical);
  // A few values correctly rounded (MPFR).
  EXPECT_EQ(ex::tanh_f64(0.5), 0.46211715726000974);
  EXPECT_EQ(ex::erf_f64(0.5), 0.52049987781304652);
  EXPECT_EQ(ex::erf_f64(2.0), 0.99532226501895271);
  EXPECT_EQ(ex::one_plus_erf_f64(-10.0), 2.088487583762545e-45);
  EXPECT_EQ(ex::atanh_f64(0.5), 0.54930614433405489);
  EXPECT_EQ(ex::sigmoid_f64(0.0), 0.5);
}

// SHA-256 of the little-endian outputs over the stride-2^44 bit patterns, a few specials and a dense
// grid of [-6, 6]: a regression pin of this implementation, reproduced on x86-64, aarch64 and
// WebAssembly builds of the functions alone (spec/exact-transcendentals.md section 17.7).
std::string output_hash(double (*fn)(double) noexcept) {
  Sha256 sha;
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
  // Dense points where the steps switch and the double-double paths run.
  for (int i = -4096; i <= 4096; ++i) put(fn(static_cast<double>(i) * 0x1.8p-9 + 0x1p-40));
  return to_hex(sha.finish());
}

TEST(ExactHyperbolic64, OutputsMatchThePinnedHashes) {
  const std::vector<std::pair<double (*)(double) noexcept, std::string>> pins = {
      {ex::expm1_f64, "ba85a720b7544c5f999d87c40a24c8169d5c85c9ea46ca5c4189be878376eaa2"},
      {ex::log1p_f64, "dbddbe34f9bfa2a389e7b663bb05d4e7d1be4e276842b2cd709a60b463bb0fcb"},
      {ex::sinh_f64, "7038da809cd7a7721a69823f760905a69e9a680a303e75d67ac7eecc5e3b06ae"},
      {ex::cosh_f64, "04e912f4578c5542339e9278ea69b42479f13b056ed7682704f88fd20eeefdec"},
      {ex::tanh_f64, "639fd65fbdeb551626c211b0ae7a11bf8433e9c8ef69915a63fa21ba770ccf51"},
      {ex::asinh_f64, "17b087ad6f7dc12b2e06483cae31a5b515f743776b4135c0dc4c8d9d0fff54e3"},
      {ex::acosh_f64, "6c64739530cebc8535c6aa0201b0a384f39f333864b973f05d9b0b4f403475a1"},
      {ex::atanh_f64, "bdf5700b9b6e992314ef9bc06c10bee91a0ba84f0a575eaced1657f923a62627"},
      {ex::erf_f64, "c88fc8e29859c7de12091ad6e9d4c51857ca127869745b0cc83625341027254c"},
      {ex::one_plus_erf_f64, "3c4ae246dd41f67bef8cadf7d95a2dfa2caca2dea0d38037fa24a11ee05e8de0"},
      {ex::sigmoid_f64, "1037cd4c26cec4d431801a846c49241b490e4615c60d33e24f6242c78997150d"},
  };
  for (std::size_t i = 0; i < pins.size(); ++i) {
    EXPECT_EQ(output_hash(pins[i].first), pins[i].second) << "function " << i;
  }
}

// The float64 operators (spec/ops/elementwise.md section 10) run in exact mode in both engines,
// give the same bits in fast mode, and give the functions' bits; NaN comes out canonical.
using namespace ir_builder;
constexpr std::int32_t kOnnxDouble = 11;

std::vector<double> operator_inputs() {
  std::vector<double> v = {-0.0, 0.0, 0x1p-1074, -0x1p-30, 0.25, -0.75, 1.5, -3.0, 5.0, -12.0, 30.0, -40.0,
                           750.0, -750.0, std::numeric_limits<double>::infinity(),
                           -std::numeric_limits<double>::infinity(), std::nan("")};
  for (int i = -40; i <= 40; ++i) v.push_back(static_cast<double>(i) * 0.173);
  return v;
}

std::vector<std::uint64_t> run_bits(const std::string& op, std::int64_t opset, const std::vector<IrAttribute>& attrs,
                                    const std::vector<double>& x, ExecutionMode mode, EngineKind engine) {
  const Tensor t = Tensor::from_values<double>(DType::F64, Shape{static_cast<std::int64_t>(x.size())},
                                               std::span<const double>(x));
  const std::vector<NodeInput> inputs{{"x", t}};
  IrModel model = one_node_model(op, opset, inputs, {unshaped_tensor_value_info("y", kOnnxDouble)}, attrs);
  SessionOptions options;
  options.mode = mode;
  options.engine = engine;
  options.intra_op_threads = 1;
  const Session session = Session::create(std::move(model), options);
  std::vector<std::uint64_t> out;
  for (double v : session.run(feeds_of(inputs)).at(0).to_vector<double>()) out.push_back(bits(v));
  return out;
}

std::uint64_t canonical_bits(double v) { return v != v ? 0x7FF8000000000000ull : bits(v); }

TEST(ExactHyperbolic64, Float64OperatorsAreExactAndGiveTheFunctionsBits) {
  struct Case {
    std::string op;
    std::int64_t opset;
    std::vector<IrAttribute> attrs;
    std::function<double(double)> want;
  };
  const double kInvSqrt2 = 0.7071067811865476;
  const std::vector<Case> cases = {
      {"Tanh", 13, {}, ex::tanh_f64},
      {"Erf", 13, {}, ex::erf_f64},
      {"Sinh", 9, {}, ex::sinh_f64},
      {"Cosh", 9, {}, ex::cosh_f64},
      {"Asinh", 9, {}, ex::asinh_f64},
      {"Acosh", 9, {}, ex::acosh_f64},
      {"Atanh", 9, {}, ex::atanh_f64},
      {"Gelu", 20, {}, [&](double x) {
         return x == -HUGE_VAL ? -0.0 : (0.5 * x) * ex::one_plus_erf_f64(x * kInvSqrt2);
       }},
      {"Gelu", 20, {string_attr("approximate", "tanh")}, [](double x) {
         const double u = 0.7978845608028654 * (x + 0.044715 * ((x * x) * x));
         return x == -HUGE_VAL ? -0.0 : x * ex::sigmoid_f64(u + u);
       }},
      {"Mish", 18, {}, [](double x) { return x * ex::tanh_f64(ex::log1p_f64(ex::exp_f64(x))); }},
      {"Swish", 24, {}, [](double x) { return x * ex::sigmoid_f64(x); }},
      {"Swish", 24, {float_attr("alpha", 0.3f)}, [](double x) {
         return x * ex::sigmoid_f64(static_cast<double>(0.3f) * x);
       }},
  };
  const std::vector<double> x = operator_inputs();
  for (const Case& c : cases) {
    SCOPED_TRACE(c.op + (c.attrs.empty() ? "" : " with attribute"));
    std::vector<std::uint64_t> want;
    for (double v : x) want.push_back(canonical_bits(c.want(v)));
    for (ExecutionMode mode : {ExecutionMode::Exact, ExecutionMode::Fast}) {
      for (EngineKind engine : {EngineKind::Reference, EngineKind::Optimized}) {
        EXPECT_EQ(run_bits(c.op, c.opset, c.attrs, x, mode, engine), want);
      }
    }
  }
}

}  // namespace
}  // namespace onemodel
