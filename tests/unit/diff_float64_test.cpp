// Differential test of the optimized overrides on the element types issue 12 added (float64, and
// bool for ReduceMax/ReduceMin): every override serves float32 only, so on these types it must hand
// the node to its reference kernel (optimized/ops/optimized_kernel.hpp) and give the reference's
// bits in both modes, on every instruction-set path at 1 and 2 threads. The tally checks that every
// case was a fallback: an override that started to serve float64 without a differential test of
// its own would fail here. Values with NaN, infinities, signed zeros and subnormals.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "diff/op_harness.hpp"
#include "tests/support/diff_test_helpers.hpp"
#include "tests/support/ir_builder.hpp"

namespace onemodel::diff {
namespace {

using ir_builder::int_attr;
using ir_builder::ints_attr;
using test_helpers::compare_everywhere;

Tensor f64_random(std::mt19937& rng, const Shape& shape, bool positive = false) {
  std::normal_distribution<double> normal(0.25, 3.0);
  std::uniform_int_distribution<int> pick(0, 30);
  std::vector<double> v(static_cast<std::size_t>(shape.element_count()));
  for (double& x : v) {
    x = positive ? std::fabs(normal(rng)) + 0.01 : normal(rng);
    switch (pick(rng)) {
      case 0: x = NAN; break;
      case 1: x = INFINITY; break;
      case 2: x = positive ? 0.0 : -INFINITY; break;
      case 3: x = 0.0; break;
      case 4: x = positive ? 0.0 : -0.0; break;
      case 5: x = 4e-320; break;
      default: break;
    }
  }
  return Tensor::from_values<double>(DType::F64, shape, std::span<const double>(v));
}

// Every input after the first is constant (OpCase::constant left empty); one output.
OpCase one_case(const std::string& op, std::int64_t opset, std::vector<IrAttribute> attributes,
                std::vector<Tensor> inputs) {
  OpCase c;
  c.op = op;
  c.opset = opset;
  c.attributes = std::move(attributes);
  c.inputs = std::move(inputs);
  return c;
}

TEST(DiffFloat64, OverridesHandFloat64AndBoolToTheReference) {
  std::mt19937 rng(1201);
  const Shape x_shape{2, 3, 4, 5};
  auto x = [&] { return f64_random(rng, x_shape); };
  auto c = [&] { return f64_random(rng, Shape{3}); };
  std::vector<OpCase> cases;
  for (const char* op : {"Exp", "Tanh", "Sigmoid", "Erf", "LeakyRelu", "HardSigmoid", "Relu", "Neg", "Abs", "Sqrt"}) {
    cases.push_back(one_case(op, 13, {}, {x()}));
  }
  cases.push_back(one_case("Log", 13, {}, {f64_random(rng, x_shape, true)}));
  cases.push_back(one_case("Gelu", 20, {}, {x()}));
  cases.push_back(one_case("HardSwish", 14, {}, {x()}));
  for (const char* op : {"Softmax", "LogSoftmax"}) {
    cases.push_back(one_case(op, 13, {int_attr("axis", 1)}, {x()}));
    cases.push_back(one_case(op, 11, {}, {x()}));
  }
  cases.push_back(one_case("LayerNormalization", 17, {int_attr("axis", -2)},
                         {x(), f64_random(rng, Shape{4, 5}), f64_random(rng, Shape{5})}));
  cases.push_back(one_case("RMSNormalization", 23, {}, {x(), f64_random(rng, Shape{5})}));
  cases.push_back(one_case("BatchNormalization", 15, {}, {x(), c(), c(), c(), f64_random(rng, Shape{3}, true)}));
  cases.push_back(one_case("GlobalAveragePool", 1, {}, {x()}));
  cases.push_back(one_case("GlobalMaxPool", 1, {}, {x()}));
  cases.push_back(
      one_case("AveragePool", 19, {ints_attr("kernel_shape", {2, 3}), ints_attr("pads", {1, 0, 0, 1})}, {x()}));
  const Tensor axes = Tensor::from_values<std::int64_t>(DType::I64, Shape{2}, {1, -1});
  for (const char* op : {"ReduceMax", "ReduceMin", "ReduceLogSum", "ReduceSum", "ReduceMean", "ReduceL2"}) {
    const bool positive = std::string(op) == "ReduceLogSum";
    cases.push_back(one_case(op, 18, {}, {positive ? f64_random(rng, x_shape, true) : x(), axes}));
  }
  std::vector<std::uint8_t> bits(static_cast<std::size_t>(x_shape.element_count()));
  for (std::uint8_t& b : bits) b = static_cast<std::uint8_t>(rng() % 2);
  const Tensor b = Tensor::from_values<std::uint8_t>(DType::Bool, x_shape, std::span<const std::uint8_t>(bits));
  cases.push_back(one_case("ReduceMax", 20, {}, {b, axes}));
  cases.push_back(one_case("ReduceMin", 20, {int_attr("keepdims", 0)}, {b, axes}));

  CaseTally tally;
  for (const OpCase& one : cases) {
    ASSERT_TRUE(has_override(one.op, one.opset)) << one.op << ": the test is about overrides";
    EXPECT_EQ(compare_everywhere(one, &tally), "");
  }
  EXPECT_EQ(tally.cases, cases.size()) << tally.summary();
  EXPECT_EQ(tally.fallback_cases, cases.size()) << tally.summary();
}

}  // namespace
}  // namespace onemodel::diff
