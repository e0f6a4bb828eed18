// Differential tests of the element-wise overrides (optimized/ops/op_<name>.cpp for Add, Sub, Mul,
// Div, Relu, Neg, Abs, Sqrt, Exp, Log, Tanh, Sigmoid, Erf, Gelu, LeakyRelu, HardSigmoid,
// HardSwish, Clip, Transpose) against the reference kernels through diff/op_harness.hpp: the same
// bits in exact and in fast mode (the reference uses one code for both, spec/ops/elementwise.md
// section 3), on every instruction-set path of this machine, at 1 and 2 threads, over every
// 4099th float32 bit pattern plus special values; binary operators over rapidcheck-generated
// broadcast shapes; Transpose over random permutations of ranks 1..6 and several element types.
#include <gtest/gtest.h>
#include <rapidcheck.h>

#include <cstdint>
#include <cstring>
#include <numeric>
#include <string>
#include <vector>

#include "diff/op_harness.hpp"
#include "tests/support/diff_test_helpers.hpp"
#include "tests/support/ir_builder.hpp"

namespace onemodel::diff {
namespace {

using ir_builder::float_attr;
using ir_builder::ints_attr;
using ir_builder::string_attr;
using test_helpers::compare_everywhere;
using test_helpers::f32_tensor;

float from_bits(std::uint32_t u) {
  float x;
  std::memcpy(&x, &u, sizeof x);
  return x;
}

// Every 4099th pattern, then NaNs of both signs and other payloads, infinities, zeros, subnormals,
// the edges of the exp thresholds, and a dense walk over [-12, 12].
std::vector<float> sweep_values() {
  std::vector<float> v;
  for (std::uint64_t u = 0; u <= 0xFFFFFFFFull; u += 4099) v.push_back(from_bits(static_cast<std::uint32_t>(u)));
  for (std::uint32_t s : {0x00000000u, 0x80000000u, 0x7F800000u, 0xFF800000u, 0x7FC00000u, 0xFFC00000u, 0x7F800001u,
                          0xFFBFFFFFu, 0x00000001u, 0x80000001u, 0x007FFFFFu, 0x807FFFFFu, 0x00800000u, 0x80800000u,
                          0x7F7FFFFFu, 0xFF7FFFFFu, 0x42B17217u, 0x42B17218u, 0xC2CFF1B4u, 0xC2CFF1B5u}) {
    v.push_back(from_bits(s));
  }
  for (float x = -12.0f; x <= 12.0f; x += 0.0137f) v.push_back(x);
  return v;
}

const std::vector<float>& sweep() {
  static const std::vector<float> values = sweep_values();
  return values;
}

struct UnaryRow {
  const char* op;
  std::int64_t opset;
  std::vector<IrAttribute> attributes;
};

TEST(DiffElementwise, EveryUnaryOperatorHasAnOverride) {
  for (const char* op : {"Relu", "Neg", "Abs", "Sqrt", "Exp", "Log", "Tanh", "Sigmoid", "Erf", "LeakyRelu",
                         "HardSigmoid", "Clip", "Add", "Sub", "Mul", "Div", "Transpose"}) {
    EXPECT_TRUE(has_override(op, 17)) << op;
  }
  EXPECT_TRUE(has_override("Gelu", 20));
  EXPECT_TRUE(has_override("HardSwish", 14));
  EXPECT_TRUE(has_override("Clip", 6));
}

constexpr double kFastGeluUlp = 8.0;

TEST(DiffElementwise, UnaryOperatorsGiveTheReferenceBitsOnTheSweep) {
  const std::vector<UnaryRow> rows = {
      {"Relu", 14, {}},
      {"Neg", 13, {}},
      {"Abs", 13, {}},
      {"Sqrt", 13, {}},
      {"Exp", 13, {}},
      {"Log", 13, {}},
      {"Tanh", 13, {}},
      {"Sigmoid", 13, {}},
      {"Erf", 13, {}},
      {"Gelu", 20, {}},
      {"Gelu", 20, {string_attr("approximate", "tanh")}},
      {"LeakyRelu", 16, {}},
      {"LeakyRelu", 16, {float_attr("alpha", 0.3f)}},
      {"HardSigmoid", 6, {}},
      {"HardSigmoid", 6, {float_attr("alpha", 0.7f), float_attr("beta", -0.1f)}},
      {"HardSwish", 14, {}},
      {"Clip", 6, {}},
      {"Clip", 6, {float_attr("min", -0.5f), float_attr("max", 3.0f)}},
      {"Clip", 6, {float_attr("min", 2.0f), float_attr("max", -1.0f)}},
  };
  const std::vector<float>& values = sweep();
  const Tensor x = f32_tensor(Shape{static_cast<std::int64_t>(values.size())}, values);
  CaseTally tally;
  for (const UnaryRow& row : rows) {
    OpCase c;
    c.op = row.op;
    c.opset = row.opset;
    c.attributes = row.attributes;
    c.inputs = {x};
    // Fast-mode Sigmoid is the fast sigmoid (docs/design.md "Fast-mode sigmoid"): within the 3 ulp
    // tests/kernels/elementwise_fast_sigmoid_test.cpp pins, not the reference's bits. Fast-mode
    // Gelu (docs/design.md "Fast-mode GELU") is the same formula with fused steps and the fast
    // exponential: within kFastGeluUlp of the reference's exact sequence (the widest gaps are in
    // the negative tail, where the results are a few ulp of tiny values).
    const double fast_ulp = std::string(row.op) == "Sigmoid" ? 3.0 : std::string(row.op) == "Gelu" ? kFastGeluUlp : 0.0;
    EXPECT_EQ(compare_everywhere(c, &tally, fast_ulp), "") << row.op << " attributes " << row.attributes.size();
  }
  // Every row runs its override, and the sweep is long enough to be split between two threads.
  EXPECT_EQ(tally.override_cases, rows.size()) << tally.summary();
  EXPECT_EQ(tally.shared_cases, rows.size()) << tally.summary();
}

TEST(DiffElementwise, Clip11BoundsFromInputs) {
  const std::vector<float>& values = sweep();
  const Tensor x = f32_tensor(Shape{static_cast<std::int64_t>(values.size())}, values);
  auto scalar = [](float v) { return f32_tensor(Shape{}, {v}); };
  const std::vector<std::vector<Tensor>> inputs = {
      {x},
      {x, scalar(-1.0f), scalar(0.25f)},
      {x, Tensor(), scalar(0.25f)},
      {x, scalar(-0.0f)},
      {x, scalar(from_bits(0x7FC00000u)), scalar(1.0f)},  // a NaN bound has no effect
      {x, scalar(5.0f), scalar(-5.0f)},                   // the upper bound wins
  };
  CaseTally tally;
  for (const auto& in : inputs) {
    OpCase c;
    c.op = "Clip";
    c.opset = 13;
    c.inputs = in;
    EXPECT_EQ(compare_everywhere(c, &tally), "") << in.size() << " inputs";
  }
  EXPECT_EQ(tally.override_cases, inputs.size()) << tally.summary();
  EXPECT_EQ(tally.shared_cases, inputs.size()) << tally.summary();
}

// Fallback cases, labelled as such: other element types run the reference kernel, so these
// compare that kernel with itself (they check the hand-over only).
TEST(DiffElementwise, OtherElementTypesRunTheReference) {
  CaseTally tally;
  OpCase add;
  add.op = "Add";
  add.opset = 14;
  add.inputs = {Tensor::from_values<std::int32_t>(DType::I32, Shape{3}, {1, 2147483647, -5}),
                Tensor::from_values<std::int32_t>(DType::I32, Shape{1}, {1})};
  EXPECT_EQ(compare_everywhere(add, &tally), "");
  OpCase relu;
  relu.op = "Relu";
  relu.opset = 14;
  relu.inputs = {Tensor::from_values<double>(DType::F64, Shape{3}, {-1.0, 2.0, -0.0})};
  EXPECT_EQ(compare_everywhere(relu, &tally), "");
  EXPECT_EQ(tally.fallback_cases, 2u) << tally.summary();
}

TEST(DiffElementwise, BinaryOperatorsOnTheSweepAndCommonBroadcasts) {
  const std::vector<float>& values = sweep();
  const std::int64_t n = static_cast<std::int64_t>(values.size());
  std::vector<float> reversed(values.rbegin(), values.rend());
  const Tensor a = f32_tensor(Shape{n}, values);
  const Tensor b = f32_tensor(Shape{n}, reversed);
  // Rows of 1000 (the tail of the sweep is cut off) for row and column broadcasts.
  const std::int64_t rows = n / 1000;
  const Tensor matrix = f32_tensor(Shape{rows, 1000}, std::vector<float>(values.begin(), values.begin() + rows * 1000));
  const Tensor row = f32_tensor(Shape{1000}, std::vector<float>(reversed.begin(), reversed.begin() + 1000));
  const Tensor column = f32_tensor(Shape{rows, 1}, std::vector<float>(reversed.begin() + 5, reversed.begin() + 5 + rows));
  const std::vector<std::pair<Tensor, Tensor>> operands = {
      {a, b},
      {a, f32_tensor(Shape{}, {0.5f})},
      {f32_tensor(Shape{1}, {-0.0f}), b},
      {a, f32_tensor(Shape{}, {from_bits(0xFFC00001u)})},
      {matrix, row},
      {row, matrix},
      {matrix, column},
      {column, row},
  };
  CaseTally tally;
  for (const char* op : {"Add", "Sub", "Mul", "Div"}) {
    for (const auto& [x, y] : operands) {
      OpCase c;
      c.op = op;
      c.opset = 14;
      c.inputs = {x, y};
      EXPECT_EQ(compare_everywhere(c, &tally), "") << op << " " << x.shape().to_string() << " " << y.shape().to_string();
    }
  }
  EXPECT_EQ(tally.override_cases, 4 * operands.size()) << tally.summary();
  EXPECT_EQ(tally.shared_cases, 4 * operands.size()) << tally.summary();
}

TEST(DiffElementwise, BinaryOperatorsOnRandomBroadcastShapes) {
  const std::vector<float>& values = sweep();
  CaseTally tally;
  EXPECT_TRUE(rc::check("broadcast shapes", [&]() {
    const int rank = *rc::gen::inRange(0, 6);
    const auto extents = *rc::gen::container<std::vector<std::int64_t>>(
        static_cast<std::size_t>(rank), rc::gen::oneOf(rc::gen::just<std::int64_t>(1), rc::gen::inRange<std::int64_t>(0, 5),
                                                       rc::gen::inRange<std::int64_t>(5, 30)));
    std::int64_t count = 1;
    for (auto e : extents) count *= e;
    RC_PRE(count <= 100000);
    auto operand = [&]() {
      const int own_rank = *rc::gen::inRange(0, rank + 1);
      std::vector<std::int64_t> shape;
      for (int d = rank - own_rank; d < rank; ++d) {
        shape.push_back(*rc::gen::element(0, 1) == 0 ? 1 : extents[static_cast<std::size_t>(d)]);
      }
      const Shape s{std::span<const std::int64_t>(shape)};
      const std::size_t start = *rc::gen::inRange<std::size_t>(0, values.size());
      std::vector<float> data(static_cast<std::size_t>(s.element_count()));
      for (std::size_t i = 0; i < data.size(); ++i) data[i] = values[(start + i * 13) % values.size()];
      return f32_tensor(s, data);
    };
    OpCase c;
    c.op = *rc::gen::element<std::string>("Add", "Sub", "Mul", "Div");
    c.opset = 14;
    c.inputs = {operand(), operand()};
    const std::string d = compare_everywhere(c, &tally);
    RC_ASSERT(d == "");
  }));
  // Every float32 broadcast is served by the override. Up to 100000 elements rarely span two
  // chunks: not a thread test (BinaryOperatorsOnTheSweepAndCommonBroadcasts splits).
  EXPECT_EQ(tally.override_cases, tally.cases) << tally.summary();
}

TEST(DiffElementwise, TransposeRandomPermutations) {
  CaseTally tally;
  EXPECT_TRUE(rc::check("transpose", [&]() {
    const int rank = *rc::gen::inRange(1, 7);
    const auto shape = *rc::gen::container<std::vector<std::int64_t>>(
        static_cast<std::size_t>(rank), rc::gen::oneOf(rc::gen::just<std::int64_t>(1), rc::gen::inRange<std::int64_t>(0, 6),
                                                       rc::gen::inRange<std::int64_t>(6, 80)));
    std::int64_t count = 1;
    for (auto e : shape) count *= e;
    RC_PRE(count <= 200000);
    std::vector<std::int64_t> perm(static_cast<std::size_t>(rank));
    std::iota(perm.begin(), perm.end(), 0);
    for (std::size_t i = perm.size(); i > 1; --i) {
      std::swap(perm[i - 1], perm[*rc::gen::inRange<std::size_t>(0, i)]);
    }
    const Shape s{std::span<const std::int64_t>(shape)};
    const DType type = *rc::gen::element(DType::F32, DType::F16, DType::I64, DType::U8, DType::Bool);
    std::vector<std::byte> bytes(static_cast<std::size_t>(count) * dtype_size(type));
    for (std::size_t i = 0; i < bytes.size(); ++i) {
      bytes[i] = static_cast<std::byte>(type == DType::Bool ? (i * 7 >> 2) & 1 : (i * 131 + 7) ^ (i >> 8));
    }
    OpCase c;
    c.op = "Transpose";
    c.opset = 13;
    c.inputs = {Tensor::from_bytes(type, s, bytes)};
    // Half the cases use the default (reversed) order.
    if (*rc::gen::arbitrary<bool>()) c.attributes = {ints_attr("perm", perm)};
    const std::string d = compare_everywhere(c, &tally);
    RC_ASSERT(d == "");
  }));
  // Ranks up to 6 and element sizes 1, 2 and 8 are all served by the override.
  EXPECT_EQ(tally.override_cases, tally.cases) << tally.summary();
  EXPECT_GT(tally.shared_cases, 0u) << tally.summary();
}

}  // namespace
}  // namespace onemodel::diff
