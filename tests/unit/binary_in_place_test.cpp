// Binary element-wise overrides may write over a dying operand (elementwise_override.hpp;
// spec/optimized-engine.md section 4 rule 3): which block the planner gives the output, when it
// must not, and that the values stay the reference's for every operand order, in exact and fast
// mode, at one and two threads.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "diff/graph_builder.hpp"
#include "onemodel/session.hpp"
#include "tests/kernels/two_threads.hpp"
#include "tests/support/plan_fixture.hpp"
#include "tests/support/same_outputs.hpp"

namespace onemodel {
namespace {

using graph_builder::GraphBuilder;
using Feeds = std::vector<std::pair<std::string, Tensor>>;

// Values of both signs, none zero (Div's divisor), different in every row of `shape`.
Tensor values(const Shape& shape, float offset) {
  std::vector<float> v(static_cast<std::size_t>(shape.element_count()));
  for (std::size_t i = 0; i < v.size(); ++i) {
    v[i] = offset + 0.375f * static_cast<float>(i % 23) - 4.0f + (i % 23 == 10 ? 0.5f : 0.0f);
  }
  return Tensor::from_values<float>(DType::F32, shape, v);
}

// The plan of the graph as imported (no pass fuses the element-wise nodes into one chain node,
// so the binary override itself is planned).
struct Planned : test::PlanFixture {
  using PlanFixture::PlanFixture;
  std::int64_t offset(const std::string& name) const { return value(name).offset; }
};

const Shape kFull{16, 4096};  // four chunks of the element-wise kernels (kChunkElements)
const Shape kRow{16, 1};

// a = Neg(x) (full size) and s = Neg(t) (one value a row), both slab values; y = op(first,
// second) with first/second naming a or s; then y read by Relu (and by `also` when not empty).
IrModel binary_model(const std::string& op, const std::string& first, const std::string& second,
                     const std::string& also = "") {
  GraphBuilder b(17);
  b.input("x", DType::F32, kFull).input("t", DType::F32, kRow);
  b.node("Neg", {"x"}, {"a"}).node("Neg", {"t"}, {"s"}).node(op, {first, second}, {"y"});
  if (also.empty()) {
    b.node("Relu", {"y"}, {"out"});
  } else {
    b.node("Add", {"y", also}, {"out"});
  }
  b.output("out", DType::F32);
  return b.build();
}

Feeds feeds() { return {{"x", values(kFull, 0.0f)}, {"t", values(kRow, 0.125f)}}; }

std::vector<Tensor> inputs() { return {values(kFull, 0.0f), values(kRow, 0.125f)}; }

TEST(BinaryInPlace, TheOutputTakesTheBlockOfTheFullSizeOperandThatDies) {
  for (const char* op : {"Add", "Sub", "Mul", "Div"}) {
    SCOPED_TRACE(op);
    // The full-size operand first (in_place_input), then second (in_place_second).
    const Planned first(binary_model(op, "a", "s"), inputs());
    EXPECT_EQ(first.offset("y"), first.offset("a"));
    const Planned second(binary_model(op, "s", "a"), inputs());
    EXPECT_EQ(second.offset("y"), second.offset("a"));
    // Both operands the same value.
    const Planned same(binary_model(op, "a", "a"), inputs());
    EXPECT_EQ(same.offset("y"), same.offset("a"));
  }
}

TEST(BinaryInPlace, NeitherABroadcastOperandNorOneStillReadGivesItsBlock) {
  // s is smaller than y: y never takes it (nor overlaps it, since s is read while y is written).
  const Planned small(binary_model("Mul", "s", "a"), inputs());
  EXPECT_NE(small.offset("y"), small.offset("s"));
  // a is read again after the Mul: y needs a block of its own.
  for (const auto& [first, second] : {std::pair<std::string, std::string>{"a", "s"}, {"s", "a"}}) {
    const Planned again(binary_model("Mul", first, second, "a"), inputs());
    EXPECT_NE(again.offset("y"), again.offset("a")) << first << " * " << second;
  }
}

TEST(BinaryInPlace, ValuesAreTheReferencesInEveryOrderModeAndThreadCount) {
  std::vector<std::pair<std::string, IrModel>> models;
  for (const char* op : {"Add", "Sub", "Mul", "Div"}) {
    models.emplace_back(std::string(op) + "(a, s)", binary_model(op, "a", "s"));
    models.emplace_back(std::string(op) + "(s, a)", binary_model(op, "s", "a"));
    models.emplace_back(std::string(op) + "(a, a)", binary_model(op, "a", "a"));
    models.emplace_back(std::string(op) + "(s, a) + a", binary_model(op, "s", "a", "a"));
  }
  const opt::two_threads::SessionsAlwaysShare sharing;
  for (const auto& [name, model] : models) {
    SessionOptions reference;
    reference.engine = EngineKind::Reference;
    reference.mode = ExecutionMode::Exact;
    const auto expected = Session::create(model, reference).run(feeds());
    for (ExecutionMode mode : {ExecutionMode::Exact, ExecutionMode::Fast}) {
      for (int threads : {1, 2}) {
        for (OptimizationLevel level : {OptimizationLevel::None, OptimizationLevel::All}) {
          SCOPED_TRACE(name + (mode == ExecutionMode::Exact ? " exact" : " fast") + " threads " +
                       std::to_string(threads) + " level " + std::to_string(static_cast<int>(level)));
          SessionOptions options;
          options.mode = mode;
          options.intra_op_threads = threads;
          options.optimization_level = level;
          test::expect_same_outputs(Session::create(model, options).run(feeds()), expected, "");
        }
      }
    }
  }
  sharing.require("the binary operators at two threads");
}

}  // namespace
}  // namespace onemodel
