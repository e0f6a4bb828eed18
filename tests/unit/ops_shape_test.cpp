// Edge cases of the shape and indexing operators in the reference engine, with expected values
// worked out by hand from spec/ops/shape-indexing.md (sections cited per test): Slice sentinels
// and negative steps, Pad reflect beyond one period, TopK ties and NaN, Gather negative indices
// and the out-of-range error.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "core/ir/resolve.hpp"
#include "onemodel/session.hpp"
#include "onemodel/session_error.hpp"
#include "tests/support/ir_builder.hpp"

namespace onemodel {
namespace {

using namespace ir_builder;

constexpr std::int64_t kI64Max = std::numeric_limits<std::int64_t>::max();
constexpr std::int64_t kI64Min = std::numeric_limits<std::int64_t>::min();
constexpr std::int64_t kI32Max = std::numeric_limits<std::int32_t>::max();

// One node; every input is a graph input (element types given), outputs declared without shapes.
struct OneNode {
  std::string op;
  int opset = 18;
  std::vector<std::pair<std::string, std::int32_t>> inputs;
  std::vector<std::pair<std::string, std::int32_t>> outputs;
  std::vector<IrAttribute> attributes;

  Session session(ExecutionMode mode) const {
    IrModel m;
    m.ir_version = 8;
    m.opset_imports = {{"", opset}};
    IrNode n = node(op, {}, {});
    for (const auto& [name, type] : inputs) {
      m.graph.inputs.push_back(unshaped_tensor_value_info(name, type));
      n.inputs.push_back(name);
    }
    for (const auto& [name, type] : outputs) {
      m.graph.outputs.push_back(unshaped_tensor_value_info(name, type));
      n.outputs.push_back(name);
    }
    n.attributes = attributes;
    m.graph.nodes = {n};
    resolve_model(m, FieldPathStyle::Onnx);
    return reference_session(std::move(m), mode);
  }
};

Tensor i64(std::vector<std::int64_t> v) {
  return Tensor::from_values<std::int64_t>(DType::I64, Shape{static_cast<std::int64_t>(v.size())}, v);
}
Tensor f32(const Shape& shape, std::vector<float> v) { return Tensor::from_values<float>(DType::F32, shape, v); }

class ShapeOps : public ::testing::TestWithParam<ExecutionMode> {};

// spec/ops/shape-indexing.md section 3: Slice on x = [0 1 2 3 4].
std::vector<float> slice5(std::int64_t start, std::int64_t end, std::int64_t step, ExecutionMode mode) {
  OneNode node{"Slice", 13, {{"x", 1}, {"s", 7}, {"e", 7}, {"a", 7}, {"t", 7}}, {{"y", 1}}, {}};
  Session s = node.session(mode);
  auto out = s.run({{"x", f32(Shape{5}, {0, 1, 2, 3, 4})}, {"s", i64({start})}, {"e", i64({end})},
                    {"a", i64({0})}, {"t", i64({step})}});
  return out[0].to_vector<float>();
}

TEST_P(ShapeOps, SliceSentinelsAndNegativeSteps) {
  const ExecutionMode m = GetParam();
  using V = std::vector<float>;
  // End INT32_MAX / INT64_MAX with a negative step means "through element 0".
  EXPECT_EQ(slice5(kI64Max, kI32Max, -1, m), (V{4, 3, 2, 1, 0}));
  EXPECT_EQ(slice5(kI64Max, kI64Max, -1, m), (V{4, 3, 2, 1, 0}));
  // An end of 100 with a negative step clamps to n-1 = 4 = start: nothing.
  EXPECT_EQ(slice5(kI64Max, 100, -1, m), V{});
  // INT_MIN end: -1 after clamping; start -1 -> 4; step -2: 4, 2, 0.
  EXPECT_EQ(slice5(-1, kI64Min, -2, m), (V{4, 2, 0}));
  // Positive step with sentinels: whole axis; INT64_MAX step selects one element.
  EXPECT_EQ(slice5(0, kI64Max, 1, m), (V{0, 1, 2, 3, 4}));
  EXPECT_EQ(slice5(1, kI64Max, kI64Max, m), (V{1}));
  EXPECT_EQ(slice5(kI64Min, 3, 2, m), (V{0, 2}));
  // Negative start and end: [-3, -1) = elements 2, 3.
  EXPECT_EQ(slice5(-3, -1, 1, m), (V{2, 3}));
  // start 3, end 0, step -1: 3, 2, 1 (the end is exclusive).
  EXPECT_EQ(slice5(3, 0, -1, m), (V{3, 2, 1}));
  // start past the end with a positive step: empty.
  EXPECT_EQ(slice5(4, 2, 1, m), V{});
}

// A step of 0 is refused; slice5 feeds the steps as a graph input, so the refusal is the
// caller's: InvalidInput (spec/errors.md section 3.2).
TEST_P(ShapeOps, SliceStepZeroIsRefused) {
  try {
    slice5(0, 5, 0, GetParam());
    FAIL() << "no error";
  } catch (const SessionError& e) {
    EXPECT_EQ(e.kind(), SessionErrorKind::InvalidInput);
  }
}

// spec/ops/shape-indexing.md section 4: reflect beyond one period (period 2(n-1) = 4 for n = 3).
TEST_P(ShapeOps, PadReflectBeyondOnePeriod) {
  OneNode node{"Pad", 18, {{"x", 1}, {"p", 7}}, {{"y", 1}}, {string_attr("mode", "reflect")}};
  Session s = node.session(GetParam());
  auto out = s.run({{"x", f32(Shape{3}, {1, 2, 3})}, {"p", i64({5, 4})}});
  // Output o reads i = o - 5; j = i mod 4 (non-negative), read x[j] if j < 3 else x[4 - j].
  // i = -5..-1: j = 3, 0, 1, 2, 3 -> x[1], x[0], x[1], x[2], x[1] = 2, 1, 2, 3, 2; i = 0..2: 1, 2, 3;
  // i = 3..6: j = 3, 0, 1, 2 -> 2, 1, 2, 3.
  EXPECT_EQ(out[0].to_vector<float>(), (std::vector<float>{2, 1, 2, 3, 2, 1, 2, 3, 2, 1, 2, 3}));
}

TEST_P(ShapeOps, PadReflectOnExtentOneRepeatsAndEdgeAndWrap) {
  {
    OneNode node{"Pad", 18, {{"x", 1}, {"p", 7}}, {{"y", 1}}, {string_attr("mode", "reflect")}};
    auto out = node.session(GetParam()).run({{"x", f32(Shape{1}, {7})}, {"p", i64({2, 1})}});
    EXPECT_EQ(out[0].to_vector<float>(), (std::vector<float>{7, 7, 7, 7}));
  }
  {
    OneNode node{"Pad", 19, {{"x", 1}, {"p", 7}}, {{"y", 1}}, {string_attr("mode", "wrap")}};
    auto out = node.session(GetParam()).run({{"x", f32(Shape{3}, {1, 2, 3})}, {"p", i64({4, 2})}});
    // i = -4..-1 -> 2, 0, 1, 2 (mod 3); then 0..2; then 3, 4 -> 0, 1.
    EXPECT_EQ(out[0].to_vector<float>(), (std::vector<float>{3, 1, 2, 3, 1, 2, 3, 1, 2}));
  }
  {
    // A negative pad crops; constant value from the input.
    OneNode node{"Pad", 18, {{"x", 1}, {"p", 7}, {"v", 1}}, {{"y", 1}}, {}};
    auto out = node.session(GetParam()).run({{"x", f32(Shape{3}, {1, 2, 3})}, {"p", i64({-1, 2})},
                                             {"v", Tensor::from_values<float>(DType::F32, Shape{}, {9.0f})}});
    EXPECT_EQ(out[0].to_vector<float>(), (std::vector<float>{2, 3, 9, 9}));
  }
}

// spec/ops/shape-indexing.md section 5: ties keep the lower index first in both directions; NaN
// is greater than every number.
TEST_P(ShapeOps, TopKTiesAndNaN) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  auto topk = [&](std::vector<float> x, std::int64_t k, std::int64_t largest) {
    OneNode node{"TopK", 11, {{"x", 1}, {"k", 7}}, {{"v", 1}, {"i", 7}}, {int_attr("largest", largest)}};
    return node.session(GetParam()).run(
        {{"x", f32(Shape{static_cast<std::int64_t>(x.size())}, x)}, {"k", i64({k})}});
  };
  auto out = topk({1, 3, 3, 2, 3}, 3, 1);
  EXPECT_EQ(out[0].to_vector<float>(), (std::vector<float>{3, 3, 3}));
  EXPECT_EQ(out[1].to_vector<std::int64_t>(), (std::vector<std::int64_t>{1, 2, 4}));
  out = topk({2, 1, 2, 1}, 3, 0);
  EXPECT_EQ(out[0].to_vector<float>(), (std::vector<float>{1, 1, 2}));
  EXPECT_EQ(out[1].to_vector<std::int64_t>(), (std::vector<std::int64_t>{1, 3, 0}));
  out = topk({1, nan, 5, nan}, 3, 1);
  EXPECT_EQ(out[1].to_vector<std::int64_t>(), (std::vector<std::int64_t>{1, 3, 2}));
  out = topk({1, nan, 5, nan}, 4, 0);
  EXPECT_EQ(out[1].to_vector<std::int64_t>(), (std::vector<std::int64_t>{0, 2, 1, 3}));
}

// spec/ops/shape-indexing.md section 2 (Gather) and section 1 rule 7.
TEST_P(ShapeOps, GatherNegativeIndicesAndOutOfRange) {
  OneNode node{"Gather", 13, {{"x", 1}, {"i", 7}}, {{"y", 1}}, {int_attr("axis", 1)}};
  Session s = node.session(GetParam());
  const Tensor x = f32(Shape{2, 3}, {0, 1, 2, 10, 11, 12});
  auto out = s.run({{"x", x}, {"i", i64({-1, 0, -3})}});
  EXPECT_EQ(out[0].shape(), (Shape{2, 3}));
  EXPECT_EQ(out[0].to_vector<float>(), (std::vector<float>{2, 0, 0, 12, 10, 10}));
  for (std::int64_t bad : {3, -4}) {
    try {
      s.run({{"x", x}, {"i", i64({0, bad})}});
      FAIL() << "no error for index " << bad;
    } catch (const SessionError& e) {
      EXPECT_EQ(e.kind(), SessionErrorKind::InvalidInput);
      EXPECT_EQ(e.node_name(), "Gather_node");
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Modes, ShapeOps, ::testing::Values(ExecutionMode::Fast, ExecutionMode::Exact));

}  // namespace
}  // namespace onemodel
