// Control flow, sequences and optionals through sessions (spec/values.md, spec/ops/control-flow.md):
// values in and out of run_values with their checks, the loop limit, branch declarations, the
// nesting and count limits, captures, and the packed form's refusals. Expected values come from
// the operators' definitions worked by hand.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/graph/packed_value.hpp"
#include "core/graph/tensor_bytes.hpp"
#include "core/ir/resolve.hpp"
#include "onemodel/session.hpp"
#include "onemodel/session_error.hpp"
#include "tests/support/ir_builder.hpp"

namespace onemodel {
namespace {

using namespace ir_builder;

constexpr std::int32_t kFloat = 1;
constexpr std::int32_t kInt64 = 7;
constexpr std::int32_t kBool = 9;

IrValueInfo sequence_info(const std::string& name, std::int32_t elem_type) {
  IrValueInfo info;
  info.name = name;
  info.type.kind = IrType::Kind::Sequence;
  IrType element;
  element.kind = IrType::Kind::Tensor;
  element.elem_type = elem_type;
  info.type.inner.push_back(element);
  return info;
}

IrValueInfo optional_tensor_info(const std::string& name, std::int32_t elem_type) {
  IrValueInfo info;
  info.name = name;
  info.type.kind = IrType::Kind::Optional;
  IrType element;
  element.kind = IrType::Kind::Tensor;
  element.elem_type = elem_type;
  info.type.inner.push_back(element);
  return info;
}

IrAttribute graph_attr(const std::string& name, IrGraph graph) {
  IrAttribute a;
  a.name = name;
  a.type = AttrType::Graph;
  a.graphs.push_back(std::move(graph));
  return a;
}

IrModel model_of(IrGraph graph, std::int64_t opset = 17) {
  IrModel model;
  model.ir_version = 8;
  model.opset_imports = {{"", opset}};
  model.graph = std::move(graph);
  resolve_model(model, FieldPathStyle::Onnx);
  return model;
}

SessionOptions options_for(EngineKind engine, ExecutionMode mode = ExecutionMode::Exact, int threads = 1) {
  SessionOptions o;
  o.engine = engine;
  o.mode = mode;
  o.intra_op_threads = threads;
  return o;
}

Tensor floats(const Shape& shape, std::vector<float> values) {
  return Tensor::from_values<float>(DType::F32, shape, std::span<const float>(values));
}

class ControlFlowTest : public ::testing::TestWithParam<EngineKind> {};

// A sequence in: SequenceLength and SequenceAt(-1) out; SplitToSequence's sequence out.
TEST_P(ControlFlowTest, SequencesGoInAndComeOut) {
  IrGraph g;
  g.inputs = {sequence_info("seq", kFloat), unshaped_tensor_value_info("x", kFloat)};
  g.initializers = {};
  IrTensor last;
  last.name = "last";
  last.data_type = kInt64;
  static const std::int64_t minus_one = -1;
  last.data = ByteView{reinterpret_cast<const std::byte*>(&minus_one), 8, nullptr};
  g.initializers.push_back(last);
  g.nodes = {node("SequenceLength", {"seq"}, {"n"}), node("SequenceAt", {"seq", "last"}, {"tail"}),
             node("SplitToSequence", {"x"}, {"pieces"})};
  g.outputs = {unshaped_tensor_value_info("n", kInt64), unshaped_tensor_value_info("tail", kFloat),
               sequence_info("pieces", kFloat)};
  const Session s = Session::create(model_of(g), options_for(GetParam()));
  ASSERT_EQ(s.outputs()[2].kind, ValueKind::Sequence);
  EXPECT_EQ(s.outputs()[2].element_type, kFloat);
  const Value seq = Value::sequence(DType::F32, {floats(Shape{2}, {1, 2}), floats(Shape{3}, {3, 4, 5})});
  const std::vector<Value> out = s.run_values({{"seq", seq}, {"x", Value(floats(Shape{3, 2}, {1, 2, 3, 4, 5, 6}))}});
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(out[0].tensor().to_vector<std::int64_t>(), std::vector<std::int64_t>{2});
  EXPECT_EQ(out[1].tensor().to_vector<float>(), (std::vector<float>{3, 4, 5}));
  ASSERT_EQ(out[2].kind(), Value::Kind::Sequence);
  ASSERT_EQ(out[2].elements().size(), 3u);  // no split: pieces of length 1 along axis 0
  EXPECT_EQ(out[2].elements()[1].shape(), (Shape{1, 2}));
  EXPECT_EQ(out[2].elements()[1].to_vector<float>(), (std::vector<float>{3, 4}));
}

TEST_P(ControlFlowTest, ValueChecksRefuseTheWrongKindAndType) {
  IrGraph g;
  g.inputs = {sequence_info("seq", kFloat)};
  g.nodes = {node("SequenceLength", {"seq"}, {"n"})};
  g.outputs = {unshaped_tensor_value_info("n", kInt64)};
  const Session s = Session::create(model_of(g), options_for(GetParam()));
  const auto kind = [&](const Value& v) { return session_error_kind_of([&] { s.run_values({{"seq", v}}); }); };
  EXPECT_EQ(kind(Value(floats(Shape{1}, {1}))), SessionErrorKind::InvalidInput);  // a tensor for a sequence
  const Tensor ints = Tensor::from_values<std::int64_t>(DType::I64, Shape{1}, {1});
  EXPECT_EQ(kind(Value::sequence(DType::I64, {ints})), SessionErrorKind::InvalidInput);  // int64 elements
  // The tensor API cannot carry a sequence: it says to use run_values.
  const std::vector<std::string> names{"seq"};
  const std::vector<Tensor> tensors{floats(Shape{1}, {1})};
  const std::vector<std::string> outs{"n"};
  std::vector<Tensor> results(1);
  try {
    s.run(names, tensors, outs, results);
    FAIL() << "a tensor was accepted for a sequence input";
  } catch (const SessionError& e) {
    EXPECT_EQ(e.kind(), SessionErrorKind::InvalidInput);
    EXPECT_NE(e.message().find("run_values"), std::string::npos) << e.message();
  }
  // An element type other than the sequence's is refused when the value is made.
  EXPECT_THROW(Value::sequence(DType::F32, {ints}), SessionError);
}

// An input declared without a type takes a sequence as well as a tensor (spec/values.md section 4).
TEST_P(ControlFlowTest, AnUntypedInputTakesASequence) {
  IrGraph g;
  IrValueInfo untyped;
  untyped.name = "any";
  g.inputs = {untyped};
  g.nodes = {node("SequenceLength", {"any"}, {"n"})};
  g.outputs = {unshaped_tensor_value_info("n", kInt64)};
  const Session s = Session::create(model_of(g), options_for(GetParam()));
  const Value seq = Value::sequence(DType::F32, {floats(Shape{1}, {1}), floats(Shape{1}, {2}), floats(Shape{1}, {3})});
  EXPECT_EQ(s.run_values({{"any", seq}})[0].tensor().to_vector<std::int64_t>(), std::vector<std::int64_t>{3});
}

TEST_P(ControlFlowTest, OptionalsHoldOrNot) {
  IrGraph g;
  g.inputs = {optional_tensor_info("o", kFloat)};
  g.nodes = {node("OptionalHasElement", {"o"}, {"has"})};
  g.outputs = {unshaped_tensor_value_info("has", kBool)};
  const Session s = Session::create(model_of(g, 18), options_for(GetParam()));
  const auto has = [&](const Value& v) { return s.run_values({{"o", v}})[0].tensor().to_vector<std::uint8_t>()[0]; };
  EXPECT_EQ(has(Value::empty_optional(Value::Kind::Tensor, DType::F32)), 0);
  EXPECT_EQ(has(Value::optional(Value(floats(Shape{2}, {1, 2})))), 1);
  EXPECT_EQ(has(Value(floats(Shape{2}, {1, 2}))), 1);  // a tensor stands for an optional holding it
}

// Loop: h <- h * 2 + 1 for M iterations; with M = 10 and max_loop_iterations 5 the node is
// refused with ResourceExhausted naming it; within the limit the result is 2^M * h + 2^M - 1.
IrGraph doubling_loop(bool with_trip, bool with_cond) {
  IrGraph body;
  body.name = "double";
  body.inputs = {tensor_value_info("i", kInt64, {}), tensor_value_info("c", kBool, {}), unshaped_tensor_value_info("h", kFloat)};
  body.nodes = {node("Add", {"h", "h"}, {"twice"}), node("Add", {"twice", "one"}, {"h_next"}), node("Identity", {"c"}, {"c_next"})};
  body.outputs = {tensor_value_info("c_next", kBool, {}), unshaped_tensor_value_info("h_next", kFloat)};
  IrGraph g;
  g.inputs = {tensor_value_info("m", kInt64, {}), tensor_value_info("go", kBool, {}), unshaped_tensor_value_info("h0", kFloat),
              tensor_value_info("one", kFloat, {})};
  IrNode loop = node("Loop", {with_trip ? "m" : "", with_cond ? "go" : "", "h0"}, {"h_final"});
  loop.attributes.push_back(graph_attr("body", body));
  g.nodes = {loop};
  g.outputs = {unshaped_tensor_value_info("h_final", kFloat)};
  return g;
}

std::vector<std::pair<std::string, Tensor>> loop_feeds(std::int64_t m) {
  return {{"m", Tensor::from_values<std::int64_t>(DType::I64, Shape{}, {m})},
          {"go", Tensor::from_values<std::uint8_t>(DType::Bool, Shape{}, {1})},
          {"h0", floats(Shape{2}, {0.5f, -3.0f})},
          {"one", floats(Shape{}, {1.0f})}};
}

TEST_P(ControlFlowTest, LoopRunsItsTripCountAndReadsCapturedInputs) {
  const Session s = Session::create(model_of(doubling_loop(true, false)), options_for(GetParam()));
  const std::vector<Tensor> out = s.run(loop_feeds(4));
  // 16 * h + 15
  EXPECT_EQ(out[0].to_vector<float>(), (std::vector<float>{23.0f, -33.0f}));
  // Zero iterations: the initial value.
  EXPECT_EQ(s.run(loop_feeds(0))[0].to_vector<float>(), (std::vector<float>{0.5f, -3.0f}));
}

// A scan output of a loop that ran no iteration: empty along the new axis with the slice extents
// the body declares ([0, 2]; what ONNX Runtime 1.31.1 gives for this graph), and [0] when the
// body leaves them open.
TEST_P(ControlFlowTest, ZeroIterationScanOutputTakesTheDeclaredSliceShape) {
  for (const bool declared : {true, false}) {
    IrGraph g = doubling_loop(true, false);
    IrGraph& body = g.nodes[0].attributes[0].graphs[0];
    body.nodes.push_back(node("Identity", {"h"}, {"h_scan"}));
    body.outputs.push_back(declared ? tensor_value_info("h_scan", kFloat, {fixed_dim(2)})
                                    : unshaped_tensor_value_info("h_scan", kFloat));
    g.nodes[0].outputs.push_back("all");
    g.outputs.push_back(unshaped_tensor_value_info("all", kFloat));
    const Session s = Session::create(model_of(g), options_for(GetParam()));
    const std::vector<Tensor> out = s.run(loop_feeds(0));
    EXPECT_EQ(out[1].shape(), declared ? (Shape{0, 2}) : (Shape{0}));
    EXPECT_EQ(s.run(loop_feeds(3))[1].shape(), (Shape{3, 2}));
  }
}

TEST_P(ControlFlowTest, LoopPastTheIterationLimitIsRefusedNamingTheNode) {
  SessionOptions o = options_for(GetParam());
  o.max_loop_iterations = 5;
  const Session bounded = Session::create(model_of(doubling_loop(true, false)), o);
  EXPECT_NO_THROW(bounded.run(loop_feeds(5)));
  // One past the limit is refused (the boundary).
  EXPECT_EQ(session_error_kind_of([&] { bounded.run(loop_feeds(6)); }), SessionErrorKind::ResourceExhausted);
  try {
    bounded.run(loop_feeds(10));
    FAIL() << "10 iterations ran under a limit of 5";
  } catch (const SessionError& e) {
    EXPECT_EQ(e.kind(), SessionErrorKind::ResourceExhausted);
    EXPECT_EQ(e.node_name(), "Loop_node");
  }
  // No trip count and no condition: a loop that never ends stops at the limit.
  const Session endless = Session::create(model_of(doubling_loop(false, false)), o);
  EXPECT_EQ(session_error_kind_of([&] { endless.run(loop_feeds(1)); }), SessionErrorKind::ResourceExhausted);
  // The condition keeps it going (the body passes it on): the limit stops it too.
  const Session while_true = Session::create(model_of(doubling_loop(false, true)), o);
  EXPECT_EQ(session_error_kind_of([&] { while_true.run(loop_feeds(1)); }), SessionErrorKind::ResourceExhausted);
}

// If whose branch declares an int64 output for a node output declared float.
TEST_P(ControlFlowTest, BranchDisagreeingWithTheDeclaredOutputIsInvalidModel) {
  const auto branch = [](const std::string& name, std::int32_t type) {
    IrGraph b;
    b.name = name;
    b.nodes = {node("Identity", {"x"}, {name + "_out"})};
    b.outputs = {unshaped_tensor_value_info(name + "_out", type)};
    return b;
  };
  IrGraph g;
  g.inputs = {tensor_value_info("c", kBool, {}), unshaped_tensor_value_info("x", kFloat)};
  IrNode if_node = node("If", {"c"}, {"y"});
  if_node.attributes = {graph_attr("then_branch", branch("then", kFloat)), graph_attr("else_branch", branch("else", kInt64))};
  g.nodes = {if_node};
  g.outputs = {unshaped_tensor_value_info("y", kFloat)};
  EXPECT_EQ(session_error_kind_of([&] { Session::create(model_of(g), options_for(GetParam())); }),
            SessionErrorKind::InvalidModel);
  // Both branches agreeing: the chosen one runs.
  g.nodes[0].attributes[1] = graph_attr("else_branch", branch("else", kFloat));
  const Session s = Session::create(model_of(g), options_for(GetParam()));
  const std::vector<Tensor> out = s.run({{"c", Tensor::from_values<std::uint8_t>(DType::Bool, Shape{}, {0})},
                                         {"x", floats(Shape{1}, {7})}});
  EXPECT_EQ(out[0].to_vector<float>(), std::vector<float>{7});
}

// If nodes nested `depth` deep, each branch passing x through. `both`: both branches hold the
// next level (2^(depth+1) - 2 subgraphs), else only the then-branch does (2 * depth).
IrGraph nested_ifs(int depth, bool both = false) {
  IrGraph leaf;
  leaf.name = "leaf";
  leaf.nodes = {node("Identity", {"x"}, {"leaf_out"})};
  leaf.outputs = {unshaped_tensor_value_info("leaf_out", kFloat)};
  IrGraph inner = leaf;
  for (int d = 0; d < depth - 1; ++d) {
    IrGraph outer;
    outer.name = "level" + std::to_string(d);
    IrNode n = node("If", {"c"}, {outer.name + "_out"});
    n.name = "if_" + std::to_string(d);
    n.attributes = {graph_attr("then_branch", inner), graph_attr("else_branch", both ? inner : leaf)};
    outer.nodes = {n};
    outer.outputs = {unshaped_tensor_value_info(outer.name + "_out", kFloat)};
    inner = outer;
  }
  IrGraph g;
  g.inputs = {tensor_value_info("c", kBool, {}), unshaped_tensor_value_info("x", kFloat)};
  IrNode top = node("If", {"c"}, {"y"});
  top.attributes = {graph_attr("then_branch", inner), graph_attr("else_branch", both ? inner : leaf)};
  g.nodes = {top};
  g.outputs = {unshaped_tensor_value_info("y", kFloat)};
  return g;
}

TEST_P(ControlFlowTest, NestingDepthIsLimited) {
  const Session ok = Session::create(model_of(nested_ifs(6, true)), options_for(GetParam()));
  const std::vector<Tensor> out = ok.run({{"c", Tensor::from_values<std::uint8_t>(DType::Bool, Shape{}, {1})},
                                          {"x", floats(Shape{1}, {2.5f})}});
  EXPECT_EQ(out[0].to_vector<float>(), std::vector<float>{2.5f});  // six bodies deep and back
  EXPECT_EQ(session_error_kind_of([&] { Session::create(model_of(nested_ifs(40)), options_for(GetParam())); }),
            SessionErrorKind::Unsupported);
}

TEST_P(ControlFlowTest, SubgraphCountIsLimited) {
  // 12 levels of two branches each hold 2^13 - 2 subgraphs: past the limit of 4096.
  EXPECT_NO_THROW(Session::create(model_of(nested_ifs(11, true)), options_for(GetParam())));  // 4094
  EXPECT_EQ(session_error_kind_of([&] { Session::create(model_of(nested_ifs(12, true)), options_for(GetParam())); }),
            SessionErrorKind::Unsupported);
}

INSTANTIATE_TEST_SUITE_P(Engines, ControlFlowTest, ::testing::Values(EngineKind::Reference, EngineKind::Optimized),
                         [](const auto& info) { return info.param == EngineKind::Reference ? "Reference" : "Optimized"; });

// The packed form (spec/values.md section 2): a round trip keeps every element; truncated or
// inconsistent bytes are refused before anything is allocated from them.
TEST(PackedValue, RoundTripAndRefusals) {
  const Value seq = Value::sequence(DType::F32, {floats(Shape{2, 1}, {1, 2}), floats(Shape{}, {3})});
  const Tensor packed = pack_value(seq, "test");
  ASSERT_TRUE(is_packed_value(packed));
  const Value back = unpack_value(packed, "test");
  ASSERT_EQ(back.elements().size(), 2u);
  EXPECT_EQ(back.elements()[0].shape(), (Shape{2, 1}));
  EXPECT_EQ(back.elements()[1].to_vector<float>(), std::vector<float>{3});
  const auto bytes = tensor_bytes(packed);
  const auto refused = [&](std::vector<std::byte> b) {
    const Tensor t = Tensor::from_bytes(DType::U8, Shape{static_cast<std::int64_t>(b.size())}, b);
    return session_error_kind_of([&] { unpack_value(t, "test"); });
  };
  std::vector<std::byte> truncated(bytes.begin(), bytes.end() - 8);
  EXPECT_EQ(refused(truncated), SessionErrorKind::InvalidModel);
  std::vector<std::byte> huge_count(bytes.begin(), bytes.end());
  huge_count[16 + 7] = std::byte{0x7F};  // element count 2^62 + ...: more records than bytes
  EXPECT_EQ(refused(huge_count), SessionErrorKind::InvalidModel);
  std::vector<std::byte> bad_rank(bytes.begin(), bytes.end());
  bad_rank[24 + 4] = std::byte{9};  // the first record's rank: past the limit of 8
  EXPECT_EQ(refused(bad_rank), SessionErrorKind::InvalidModel);
  std::vector<std::byte> trailing(bytes.begin(), bytes.end());
  trailing.resize(trailing.size() + 8, std::byte{0});
  EXPECT_EQ(refused(trailing), SessionErrorKind::InvalidModel);
}

}  // namespace
}  // namespace onemodel
