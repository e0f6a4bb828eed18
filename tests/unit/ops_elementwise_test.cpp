// Element-wise operators of the reference engine (spec/ops/elementwise.md). Each expected value is
// written from the rule text (the section is cited), not obtained by running the code.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>

#include "onemodel/session.hpp"
#include "tests/support/ir_builder.hpp"

namespace onemodel {
namespace {

using namespace ir_builder;

// One node `op` reading the given inputs (an empty name is an omitted input), output "y".
Session one_node(const std::string& op, const std::vector<NodeInput>& inputs, std::int32_t out_elem,
                 std::vector<IrAttribute> attributes = {}, ExecutionMode mode = ExecutionMode::Fast,
                 std::int64_t opset = 13) {
  return reference_session(
      one_node_model(op, opset, inputs, {unshaped_tensor_value_info("y", out_elem)}, std::move(attributes)), mode);
}

Tensor run_one(const std::string& op, const std::vector<NodeInput>& inputs, std::int32_t out_elem,
               std::vector<IrAttribute> attributes = {}, ExecutionMode mode = ExecutionMode::Fast,
               std::int64_t opset = 13) {
  Session s = one_node(op, inputs, out_elem, std::move(attributes), mode, opset);
  return s.run(feeds_of(inputs)).at(0);
}

Tensor f32(const Shape& shape, std::initializer_list<float> v) { return Tensor::from_values<float>(DType::F32, shape, v); }
Tensor i32(const Shape& shape, std::initializer_list<std::int32_t> v) {
  return Tensor::from_values<std::int32_t>(DType::I32, shape, v);
}

float from_bits(std::uint32_t u) {
  float x;
  std::memcpy(&x, &u, sizeof x);
  return x;
}

std::uint32_t bits_of(float x) {
  std::uint32_t u;
  std::memcpy(&u, &x, sizeof u);
  return u;
}

constexpr float kNan = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr std::int32_t kMin32 = std::numeric_limits<std::int32_t>::min();
constexpr std::int32_t kMax32 = std::numeric_limits<std::int32_t>::max();

// Section 4: integer division truncates; x / 0 is 0; MinValue / -1 is MinValue.
TEST(OpsElementwise, IntegerDivisionRules) {
  Tensor y = run_one("Div", {{"a", i32({4}, {7, -7, 5, kMin32})}, {"b", i32({4}, {-2, 2, 0, -1})}}, 6);
  EXPECT_EQ(y.to_vector<std::int32_t>(), (std::vector<std::int32_t>{-3, -3, 0, kMin32}));
}

// Section 4: floor modulus (divisor's sign) for fmod = 0, truncated (dividend's sign) for fmod = 1.
TEST(OpsElementwise, ModSignRules) {
  const std::vector<NodeInput> in{{"a", i32({5}, {-4, 4, 5, kMin32, 4})}, {"b", i32({5}, {3, -3, 0, -1, 3})}};
  EXPECT_EQ(run_one("Mod", in, 6).to_vector<std::int32_t>(), (std::vector<std::int32_t>{2, -2, 0, 0, 1}));
  EXPECT_EQ(run_one("Mod", in, 6, {int_attr("fmod", 1)}).to_vector<std::int32_t>(),
            (std::vector<std::int32_t>{-1, 1, 0, 0, 1}));
  Tensor y = run_one("Mod", {{"a", f32({2}, {-4.5f, 4.5f})}, {"b", f32({2}, {2.0f, -2.0f})}}, 1, {int_attr("fmod", 1)});
  EXPECT_EQ(y.to_vector<float>(), (std::vector<float>{-0.5f, 0.5f}));
  EXPECT_EQ(session_error_kind_of([&] { run_one("Mod", {{"a", f32({1}, {1.0f})}, {"b", f32({1}, {1.0f})}}, 1); }),
            SessionErrorKind::InvalidModel);
}

// Section 4: Add, Mul, Neg wrap around.
TEST(OpsElementwise, IntegerWrapAround) {
  Tensor a = Tensor::from_values<std::uint8_t>(DType::U8, Shape{2}, {200, 255});
  Tensor b = Tensor::from_values<std::uint8_t>(DType::U8, Shape{2}, {100, 255});
  EXPECT_EQ(run_one("Add", {{"a", a}, {"b", b}}, 2).to_vector<std::uint8_t>(), (std::vector<std::uint8_t>{44, 254}));
  EXPECT_EQ(run_one("Mul", {{"a", a}, {"b", b}}, 2).to_vector<std::uint8_t>(), (std::vector<std::uint8_t>{32, 1}));
  Tensor c = Tensor::from_values<std::int8_t>(DType::I8, Shape{2}, {-128, 5});
  EXPECT_EQ(run_one("Neg", {{"x", c}}, 3).to_vector<std::int8_t>(), (std::vector<std::int8_t>{-128, -5}));
  EXPECT_EQ(run_one("Abs", {{"x", c}}, 3).to_vector<std::int8_t>(), (std::vector<std::int8_t>{-128, 5}));
}

// Section 3: half to even, sign of zero kept.
TEST(OpsElementwise, RoundHalfToEven) {
  Tensor y = run_one("Round", {{"x", f32({6}, {0.5f, 1.5f, 2.5f, -2.5f, -0.4f, 2.6f})}}, 1);
  const auto v = y.to_vector<float>();
  EXPECT_EQ(v, (std::vector<float>{0.0f, 2.0f, 2.0f, -2.0f, -0.0f, 3.0f}));
  EXPECT_EQ(float_bits(v[4]), 0x80000000u);
  EXPECT_EQ(float_bits(v[0]), 0u);
}

// Section 7: float to integer truncates, saturates, NaN gives 0; integers wrap; bool is x != 0.
TEST(OpsElementwise, CastRules) {
  Tensor y = run_one("Cast", {{"x", f32({6}, {1e10f, -1e10f, kNan, -2.7f, 2.7f, -0.0f})}}, 6, {int_attr("to", 6)});
  EXPECT_EQ(y.to_vector<std::int32_t>(), (std::vector<std::int32_t>{kMax32, kMin32, 0, -2, 2, 0}));
  Tensor u = run_one("Cast", {{"x", i32({3}, {300, -1, 256})}}, 2, {int_attr("to", 2)});
  EXPECT_EQ(u.to_vector<std::uint8_t>(), (std::vector<std::uint8_t>{44, 255, 0}));
  Tensor b = run_one("Cast", {{"x", f32({3}, {kNan, -0.0f, 0.5f})}}, 9, {int_attr("to", 9)});
  EXPECT_EQ(b.to_vector<std::uint8_t>(), (std::vector<std::uint8_t>{1, 0, 1}));
  Tensor u8max = run_one("Cast", {{"x", f32({2}, {300.0f, -5.0f})}}, 2, {int_attr("to", 2)});
  EXPECT_EQ(u8max.to_vector<std::uint8_t>(), (std::vector<std::uint8_t>{255, 0}));
  // f32 to f16: 65520 and above overflow to infinity (0x7C00); 1 + 2^-11 is a tie, rounded to even (1.0).
  Tensor h = run_one("Cast", {{"x", f32({2}, {65520.0f, 1.00048828125f})}}, 10, {int_attr("to", 10)});
  EXPECT_EQ(h.to_vector<std::uint16_t>(), (std::vector<std::uint16_t>{0x7C00, 0x3C00}));
  // A type the library does not store (COMPLEX64 = 14) is Unsupported (STRING = 8 is served:
  // tests/unit/ops_strings_test.cpp).
  EXPECT_EQ(session_error_kind_of([&] { one_node("Cast", {{"x", f32({1}, {1.0f})}}, 14, {int_attr("to", 14)}); }),
            SessionErrorKind::Unsupported);
}

// Section 6: comparisons with NaN are false, so a NaN bound has no effect; the upper bound wins;
// an omitted bound is the finite extreme.
TEST(OpsElementwise, ClipBounds) {
  Tensor x = f32({4}, {-1.0f, 0.5f, 2.0f, kNan});
  auto nan_lo = run_one("Clip", {{"x", x}, {"lo", f32({}, {kNan})}, {"hi", f32({}, {1.0f})}}, 1).to_vector<float>();
  EXPECT_EQ(nan_lo[0], -1.0f);
  EXPECT_EQ(nan_lo[1], 0.5f);
  EXPECT_EQ(nan_lo[2], 1.0f);
  EXPECT_TRUE(std::isnan(nan_lo[3]));
  auto crossed = run_one("Clip", {{"x", x}, {"lo", f32({}, {2.0f})}, {"hi", f32({}, {1.0f})}}, 1).to_vector<float>();
  EXPECT_EQ(crossed[0], 1.0f);
  EXPECT_EQ(crossed[1], 1.0f);
  EXPECT_EQ(crossed[2], 1.0f);
  auto open = run_one("Clip", {{"x", f32({2}, {kInf, -kInf})}}, 1).to_vector<float>();
  EXPECT_EQ(open[0], std::numeric_limits<float>::max());
  EXPECT_EQ(open[1], std::numeric_limits<float>::lowest());
  auto upper_only = run_one("Clip", {{"x", f32({2}, {-5.0f, 5.0f})}, {"", Tensor()}, {"hi", f32({}, {1.0f})}}, 1);
  EXPECT_EQ(upper_only.to_vector<float>(), (std::vector<float>{-5.0f, 1.0f}));
  // Opset 6: attributes.
  auto old = run_one("Clip", {{"x", f32({3}, {-5.0f, 0.25f, 5.0f})}}, 1,
                     {float_attr("min", -1.0f), float_attr("max", 1.0f)}, ExecutionMode::Fast, 10);
  EXPECT_EQ(old.to_vector<float>(), (std::vector<float>{-1.0f, 0.25f, 1.0f}));
  auto ints = run_one("Clip", {{"x", i32({3}, {-5, 0, 5})}, {"lo", i32({}, {-2})}}, 6);
  EXPECT_EQ(ints.to_vector<std::int32_t>(), (std::vector<std::int32_t>{-2, 0, 5}));
}

// Section 3: Relu(-0) is +0; NaN passes through.
TEST(OpsElementwise, ReluOfNegativeZeroIsPositiveZero) {
  auto y = run_one("Relu", {{"x", f32({3}, {-0.0f, -2.0f, 3.0f})}}, 1).to_vector<float>();
  EXPECT_EQ(float_bits(y[0]), 0u);
  EXPECT_EQ(float_bits(y[1]), 0u);
  EXPECT_EQ(y[2], 3.0f);
}

// Section 3 (exact-mode.md rule 4): every stored f32 NaN is 0x7FC00000.
TEST(OpsElementwise, CanonicalNanInExactMode) {
  const float payload_nan = from_bits(0xFFC00001u);
  auto sub = run_one("Sub", {{"a", f32({2}, {kInf, payload_nan})}, {"b", f32({2}, {kInf, 1.0f})}}, 1, {},
                     ExecutionMode::Exact)
                 .to_vector<float>();
  EXPECT_EQ(float_bits(sub[0]), 0x7FC00000u);
  EXPECT_EQ(float_bits(sub[1]), 0x7FC00000u);
  auto neg = run_one("Neg", {{"x", f32({1}, {payload_nan})}}, 1, {}, ExecutionMode::Exact).to_vector<float>();
  EXPECT_EQ(float_bits(neg[0]), 0x7FC00000u);
  auto lg = run_one("Log", {{"x", f32({1}, {-1.0f})}}, 1, {}, ExecutionMode::Exact).to_vector<float>();
  EXPECT_EQ(float_bits(lg[0]), 0x7FC00000u);
}

// Section 3: NaN in either operand gives NaN; equal operands give the second.
TEST(OpsElementwise, MaxMinNanAndSignedZero) {
  Tensor a = f32({4}, {kNan, 1.0f, -0.0f, 0.0f});
  Tensor b = f32({4}, {1.0f, kNan, 0.0f, -0.0f});
  auto mx = run_one("Max", {{"a", a}, {"b", b}}, 1).to_vector<float>();
  EXPECT_TRUE(std::isnan(mx[0]));
  EXPECT_TRUE(std::isnan(mx[1]));
  EXPECT_EQ(float_bits(mx[2]), 0u);
  EXPECT_EQ(float_bits(mx[3]), 0x80000000u);
  auto mn = run_one("Min", {{"a", a}, {"b", b}}, 1).to_vector<float>();
  EXPECT_TRUE(std::isnan(mn[0]));
  EXPECT_TRUE(std::isnan(mn[1]));
  EXPECT_EQ(float_bits(mn[2]), 0u);
  EXPECT_EQ(float_bits(mn[3]), 0x80000000u);
}

// Section 5: NaN equals nothing; -0 equals +0. Section 3: Sign of both zeros is +0.
TEST(OpsElementwise, ComparisonsAndSign) {
  Tensor a = f32({3}, {kNan, -0.0f, 1.0f});
  Tensor b = f32({3}, {kNan, 0.0f, 2.0f});
  EXPECT_EQ(run_one("Equal", {{"a", a}, {"b", b}}, 9).to_vector<std::uint8_t>(), (std::vector<std::uint8_t>{0, 1, 0}));
  EXPECT_EQ(run_one("LessOrEqual", {{"a", a}, {"b", b}}, 9).to_vector<std::uint8_t>(),
            (std::vector<std::uint8_t>{0, 1, 1}));
  auto s = run_one("Sign", {{"x", f32({4}, {-0.0f, 0.0f, -3.0f, 7.0f})}}, 1).to_vector<float>();
  EXPECT_EQ(float_bits(s[0]), 0u);
  EXPECT_EQ(float_bits(s[1]), 0u);
  EXPECT_EQ(s[2], -1.0f);
  EXPECT_EQ(s[3], 1.0f);
}

// Section 2: NumPy broadcasting; Sum and Mean fold left to right.
TEST(OpsElementwise, BroadcastingAndFolding) {
  Tensor y = run_one("Add", {{"a", f32({2, 1}, {10.0f, 20.0f})}, {"b", f32({3}, {1.0f, 2.0f, 3.0f})}}, 1);
  EXPECT_EQ(y.shape(), (Shape{2, 3}));
  EXPECT_EQ(y.to_vector<float>(), (std::vector<float>{11, 12, 13, 21, 22, 23}));
  // (1e8 + 1) rounds to 1e8 in binary32; then - 1e8 gives 0. The other order would give 1.
  Tensor s = run_one("Sum", {{"a", f32({1}, {1e8f})}, {"b", f32({1}, {1.0f})}, {"c", f32({1}, {-1e8f})}}, 1);
  EXPECT_EQ(s.to_vector<float>(), (std::vector<float>{0.0f}));
  Tensor m = run_one("Mean", {{"a", f32({2}, {1.0f, 2.0f})}, {"b", f32({1}, {4.0f})}}, 1);
  EXPECT_EQ(m.to_vector<float>(), (std::vector<float>{2.5f, 3.0f}));
  EXPECT_EQ(session_error_kind_of([&] { run_one("Add", {{"a", f32({2}, {1, 2})}, {"b", f32({3}, {1, 2, 3})}}, 1); }),
            SessionErrorKind::InvalidModel);
}

// Section 5: Where takes x where the condition is true.
TEST(OpsElementwise, WhereBroadcasts) {
  Tensor c = Tensor::from_values<std::uint8_t>(DType::Bool, Shape{2}, {1, 0});
  Tensor y = run_one("Where", {{"c", c}, {"x", i32({2, 1}, {1, 2})}, {"z", i32({}, {9})}}, 6);
  EXPECT_EQ(y.shape(), (Shape{2, 2}));
  EXPECT_EQ(y.to_vector<std::int32_t>(), (std::vector<std::int32_t>{1, 9, 2, 9}));
}

// Section 1: Sin is exact in float32 (spec/exact-transcendentals.md section 11: the correctly rounded
// value here, i.e. the double sine rounded to float) and in float64 (section 16: sin 2 correctly
// rounded, MPFR's 0.90929742682568171); Swish runs in float64 too (section 17: 2 sigmoid(2) =
// 1.7615941559557649, mpmath); f64 Exp runs exactly
// (spec/exact-transcendentals.md section 15).
TEST(OpsElementwise, RefusalsAreReported) {
  const Tensor sin2 = run_one("Sin", {{"x", f32({1}, {2.0f})}}, 1, {}, ExecutionMode::Exact, 7);
  EXPECT_EQ(sin2.to_vector<float>(), (std::vector<float>{static_cast<float>(std::sin(2.0))}));
  const Tensor two = Tensor::from_values<double>(DType::F64, Shape{1}, {2.0});
  EXPECT_EQ(run_one("Sin", {{"x", two}}, 11, {}, ExecutionMode::Exact, 7).to_vector<double>(),
            (std::vector<double>{0.90929742682568171}));
  EXPECT_NEAR(run_one("Swish", {{"x", two}}, 11, {}, ExecutionMode::Exact, 24).to_vector<double>().at(0),
              1.7615941559557649, 4e-16);
  // Exp takes float32 and float64 (section 10); an integer type is Unsupported. float64 runs in
  // exact mode with the exact binary64 exponential: e^0 = 1 exactly.
  EXPECT_EQ(session_error_kind_of([&] { run_one("Exp", {{"x", i32({1}, {1})}}, 6); }), SessionErrorKind::Unsupported);
  Tensor d = Tensor::from_values<double>(DType::F64, Shape{1}, {0.0});
  EXPECT_EQ(run_one("Exp", {{"x", d}}, 11, {}, ExecutionMode::Exact).to_vector<double>(), (std::vector<double>{1.0}));
}

// Section 3, Pow (spec/exact-transcendentals.md section 10): exact in both modes, special cases as
// C's pow, NaN stored canonical; an integer base saturates (Cast's rule). Expected values from the
// C17 Annex F.10.4.4 rules and exact arithmetic.
TEST(OpsElementwise, PowIsExactWithCSpecialCases) {
  for (ExecutionMode mode : {ExecutionMode::Exact, ExecutionMode::Fast}) {
    const auto y = run_one("Pow", {{"a", f32({6}, {3.0f, kNan, -2.0f, -0.0f, -8.0f, 2.0f})},
                                   {"b", f32({6}, {2.0f, 0.0f, 0.5f, -3.0f, 3.0f, -149.0f})}},
                           1, {}, mode)
                       .to_vector<float>();
    ASSERT_EQ(y.size(), 6u);
    EXPECT_EQ(y[0], 9.0f);
    EXPECT_EQ(y[1], 1.0f);                       // x^0 = 1 even for NaN x
    EXPECT_EQ(bits_of(y[2]), 0x7FC00000u);       // negative base, non-integer exponent: canonical NaN
    EXPECT_EQ(y[3], -kInf);                      // (-0)^-3 = -inf
    EXPECT_EQ(y[4], -512.0f);
    EXPECT_EQ(bits_of(y[5]), 1u);                // 2^-149, the smallest subnormal
    const auto n = run_one("Pow", {{"a", i32({4}, {100000, 2, -3, 0})}, {"b", i32({4}, {2, -1, 3, -1})}}, 6, {}, mode)
                       .to_vector<std::int32_t>();
    EXPECT_EQ(n, (std::vector<std::int32_t>{kMax32, 0, -27, kMax32}));  // 0^-1 = +inf saturates
  }
}

// Section 8: HardSigmoid and LeakyRelu with their default attributes.
TEST(OpsElementwise, ActivationFormulas) {
  auto hs = run_one("HardSigmoid", {{"x", f32({3}, {-10.0f, 0.0f, 10.0f})}}, 1).to_vector<float>();
  EXPECT_EQ(hs, (std::vector<float>{0.0f, 0.5f, 1.0f}));
  auto lr = run_one("LeakyRelu", {{"x", f32({2}, {-2.0f, 3.0f})}}, 1).to_vector<float>();
  EXPECT_EQ(lr, (std::vector<float>{-2.0f * 0.01f, 3.0f}));
}

}  // namespace
}  // namespace onemodel
