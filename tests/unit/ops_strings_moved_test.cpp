// STRING elements through the indexing, padding, Unique, sequence and control-flow operators
// (spec/tensors.md section 8). Each test runs the reference engine (exact mode) and the optimized
// engine and compares them; the expected values are worked by hand from the ONNX operator text,
// and where ONNX Runtime 1.31.1 serves the case it gave the same values (said next to the test).
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "core/graph/packed_value.hpp"
#include "core/graph/tensor_bytes.hpp"
#include "core/ir/resolve.hpp"
#include "onemodel/session.hpp"
#include "tests/support/ir_builder.hpp"

namespace onemodel {
namespace {

using namespace ir_builder;

constexpr std::int32_t kI64 = 7;
constexpr std::int32_t kString = 8;

Tensor strings(const Shape& shape, std::vector<std::string> v) { return Tensor::from_strings(shape, v); }
Tensor i64(const Shape& shape, std::vector<std::int64_t> v) {
  return Tensor::from_values<std::int64_t>(DType::I64, shape, v);
}
std::vector<std::string> texts(const Tensor& t) { return t.to_vector<std::string>(); }
std::vector<std::int64_t> ints(const Tensor& t) { return t.to_vector<std::int64_t>(); }

// The outputs of both engines must agree in type, shape and elements; the reference's are returned.
void expect_same(const std::vector<Tensor>& ref, const std::vector<Tensor>& opt, const std::string& what) {
  ASSERT_EQ(ref.size(), opt.size()) << what;
  for (std::size_t i = 0; i < ref.size(); ++i) {
    EXPECT_EQ(ref[i].dtype(), opt[i].dtype()) << what;
    EXPECT_EQ(ref[i].shape(), opt[i].shape()) << what;
    if (ref[i].dtype() == DType::String) {
      EXPECT_EQ(texts(ref[i]), texts(opt[i])) << what;
    } else if (ref[i].dtype() == DType::I64) {
      EXPECT_EQ(ints(ref[i]), ints(opt[i])) << what;
    }
  }
}

std::vector<Tensor> run_both(const std::string& op, std::int64_t opset, const std::vector<NodeInput>& inputs,
                             const std::vector<IrValueInfo>& outputs, std::vector<IrAttribute> attributes = {}) {
  std::vector<Tensor> ref = run_one_node(op, opset, inputs, outputs, attributes, ExecutionMode::Exact);
  SessionOptions o;
  o.engine = EngineKind::Optimized;
  o.mode = ExecutionMode::Exact;
  Session s = Session::create(one_node_model(op, opset, inputs, outputs, attributes), o);
  expect_same(ref, s.run(feeds_of(inputs)), op);
  return ref;
}

Tensor run1(const std::string& op, std::int64_t opset, const std::vector<NodeInput>& inputs,
            std::vector<IrAttribute> attributes = {}) {
  return run_both(op, opset, inputs, {unshaped_tensor_value_info("y", kString)}, std::move(attributes)).at(0);
}

// Both engines refuse the node with `kind` and a message containing `why`.
void expect_refused(SessionErrorKind kind, const std::string& why, const std::string& op, std::int64_t opset,
                    const std::vector<NodeInput>& inputs, std::vector<IrAttribute> attributes = {}) {
  for (EngineKind engine : {EngineKind::Reference, EngineKind::Optimized}) {
    try {
      SessionOptions o;
      o.engine = engine;
      Session s = Session::create(one_node_model(op, opset, inputs, {unshaped_tensor_value_info("y", kString)}, attributes), o);
      s.run(feeds_of(inputs));
      ADD_FAILURE() << op << ": no error, expected one saying '" << why << "'";
    } catch (const SessionError& e) {
      EXPECT_EQ(e.kind(), kind) << e.what();
      EXPECT_NE(std::string(e.what()).find(why), std::string::npos) << e.what();
    }
  }
}

// ---- GatherND, ScatterND, ScatterElements ----

// GatherND, ScatterND and ScatterElements (reduction none): hand-worked from the ONNX text's
// formulas; ONNX Runtime 1.31.1 gives the same strings for each.
TEST(StringsMovedIndexing, GatherNDPicksTuplesAndSlices) {
  const Tensor d = strings(Shape{2, 2}, {"a", "b", "c", "d"});
  // Full tuples: data[1][0], data[0][1].
  EXPECT_EQ(texts(run1("GatherND", 13, {{"d", d}, {"i", i64(Shape{2, 2}, {1, 0, 0, 1})}})),
            (std::vector<std::string>{"c", "b"}));
  // A one-element tuple selects the row data[1]: output shape [1, 2].
  const Tensor row = run1("GatherND", 13, {{"d", d}, {"i", i64(Shape{1, 1}, {1})}});
  EXPECT_EQ(row.shape(), (Shape{1, 2}));
  EXPECT_EQ(texts(row), (std::vector<std::string>{"c", "d"}));
  // batch_dims 1: batch 0 takes its element 1, batch 1 its element 0.
  EXPECT_EQ(texts(run1("GatherND", 13, {{"d", d}, {"i", i64(Shape{2, 1}, {1, 0})}}, {int_attr("batch_dims", 1)})),
            (std::vector<std::string>{"b", "c"}));
}

TEST(StringsMovedIndexing, ScatterNDWritesSlicesLastWins) {
  const Tensor d = strings(Shape{4}, {"a", "b", "c", "d"});
  EXPECT_EQ(texts(run1("ScatterND", 18, {{"d", d}, {"i", i64(Shape{2, 1}, {1, 3})}, {"u", strings(Shape{2}, {"x", "z"})}})),
            (std::vector<std::string>{"a", "x", "c", "z"}));
  // Rows of a [2, 2] tensor: row 0 receives its update slice; the data input is not changed.
  const Tensor m = strings(Shape{2, 2}, {"p", "q", "r", "s"});
  EXPECT_EQ(texts(run1("ScatterND", 11, {{"d", m}, {"i", i64(Shape{1, 1}, {-2})}, {"u", strings(Shape{1, 2}, {"", "long string"})}})),
            (std::vector<std::string>{"", "long string", "r", "s"}));
  EXPECT_EQ(texts(m), (std::vector<std::string>{"p", "q", "r", "s"}));
}

TEST(StringsMovedIndexing, ScatterElementsWritesAlongTheAxis) {
  const Tensor d = strings(Shape{2, 2}, {"a", "b", "c", "d"});
  // axis 1: updates[r][c] goes to column indices[r][c] of row r.
  EXPECT_EQ(texts(run1("ScatterElements", 18, {{"d", d}, {"i", i64(Shape{2, 1}, {1, 0})}, {"u", strings(Shape{2, 1}, {"x", "y"})}},
                       {int_attr("axis", 1)})),
            (std::vector<std::string>{"a", "x", "y", "d"}));
  EXPECT_EQ(texts(run1("ScatterElements", 13, {{"d", strings(Shape{4}, {"a", "b", "c", "d"})}, {"i", i64(Shape{2}, {1, 0})},
                                               {"u", strings(Shape{2}, {"x", "w"})}})),
            (std::vector<std::string>{"w", "x", "c", "d"}));
}

TEST(StringsMovedIndexing, ReductionsOnStringsAreRefused) {
  // ONNX defines the reductions as +, *, max and min, which have no STRING meaning here (ONNX
  // Runtime 1.31.1 refuses ScatterElements max on strings too): Unsupported, naming the type.
  expect_refused(SessionErrorKind::Unsupported, "reduction on String", "ScatterND", 18,
                 {{"d", strings(Shape{2}, {"a", "b"})}, {"i", i64(Shape{1, 1}, {1})}, {"u", strings(Shape{1}, {"x"})}},
                 {string_attr("reduction", "add")});
  expect_refused(SessionErrorKind::Unsupported, "reduction on String", "ScatterElements", 18,
                 {{"d", strings(Shape{2}, {"a", "b"})}, {"i", i64(Shape{1}, {1})}, {"u", strings(Shape{1}, {"x"})}},
                 {string_attr("reduction", "max")});
  // A bad index is still the caller's error.
  expect_refused(SessionErrorKind::InvalidInput, "outside", "GatherND", 13,
                 {{"d", strings(Shape{2}, {"a", "b"})}, {"i", i64(Shape{1, 1}, {2})}});
}

// ---- DepthToSpace, SpaceToDepth ----

// Hand-worked from the ONNX text's reshape/transpose formulas; the ONNX reference evaluator
// (onnx 1.23.2) gives the same (ONNX Runtime 1.31.1 has no STRING kernel for them).
TEST(StringsMovedIndexing, DepthToSpaceAndSpaceToDepth) {
  const Tensor c8 = strings(Shape{1, 8, 1, 1}, {"0", "1", "2", "3", "4", "5", "6", "7"});
  const Tensor dcr = run1("DepthToSpace", 13, {{"x", c8}}, {int_attr("blocksize", 2)});
  EXPECT_EQ(dcr.shape(), (Shape{1, 2, 2, 2}));
  EXPECT_EQ(texts(dcr), (std::vector<std::string>{"0", "2", "4", "6", "1", "3", "5", "7"}));
  const Tensor crd = run1("DepthToSpace", 13, {{"x", c8}}, {int_attr("blocksize", 2), string_attr("mode", "CRD")});
  EXPECT_EQ(texts(crd), (std::vector<std::string>{"0", "1", "2", "3", "4", "5", "6", "7"}));
  const Tensor s = run1("SpaceToDepth", 13, {{"x", strings(Shape{1, 2, 2, 2}, {"0", "1", "2", "3", "4", "5", "6", "7"})}},
                        {int_attr("blocksize", 2)});
  EXPECT_EQ(s.shape(), (Shape{1, 8, 1, 1}));
  EXPECT_EQ(texts(s), (std::vector<std::string>{"0", "4", "1", "5", "2", "6", "3", "7"}));
}

// ---- Pad ----

// Hand-worked from the ONNX Pad text (constant_value "by default it is 0, empty string or
// False"); edge, reflect and wrap agree with the ONNX reference evaluator. ONNX Runtime 1.31.1
// has no STRING Pad kernel.
TEST(StringsMovedPad, ConstantModeFillsWithEmptyOrTheGivenString) {
  const Tensor x = strings(Shape{3}, {"a", "b", "c"});
  EXPECT_EQ(texts(run1("Pad", 19, {{"x", x}, {"p", i64(Shape{2}, {2, 1})}})),
            (std::vector<std::string>{"", "", "a", "b", "c", ""}));
  // A negative end pad crops; constant_value gives the fill.
  EXPECT_EQ(texts(run1("Pad", 13, {{"x", x}, {"p", i64(Shape{2}, {1, -1})}, {"c", strings(Shape{}, {"pad"})}})),
            (std::vector<std::string>{"pad", "a", "b"}));
  // An axes input (opset 18): only axis 1 of a [2, 1] tensor is padded.
  EXPECT_EQ(texts(run1("Pad", 18, {{"x", strings(Shape{2, 1}, {"u", "v"})}, {"p", i64(Shape{2}, {0, 1})}, {"c", strings(Shape{}, {"-"})},
                                   {"a", i64(Shape{1}, {1})}})),
            (std::vector<std::string>{"u", "-", "v", "-"}));
}

TEST(StringsMovedPad, EdgeReflectWrapCopyElements) {
  const Tensor x = strings(Shape{3}, {"a", "b", "c"});
  const std::vector<NodeInput> in{{"x", x}, {"p", i64(Shape{2}, {2, 2})}};
  EXPECT_EQ(texts(run1("Pad", 19, in, {string_attr("mode", "edge")})),
            (std::vector<std::string>{"a", "a", "a", "b", "c", "c", "c"}));
  EXPECT_EQ(texts(run1("Pad", 19, in, {string_attr("mode", "reflect")})),
            (std::vector<std::string>{"c", "b", "a", "b", "c", "b", "a"}));
  EXPECT_EQ(texts(run1("Pad", 19, in, {string_attr("mode", "wrap")})),
            (std::vector<std::string>{"b", "c", "a", "b", "c", "a", "b"}));
}

TEST(StringsMovedPad, BeforeOpset13AndMixedFillAreRefused) {
  // ONNX Pad 11 does not take tensor(string): the engines' guard refuses it.
  expect_refused(SessionErrorKind::Unsupported, "String", "Pad", 11,
                 {{"x", strings(Shape{1}, {"a"})}, {"p", i64(Shape{2}, {1, 1})}});
  expect_refused(SessionErrorKind::InvalidModel, "constant_value", "Pad", 13,
                 {{"x", strings(Shape{1}, {"a"})}, {"p", i64(Shape{2}, {1, 1})}, {"c", i64(Shape{}, {0})}});
}


// ---- Unique ----

std::vector<Tensor> unique_of(const Tensor& x, std::vector<IrAttribute> attributes) {
  return run_both("Unique", 11, {{"x", x}},
                  {unshaped_tensor_value_info("y", kString), unshaped_tensor_value_info("indices", kI64),
                   unshaped_tensor_value_info("inverse", kI64), unshaped_tensor_value_info("counts", kI64)},
                  std::move(attributes));
}

// Every expected value is ONNX Runtime 1.31.1's output for the same model; sorted order is byte
// order ("\xc3\xa9", e with an acute accent in UTF-8, after "z"; "B" before "a"), which is also
// the numpy.unique order of these strings.
TEST(StringsMovedUnique, SortedAndUnsortedWithoutAxis) {
  const Tensor x = strings(Shape{8}, {"b", "a", "\xc3\xa9", "B", "", "a", "z", "b"});
  const std::vector<Tensor> s = unique_of(x, {});
  EXPECT_EQ(texts(s[0]), (std::vector<std::string>{"", "B", "a", "b", "z", "\xc3\xa9"}));
  EXPECT_EQ(ints(s[1]), (std::vector<std::int64_t>{4, 3, 1, 0, 6, 2}));
  EXPECT_EQ(ints(s[2]), (std::vector<std::int64_t>{3, 2, 5, 1, 0, 2, 4, 3}));
  EXPECT_EQ(ints(s[3]), (std::vector<std::int64_t>{1, 1, 2, 2, 1, 1}));
  const std::vector<Tensor> u = unique_of(x, {int_attr("sorted", 0)});
  EXPECT_EQ(texts(u[0]), (std::vector<std::string>{"b", "a", "\xc3\xa9", "B", "", "z"}));
  EXPECT_EQ(ints(u[1]), (std::vector<std::int64_t>{0, 1, 2, 3, 4, 6}));
  EXPECT_EQ(ints(u[2]), (std::vector<std::int64_t>{0, 1, 2, 3, 4, 1, 5, 0}));
  EXPECT_EQ(ints(u[3]), (std::vector<std::int64_t>{2, 2, 1, 1, 1, 1}));
}

TEST(StringsMovedUnique, SlicesAlongAnAxis) {
  const Tensor m = strings(Shape{3, 2}, {"b", "a", "a", "b", "b", "a"});
  const std::vector<Tensor> rows = unique_of(m, {int_attr("axis", 0)});
  EXPECT_EQ(rows[0].shape(), (Shape{2, 2}));
  EXPECT_EQ(texts(rows[0]), (std::vector<std::string>{"a", "b", "b", "a"}));
  EXPECT_EQ(ints(rows[1]), (std::vector<std::int64_t>{1, 0}));
  EXPECT_EQ(ints(rows[2]), (std::vector<std::int64_t>{1, 0, 1}));
  EXPECT_EQ(ints(rows[3]), (std::vector<std::int64_t>{1, 2}));
  const std::vector<Tensor> columns = unique_of(m, {int_attr("axis", 1)});
  EXPECT_EQ(columns[0].shape(), (Shape{3, 2}));
  EXPECT_EQ(texts(columns[0]), (std::vector<std::string>{"a", "b", "b", "a", "a", "b"}));
  EXPECT_EQ(ints(columns[1]), (std::vector<std::int64_t>{1, 0}));
  EXPECT_EQ(ints(columns[2]), (std::vector<std::int64_t>{1, 0}));
  EXPECT_EQ(ints(columns[3]), (std::vector<std::int64_t>{1, 1}));
  const std::vector<Tensor> first = unique_of(m, {int_attr("axis", 0), int_attr("sorted", 0)});
  EXPECT_EQ(texts(first[0]), (std::vector<std::string>{"b", "a", "a", "b"}));
  EXPECT_EQ(ints(first[2]), (std::vector<std::int64_t>{0, 1, 0}));
  EXPECT_EQ(ints(first[3]), (std::vector<std::int64_t>{2, 1}));
}

// ---- Sequences and control flow: multi-node graphs, both engines ----

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

IrAttribute graph_attr(const std::string& name, IrGraph graph) {
  IrAttribute a;
  a.name = name;
  a.type = AttrType::Graph;
  a.graphs.push_back(std::move(graph));
  return a;
}

IrNode with(IrNode n, std::vector<IrAttribute> attributes) {
  n.attributes = std::move(attributes);
  return n;
}

// The graph's outputs from both engines (exact mode), which must agree element for element.
std::vector<Value> run_graph(const IrGraph& graph, std::int64_t opset, const std::vector<std::pair<std::string, Value>>& feeds) {
  std::vector<std::vector<Value>> results;
  for (EngineKind engine : {EngineKind::Reference, EngineKind::Optimized}) {
    IrModel model;
    model.ir_version = 8;
    model.opset_imports = {{"", opset}};
    model.graph = graph;
    resolve_model(model, FieldPathStyle::Onnx);
    SessionOptions o;
    o.engine = engine;
    o.mode = ExecutionMode::Exact;
    results.push_back(Session::create(std::move(model), o).run_values(feeds));
  }
  EXPECT_EQ(results[0].size(), results[1].size());
  for (std::size_t i = 0; i < results[0].size() && i < results[1].size(); ++i) {
    const Value& a = results[0][i];
    const Value& b = results[1][i];
    EXPECT_EQ(a.kind(), b.kind()) << "output " << i;
    if (a.kind() != b.kind()) continue;
    if (a.kind() == Value::Kind::Sequence) {
      EXPECT_EQ(a.elements().size(), b.elements().size()) << "output " << i;
      if (a.elements().size() != b.elements().size()) continue;
      for (std::size_t k = 0; k < a.elements().size(); ++k) expect_same({a.elements()[k]}, {b.elements()[k]}, "element");
    } else if (a.kind() == Value::Kind::Tensor) {
      expect_same({a.tensor()}, {b.tensor()}, "output " + std::to_string(i));
    }
  }
  return results[0];
}

Value tensor_value(Tensor t) { return Value(std::move(t)); }
Tensor scalar(std::int64_t v) { return i64(Shape{}, {v}); }

// Hand-worked from the ONNX sequence operators' text: construct [a, b], insert c at the back,
// erase position 0, then length 2, element -1 is c, concatenation along axis 0 is b then c;
// SplitToSequence without `split` cuts a into pieces of one; SequenceEmpty(dtype 8) then insert.
// ONNX Runtime 1.31.1 gives the same five outputs for the same graph.
TEST(StringsMovedSequences, ConstructInsertEraseAtLengthConcatSplitEmpty) {
  IrGraph g;
  g.inputs = {fixed_tensor_value_info("a", kString, Shape{2}), fixed_tensor_value_info("b", kString, Shape{1}),
              fixed_tensor_value_info("c", kString, Shape{3}), fixed_tensor_value_info("p0", kI64, Shape{}),
              fixed_tensor_value_info("pm1", kI64, Shape{})};
  g.nodes = {node("SequenceConstruct", {"a", "b"}, {"s"}),
             node("SequenceInsert", {"s", "c"}, {"s2"}),
             node("SequenceErase", {"s2", "p0"}, {"s3"}),
             node("SequenceLength", {"s3"}, {"n"}),
             node("SequenceAt", {"s3", "pm1"}, {"last"}),
             with(node("ConcatFromSequence", {"s3"}, {"joined"}), {int_attr("axis", 0)}),
             node("SplitToSequence", {"a"}, {"pieces"}),
             with(node("SequenceEmpty", {}, {"e"}), {int_attr("dtype", kString)}),
             node("SequenceInsert", {"e", "b"}, {"e2"})};
  g.outputs = {unshaped_tensor_value_info("n", kI64), unshaped_tensor_value_info("last", kString),
               unshaped_tensor_value_info("joined", kString), sequence_info("pieces", kString), sequence_info("e2", kString)};
  const std::vector<Value> out =
      run_graph(g, 17, {{"a", tensor_value(strings(Shape{2}, {"a0", "a1"}))}, {"b", tensor_value(strings(Shape{1}, {""}))},
                        {"c", tensor_value(strings(Shape{3}, {"c0", "c1", "c2"}))}, {"p0", tensor_value(scalar(0))},
                        {"pm1", tensor_value(scalar(-1))}});
  ASSERT_EQ(out.size(), 5u);
  EXPECT_EQ(ints(out[0].tensor()), (std::vector<std::int64_t>{2}));
  EXPECT_EQ(texts(out[1].tensor()), (std::vector<std::string>{"c0", "c1", "c2"}));
  EXPECT_EQ(texts(out[2].tensor()), (std::vector<std::string>{"", "c0", "c1", "c2"}));
  ASSERT_EQ(out[3].elements().size(), 2u);
  EXPECT_EQ(out[3].elements()[1].shape(), (Shape{1}));
  EXPECT_EQ(texts(out[3].elements()[1]), (std::vector<std::string>{"a1"}));
  ASSERT_EQ(out[4].elements().size(), 1u);
  EXPECT_EQ(out[4].element_type(), DType::String);
  EXPECT_EQ(texts(out[4].elements()[0]), (std::vector<std::string>{""}));
}

// A STRING sequence fed through run_values and stacked (new_axis 1: [2] and [2] make [2, 2]).
TEST(StringsMovedSequences, FedSequenceIsStacked) {
  IrGraph g;
  g.inputs = {sequence_info("seq", kString)};
  g.nodes = {with(node("ConcatFromSequence", {"seq"}, {"y"}), {int_attr("axis", 0), int_attr("new_axis", 1)})};
  g.outputs = {unshaped_tensor_value_info("y", kString)};
  const Value seq = Value::sequence(DType::String, {strings(Shape{2}, {"p", "q"}), strings(Shape{2}, {std::string(100, 'r'), ""})});
  const std::vector<Value> out = run_graph(g, 17, {{"seq", seq}});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].tensor().shape(), (Shape{2, 2}));
  EXPECT_EQ(texts(out[0].tensor()), (std::vector<std::string>{"p", "q", std::string(100, 'r'), ""}));
}

// The packed form (spec/values.md section 2) keeps each string's bytes, NUL included, and refuses
// a string length beyond the bytes left (InvalidModel) before making the string.
TEST(StringsMovedSequences, PackedFormRoundTripsAndChecksLengths) {
  const std::string with_nul("a\0b", 3);
  const Value seq = Value::sequence(DType::String, {strings(Shape{2}, {with_nul, "0123456789"}), strings(Shape{}, {""})});
  const Tensor packed = pack_value(seq, "test");
  const Value back = unpack_value(packed, "test");
  ASSERT_EQ(back.elements().size(), 2u);
  EXPECT_EQ(back.element_type(), DType::String);
  EXPECT_EQ(texts(back.elements()[0]), (std::vector<std::string>{with_nul, "0123456789"}));
  EXPECT_EQ(back.elements()[1].shape(), (Shape{}));
  EXPECT_EQ(texts(back.elements()[1]), (std::vector<std::string>{""}));
  // header 8, sequence fields 16, record type and rank 8, one extent 8: the first length at 40.
  Tensor bad = packed.contiguous();
  const std::int64_t huge = std::int64_t{1} << 40;
  std::memcpy(mutable_tensor_bytes(bad).data() + 40, &huge, 8);
  try {
    unpack_value(bad, "test");
    ADD_FAILURE() << "a string length past the end was accepted";
  } catch (const SessionError& e) {
    EXPECT_EQ(e.kind(), SessionErrorKind::InvalidModel);
    EXPECT_NE(std::string(e.what()).find("string length"), std::string::npos) << e.what();
  }
}

// Optional (opset 15 on) holds a STRING tensor; OptionalHasElement says so and
// OptionalGetElement hands it back unchanged (ONNX Optional text, worked by hand).
TEST(StringsMovedSequences, OptionalHoldsStrings) {
  IrGraph g;
  g.inputs = {fixed_tensor_value_info("x", kString, Shape{2})};
  g.nodes = {node("Optional", {"x"}, {"o"}), node("OptionalHasElement", {"o"}, {"has"}),
             node("OptionalGetElement", {"o"}, {"back"})};
  g.outputs = {unshaped_tensor_value_info("has", kBool), unshaped_tensor_value_info("back", kString)};
  const std::vector<Value> out = run_graph(g, 18, {{"x", tensor_value(strings(Shape{2}, {"k", ""}))}});
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].tensor().to_vector<std::uint8_t>(), (std::vector<std::uint8_t>{1}));
  EXPECT_EQ(texts(out[1].tensor()), (std::vector<std::string>{"k", ""}));
}

// Optional without an input and with `type` tensor(string): an empty optional of STRING, which
// OptionalHasElement reports as empty (ONNX Optional text, worked by hand).
TEST(StringsMovedSequences, EmptyOptionalOfStrings) {
  IrAttribute type;
  type.name = "type";
  type.type = AttrType::TypeProto;
  IrType held;
  held.kind = IrType::Kind::Tensor;
  held.elem_type = kString;
  type.type_protos.push_back(held);
  IrGraph g;
  g.inputs = {fixed_tensor_value_info("x", kString, Shape{1})};
  g.nodes = {with(node("Optional", {}, {"o"}), {type}), node("OptionalHasElement", {"o"}, {"has"}),
             node("Identity", {"x"}, {"y"})};
  g.outputs = {unshaped_tensor_value_info("has", kBool), unshaped_tensor_value_info("y", kString)};
  const std::vector<Value> out = run_graph(g, 18, {{"x", tensor_value(strings(Shape{1}, {"z"}))}});
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].tensor().to_vector<std::uint8_t>(), (std::vector<std::uint8_t>{0}));
}

// SequenceMap (opset 17 on) runs its body once per element: StringConcat of each STRING element
// with a captured suffix (ONNX SequenceMap text, worked by hand).
TEST(StringsMovedSequences, SequenceMapMapsStrings) {
  IrGraph body;
  body.name = "body";
  body.inputs = {unshaped_tensor_value_info("e", kString)};
  body.nodes = {node("StringConcat", {"e", "suffix"}, {"f"})};
  body.outputs = {unshaped_tensor_value_info("f", kString)};
  IrGraph g;
  g.inputs = {sequence_info("seq", kString), fixed_tensor_value_info("suffix", kString, Shape{})};
  g.nodes = {with(node("SequenceMap", {"seq"}, {"mapped"}), {graph_attr("body", body)})};
  g.outputs = {sequence_info("mapped", kString)};
  const Value seq = Value::sequence(DType::String, {strings(Shape{2}, {"a", ""}), strings(Shape{1}, {"b"})});
  const std::vector<Value> out = run_graph(g, 20, {{"seq", seq}, {"suffix", tensor_value(strings(Shape{}, {"!"}))}});
  ASSERT_EQ(out.size(), 1u);
  ASSERT_EQ(out[0].elements().size(), 2u);
  EXPECT_EQ(texts(out[0].elements()[0]), (std::vector<std::string>{"a!", "!"}));
  EXPECT_EQ(texts(out[0].elements()[1]), (std::vector<std::string>{"b!"}));
}

// If: each branch hands on a STRING value it captures from the outer graph (ONNX If text).
TEST(StringsMovedControlFlow, IfBranchesCaptureStrings) {
  IrGraph then_branch;
  then_branch.name = "then";
  then_branch.nodes = {node("Identity", {"a"}, {"t"})};
  then_branch.outputs = {unshaped_tensor_value_info("t", kString)};
  IrGraph else_branch;
  else_branch.name = "else";
  else_branch.nodes = {node("Identity", {"b"}, {"e"})};
  else_branch.outputs = {unshaped_tensor_value_info("e", kString)};
  IrGraph g;
  g.inputs = {fixed_tensor_value_info("cond", kBool, Shape{}), fixed_tensor_value_info("a", kString, Shape{2}),
              fixed_tensor_value_info("b", kString, Shape{1})};
  g.nodes = {with(node("If", {"cond"}, {"y"}), {graph_attr("then_branch", then_branch), graph_attr("else_branch", else_branch)})};
  g.outputs = {unshaped_tensor_value_info("y", kString)};
  for (const std::uint8_t c : {std::uint8_t{1}, std::uint8_t{0}}) {
    const std::vector<Value> out =
        run_graph(g, 17, {{"cond", tensor_value(Tensor::from_values<std::uint8_t>(DType::Bool, Shape{}, {c}))},
                          {"a", tensor_value(strings(Shape{2}, {"then0", "then1"}))}, {"b", tensor_value(strings(Shape{1}, {"else"}))}});
    ASSERT_EQ(out.size(), 1u);
    EXPECT_EQ(texts(out[0].tensor()), c != 0 ? (std::vector<std::string>{"then0", "then1"}) : (std::vector<std::string>{"else"}));
  }
}

// Loop (M = 3, no cond): the carried STRING v gets the captured suffix appended each iteration
// (StringConcat, opset 20), and each new v is a scan output: "x" -> "x-", "x--", "x---" (ONNX
// Runtime 1.31.1 gives the same).
TEST(StringsMovedControlFlow, LoopCarriesAndStacksStrings) {
  IrGraph body;
  body.name = "body";
  body.inputs = {unshaped_tensor_value_info("i", kI64), unshaped_tensor_value_info("cond_in", kBool),
                 unshaped_tensor_value_info("v", kString)};
  body.nodes = {node("Identity", {"cond_in"}, {"cond_out"}), node("StringConcat", {"v", "suffix"}, {"v_out"}),
                node("Identity", {"v_out"}, {"scan"})};
  body.outputs = {unshaped_tensor_value_info("cond_out", kBool), unshaped_tensor_value_info("v_out", kString),
                  unshaped_tensor_value_info("scan", kString)};
  IrGraph g;
  g.inputs = {fixed_tensor_value_info("M", kI64, Shape{}), fixed_tensor_value_info("v0", kString, Shape{1}),
              fixed_tensor_value_info("suffix", kString, Shape{})};
  g.nodes = {with(node("Loop", {"M", "", "v0"}, {"v_final", "scans"}), {graph_attr("body", body)})};
  g.outputs = {unshaped_tensor_value_info("v_final", kString), unshaped_tensor_value_info("scans", kString)};
  const std::vector<Value> out = run_graph(g, 20, {{"M", tensor_value(scalar(3))}, {"v0", tensor_value(strings(Shape{1}, {"x"}))},
                                                   {"suffix", tensor_value(strings(Shape{}, {"-"}))}});
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(texts(out[0].tensor()), (std::vector<std::string>{"x---"}));
  EXPECT_EQ(out[1].tensor().shape(), (Shape{3, 1}));
  EXPECT_EQ(texts(out[1].tensor()), (std::vector<std::string>{"x-", "x--", "x---"}));
}

// Scan (opset 9 on): the state accumulates the scanned STRING elements; the scan output holds
// each new state, reversed when scan_output_directions is 1 (ONNX Scan text; ONNX Runtime 1.31.1
// gives the same).
TEST(StringsMovedControlFlow, ScanAccumulatesStrings) {
  IrGraph body;
  body.name = "body";
  body.inputs = {unshaped_tensor_value_info("state", kString), unshaped_tensor_value_info("x_t", kString)};
  body.nodes = {node("StringConcat", {"state", "x_t"}, {"state_out"}), node("Identity", {"state_out"}, {"scan_out"})};
  body.outputs = {unshaped_tensor_value_info("state_out", kString), unshaped_tensor_value_info("scan_out", kString)};
  IrGraph g;
  g.inputs = {fixed_tensor_value_info("s0", kString, Shape{1}), fixed_tensor_value_info("x", kString, Shape{3})};
  g.nodes = {with(node("Scan", {"s0", "x"}, {"s_final", "ys"}),
                  {graph_attr("body", body), int_attr("num_scan_inputs", 1), ints_attr("scan_output_directions", {1})})};
  g.outputs = {unshaped_tensor_value_info("s_final", kString), unshaped_tensor_value_info("ys", kString)};
  const std::vector<Value> out =
      run_graph(g, 20, {{"s0", tensor_value(strings(Shape{1}, {">"}))}, {"x", tensor_value(strings(Shape{3}, {"a", "b", "c"}))}});
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(texts(out[0].tensor()), (std::vector<std::string>{">abc"}));
  EXPECT_EQ(out[1].tensor().shape(), (Shape{3, 1}));
  EXPECT_EQ(texts(out[1].tensor()), (std::vector<std::string>{">abc", ">ab", ">a"}));
}

}  // namespace
}  // namespace onemodel
