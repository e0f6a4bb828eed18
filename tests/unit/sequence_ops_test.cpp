// The refusals of the sequence operators (spec/ops/control-flow.md sections 1 and 2): a run-time
// position or length out of range is InvalidInput naming the node, a malformed graph (mixed element
// types) InvalidModel; both engines alike. The values the operators give are held by the backend
// cases (tests/conformance/expected.tsv) and the golden row sequence_chain.
#include <gtest/gtest.h>

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

constexpr std::int32_t kFloat = 1;
constexpr std::int32_t kInt64 = 7;

IrTensor int64_initializer(const std::string& name, std::vector<std::int64_t> values, bool scalar) {
  static std::vector<std::vector<std::int64_t>> keep;  // the bytes outlive every model of the test
  keep.push_back(std::move(values));
  IrTensor t;
  t.name = name;
  t.data_type = kInt64;
  if (!scalar) t.dims = {static_cast<std::int64_t>(keep.back().size())};
  t.data = ByteView{reinterpret_cast<const std::byte*>(keep.back().data()), keep.back().size() * 8, nullptr};
  return t;
}

// x float[3, 2] -> `nodes` -> y; `initializers` as given.
std::string error_of(EngineKind engine, std::vector<IrNode> nodes, std::vector<IrTensor> initializers,
                     std::int64_t opset = 17, std::vector<IrValueInfo> extra_inputs = {}) {
  IrModel model;
  model.ir_version = 8;
  model.opset_imports = {{"", opset}};
  model.graph.inputs = {fixed_tensor_value_info("x", kFloat, Shape{3, 2})};
  for (const IrValueInfo& v : extra_inputs) model.graph.inputs.push_back(v);
  model.graph.initializers = std::move(initializers);
  model.graph.nodes = std::move(nodes);
  model.graph.outputs = {unshaped_tensor_value_info("y", 0)};
  resolve_model(model, FieldPathStyle::Onnx);
  SessionOptions options;
  options.engine = engine;
  try {
    const Session s = Session::create(std::move(model), options);
    std::vector<std::pair<std::string, Value>> feeds{{"x", Value(Tensor::zeros(DType::F32, Shape{3, 2}))}};
    if (!extra_inputs.empty()) feeds.emplace_back(extra_inputs[0].name, Value(Tensor::zeros(DType::I64, Shape{2})));
    s.run_values(feeds);
  } catch (const SessionError& e) {
    return std::string(to_string(e.kind())) + (e.node_name().empty() ? "" : " @" + e.node_name());
  }
  return "no error";
}

IrNode named(IrNode n, const std::string& name) {
  n.name = name;
  return n;
}

class SequenceOps : public ::testing::TestWithParam<EngineKind> {};

TEST_P(SequenceOps, PositionsOutOfRangeAreInvalidInput) {
  const IrNode split = node("SplitToSequence", {"x"}, {"s"});  // three pieces
  EXPECT_EQ(error_of(GetParam(), {split, named(node("SequenceAt", {"s", "p"}, {"y"}), "at")}, {int64_initializer("p", {3}, true)}),
            "InvalidInput @at");
  EXPECT_EQ(error_of(GetParam(), {split, named(node("SequenceAt", {"s", "p"}, {"y"}), "at")}, {int64_initializer("p", {-4}, true)}),
            "InvalidInput @at");
  EXPECT_EQ(error_of(GetParam(), {split, named(node("SequenceAt", {"s", "p"}, {"y"}), "at")}, {int64_initializer("p", {-3}, true)}),
            "no error");
  // Insert accepts [-n, n]; n + 1 is outside.
  const IrNode piece = node("SequenceAt", {"s", "zero"}, {"t"});
  EXPECT_EQ(error_of(GetParam(), {split, piece, named(node("SequenceInsert", {"s", "t", "p"}, {"y"}), "insert")},
                     {int64_initializer("p", {4}, true), int64_initializer("zero", {0}, true)}),
            "InvalidInput @insert");
  // Erase of an empty sequence.
  IrNode empty = node("SequenceEmpty", {}, {"e"});
  EXPECT_EQ(error_of(GetParam(), {empty, named(node("SequenceErase", {"e"}, {"y"}), "erase")}, {}), "InvalidInput @erase");
}

TEST_P(SequenceOps, LengthsAndShapesThatCannotJoinAreInvalidInput) {
  // Split lengths adding up to 4 for an extent of 3, a negative one, a scalar piece of 0, lengths
  // whose sum overflows int64 (checked before adding, so no undefined behaviour under UBSan).
  constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();
  for (const auto& [values, scalar] : std::vector<std::pair<std::vector<std::int64_t>, bool>>{
           {{2, 2}, false}, {{4, -1}, false}, {{0}, true}, {{1, kMax, 4}, false}, {{kMax, kMax}, false}}) {
    EXPECT_EQ(error_of(GetParam(), {named(node("SplitToSequence", {"x", "k"}, {"y"}), "split")},
                       {int64_initializer("k", values, scalar)}),
              "InvalidInput @split");
  }
  // ConcatFromSequence of an empty sequence, and of pieces whose other extents differ.
  IrNode cat_empty = named(node("ConcatFromSequence", {"e"}, {"y"}), "cat");
  cat_empty.attributes = {int_attr("axis", 0)};
  EXPECT_EQ(error_of(GetParam(), {node("SequenceEmpty", {}, {"e"}), cat_empty}, {}), "InvalidInput @cat");
  IrNode cat = named(node("ConcatFromSequence", {"s"}, {"y"}), "cat");
  cat.attributes = {int_attr("axis", 0)};
  IrNode split = node("SplitToSequence", {"x", "k"}, {"s"});
  split.attributes = {int_attr("axis", 1)};  // pieces [3, 1] and [3, 1]: joined on axis 0 fine
  EXPECT_EQ(error_of(GetParam(), {split, cat}, {int64_initializer("k", {1, 1}, false)}), "no error");
  IrNode uneven = node("SplitToSequence", {"x", "k"}, {"s"});
  uneven.attributes = {int_attr("axis", 0)};  // pieces [1, 2] and [2, 2]: joined on axis 1 they differ
  cat.attributes = {int_attr("axis", 1)};
  EXPECT_EQ(error_of(GetParam(), {uneven, cat}, {int64_initializer("k", {1, 2}, false)}), "InvalidInput @cat");
}

TEST_P(SequenceOps, MixedElementTypesAreInvalidModel) {
  IrNode construct = named(node("SequenceConstruct", {"x", "ids"}, {"y"}), "construct");
  EXPECT_EQ(error_of(GetParam(), {construct}, {}, 17, {fixed_tensor_value_info("ids", kInt64, Shape{2})}),
            "InvalidModel @construct");
}

INSTANTIATE_TEST_SUITE_P(Engines, SequenceOps, ::testing::Values(EngineKind::Reference, EngineKind::Optimized),
                         [](const auto& info) { return info.param == EngineKind::Reference ? "Reference" : "Optimized"; });

}  // namespace
}  // namespace onemodel
