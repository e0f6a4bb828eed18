// Graph resolution (spec/graph-resolution.md). Every expected value below is worked out by hand
// from that page; the models are built in memory, no file is read.
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "core/ir/resolve.hpp"
#include "onemodel/error.hpp"
#include "onemodel/ir.hpp"
#include "tests/support/ir_builder.hpp"

namespace onemodel {
namespace {

using ir_builder::int_attr;

using Names = std::vector<std::string>;
using Indices = std::vector<std::int32_t>;

IrType tensor_type(std::int32_t elem) {
  IrType t;
  t.kind = IrType::Kind::Tensor;
  t.elem_type = elem;
  return t;
}

IrValueInfo info(std::string name, IrType type = {}) {
  IrValueInfo v;
  v.name = std::move(name);
  v.type = std::move(type);
  return v;
}

IrNode node(std::string op, Names inputs, Names outputs, std::string name = {}) {
  IrNode n;
  n.op_type = std::move(op);
  n.inputs = std::move(inputs);
  n.outputs = std::move(outputs);
  n.name = std::move(name);
  return n;
}

IrTensor initializer(std::string name) {
  IrTensor t;
  t.name = std::move(name);
  t.data_type = 1;
  return t;
}

IrAttribute graph_attr(std::string name, IrGraph g) {
  IrAttribute a;
  a.name = std::move(name);
  a.type = AttrType::Graph;
  a.graphs.push_back(std::move(g));
  return a;
}

IrAttribute graphs_attr(std::string name, std::vector<IrGraph> gs) {
  IrAttribute a;
  a.name = std::move(name);
  a.type = AttrType::Graphs;
  a.graphs = std::move(gs);
  return a;
}

IrModel model_of(IrGraph g) {
  IrModel m;
  m.ir_version = 8;
  m.opset_imports.push_back({"", 13});
  m.graph = std::move(g);
  m.source_name = "test.onnx";
  return m;
}

const IrValue& value(const IrGraph& g, const std::string& name) {
  auto it = g.value_index.find(name);
  if (it == g.value_index.end()) throw std::runtime_error("no value " + name);
  return g.values.at(static_cast<std::size_t>(it->second));
}

// Resolves a copy of `m` in `style` and returns the error it must raise.
ModelError error_of(IrModel m, FieldPathStyle style) {
  try {
    resolve_model(m, style);
  } catch (const ModelError& e) {
    return e;
  }
  ADD_FAILURE() << "resolution succeeded but an error was expected";
  return ModelError(ModelErrorKind::Io, "no error");
}

// The error in both styles: kind, both field paths, the input name, no offset, and words of the
// message (the names it must mention).
void expect_invalid(const IrModel& m, const std::string& onnx_path, const std::string& manifest_path,
                    const Names& mentioned) {
  for (FieldPathStyle style : {FieldPathStyle::Onnx, FieldPathStyle::Manifest}) {
    ModelError e = error_of(m, style);
    EXPECT_EQ(e.kind(), ModelErrorKind::InvalidModel) << e.describe();
    EXPECT_EQ(e.field_path(), style == FieldPathStyle::Onnx ? onnx_path : manifest_path);
    EXPECT_EQ(e.input_name(), "test.onnx");
    EXPECT_FALSE(e.offset().has_value());
    for (const std::string& word : mentioned) {
      EXPECT_NE(e.message().find(word), std::string::npos) << e.message() << " lacks " << word;
    }
  }
}

// --- section 1: values --------------------------------------------------------------------------

TEST(GraphResolution, ValuesInOrderInputsInitializersSparseNodeOutputs) {
  IrGraph g;
  g.inputs = {info("x")};
  g.initializers = {initializer("w")};
  IrSparseTensor sp;
  sp.values.name = "s";
  g.sparse_initializers = {sp};
  g.nodes = {node("Add", {"x", "w"}, {"a", ""}), node("Mul", {"a", "s"}, {"b"})};
  g.outputs = {info("b")};
  IrModel m = model_of(g);
  resolve_model(m, FieldPathStyle::Onnx);
  const IrGraph& r = m.graph;
  ASSERT_EQ(r.values.size(), 5u);
  Names names;
  for (const IrValue& v : r.values) names.push_back(v.name);
  EXPECT_EQ(names, (Names{"x", "w", "s", "a", "b"}));
  EXPECT_EQ(r.values[0].source, IrValue::Source::Input);
  EXPECT_EQ(r.values[1].source, IrValue::Source::Initializer);
  EXPECT_EQ(r.values[2].source, IrValue::Source::SparseInitializer);
  EXPECT_EQ(r.values[3].source, IrValue::Source::NodeOutput);
  EXPECT_EQ(r.values[3].index, 0);
  EXPECT_EQ(r.values[3].output_slot, 0);
  EXPECT_EQ(r.values[4].index, 1);
  EXPECT_EQ(r.values[4].output_slot, 0);
  EXPECT_EQ(r.value_index.size(), 5u);
  EXPECT_EQ(r.value_index.at("s"), 2);
  EXPECT_EQ(r.value_index.count(""), 0u);  // the omitted optional output defines nothing
}

TEST(GraphResolution, DuplicateInputIsAnError) {
  IrGraph g;
  g.inputs = {info("x"), info("x")};
  expect_invalid(model_of(g), "ModelProto.graph.input[1]", "manifest.graph.inputs[1]", {"'x'"});
}

TEST(GraphResolution, EmptyInputNameIsAnError) {
  IrGraph g;
  g.inputs = {info("x"), info("")};
  expect_invalid(model_of(g), "ModelProto.graph.input[1]", "manifest.graph.inputs[1]", {});
}

TEST(GraphResolution, InitializerOfAnInputBecomesItsDefault) {
  IrGraph g;
  g.inputs = {info("x", tensor_type(1)), info("y")};
  g.initializers = {initializer("w"), initializer("y")};
  g.nodes = {node("Add", {"x", "y"}, {"a"}), node("Add", {"a", "w"}, {"b"})};
  g.outputs = {info("b")};
  IrModel m = model_of(g);
  resolve_model(m, FieldPathStyle::Onnx);
  const IrGraph& r = m.graph;
  ASSERT_EQ(r.values.size(), 5u);  // x, y, w, a, b: y is not defined a second time
  EXPECT_EQ(value(r, "y").source, IrValue::Source::Input);
  EXPECT_EQ(value(r, "y").index, 1);
  EXPECT_EQ(value(r, "y").default_initializer, 1);
  EXPECT_EQ(value(r, "x").default_initializer, -1);
  EXPECT_EQ(value(r, "w").source, IrValue::Source::Initializer);
  EXPECT_EQ(value(r, "w").index, 0);
  EXPECT_EQ(value(r, "w").default_initializer, -1);
  EXPECT_EQ(r.value_index.at("w"), 2);
}

TEST(GraphResolution, InitializerOfAnInputRepeatedTwiceIsAnError) {
  IrGraph g;
  g.inputs = {info("x")};
  g.initializers = {initializer("x"), initializer("x")};
  expect_invalid(model_of(g), "ModelProto.graph.initializer[1]", "manifest.graph.initializers[1]",
                 {"'x'"});
}

TEST(GraphResolution, InitializerRepeatedTwiceIsAnError) {
  IrGraph g;
  g.inputs = {info("x")};
  g.initializers = {initializer("w"), initializer("v"), initializer("w")};
  expect_invalid(model_of(g), "ModelProto.graph.initializer[2]", "manifest.graph.initializers[2]",
                 {"'w'"});
}

TEST(GraphResolution, SparseInitializerRepeatingANameIsAnError) {
  IrGraph g;
  g.initializers = {initializer("w")};
  IrSparseTensor sp;
  sp.values.name = "w";
  g.sparse_initializers = {sp};
  expect_invalid(model_of(g), "ModelProto.graph.sparse_initializer[0]",
                 "manifest.graph.sparse_initializers[0]", {"'w'"});
}

TEST(GraphResolution, DuplicateNodeOutputIsAnError) {
  IrGraph g;
  g.inputs = {info("x")};
  g.nodes = {node("Relu", {"x"}, {"y"}, "first"), node("Split", {"x"}, {"z", "y"}, "second")};
  expect_invalid(model_of(g), "ModelProto.graph.node[1].output[1]", "manifest.graph.nodes[1].outputs[1]",
                 {"'second'", "'y'"});
}

TEST(GraphResolution, NodeOutputRepeatingAnInputIsAnError) {
  IrGraph g;
  g.inputs = {info("x")};
  g.nodes = {node("Relu", {"x"}, {"x"})};
  expect_invalid(model_of(g), "ModelProto.graph.node[0].output[0]", "manifest.graph.nodes[0].outputs[0]",
                 {"'x'"});
}

// --- section 3: references ----------------------------------------------------------------------

TEST(GraphResolution, UndefinedNodeInputNamesNodeAndField) {
  IrGraph g;
  g.inputs = {info("x")};
  g.nodes = {node("Relu", {"x"}, {"a"}, "r"), node("Add", {"a", "missing"}, {"b"}, "adder")};
  g.outputs = {info("b")};
  expect_invalid(model_of(g), "ModelProto.graph.node[1].input[1]", "manifest.graph.nodes[1].inputs[1]",
                 {"'adder'", "'missing'"});
}

TEST(GraphResolution, UnnamedNodeIsNamedByIndexAndOperator) {
  IrGraph g;
  g.nodes = {node("Relu", {"nothing"}, {"a"})};
  expect_invalid(model_of(g), "ModelProto.graph.node[0].input[0]", "manifest.graph.nodes[0].inputs[0]",
                 {"#0", "Relu", "'nothing'"});
}

TEST(GraphResolution, UndefinedGraphOutputIsAnError) {
  IrGraph g;
  g.inputs = {info("x")};
  g.nodes = {node("Relu", {"x"}, {"y"})};
  g.outputs = {info("y"), info("z")};
  expect_invalid(model_of(g), "ModelProto.graph.output[1]", "manifest.graph.outputs[1]", {"'z'"});
}

TEST(GraphResolution, OmittedOptionalInputsAreNotReads) {
  IrGraph g;
  g.inputs = {info("x")};
  g.nodes = {node("Clip", {"x", "", ""}, {"y"})};
  g.outputs = {info("y")};
  IrModel m = model_of(g);
  ASSERT_NO_THROW(resolve_model(m, FieldPathStyle::Onnx));
  EXPECT_EQ(value(m.graph, "x").consumers, (Indices{0}));
}

// --- section 4: opsets --------------------------------------------------------------------------

TEST(GraphResolution, NodeOpsetIsTheImportedVersionOfItsDomain) {
  IrGraph g;
  g.inputs = {info("x")};
  g.nodes = {node("Relu", {"x"}, {"a"}), node("Gelu", {"a"}, {"b"}), node("Relu", {"b"}, {"c"})};
  g.nodes[1].domain = "com.microsoft";
  g.nodes[2].domain = "ai.onnx";
  g.outputs = {info("c")};
  IrModel m = model_of(g);
  m.opset_imports = {{"com.microsoft", 1}, {"", 17}};
  resolve_model(m, FieldPathStyle::Onnx);
  EXPECT_EQ(m.graph.nodes[0].opset, 17);
  EXPECT_EQ(m.graph.nodes[1].opset, 1);
  EXPECT_EQ(m.graph.nodes[2].opset, 17);  // "ai.onnx" is the default domain
}

TEST(GraphResolution, AiOnnxImportServesTheEmptyDomain) {
  IrGraph g;
  g.inputs = {info("x")};
  g.nodes = {node("Relu", {"x"}, {"a"})};
  g.outputs = {info("a")};
  IrModel m = model_of(g);
  m.opset_imports = {{"ai.onnx", 11}};
  resolve_model(m, FieldPathStyle::Onnx);
  EXPECT_EQ(m.graph.nodes[0].opset, 11);
}

TEST(GraphResolution, DomainNotImportedIsAnError) {
  IrGraph g;
  g.inputs = {info("x")};
  g.nodes = {node("Relu", {"x"}, {"a"}), node("Gelu", {"a"}, {"b"}, "gelu")};
  g.nodes[1].domain = "com.microsoft";
  g.outputs = {info("b")};
  expect_invalid(model_of(g), "ModelProto.graph.node[1].domain", "manifest.graph.nodes[1].domain",
                 {"'gelu'", "com.microsoft"});
}

TEST(GraphResolution, FunctionBodiesAreNotResolved) {
  IrGraph g;
  g.inputs = {info("x")};
  g.nodes = {node("Relu", {"x"}, {"a"})};
  g.outputs = {info("a")};
  IrModel m = model_of(g);
  IrFunction f;
  f.name = "F";
  f.domain = "custom";
  f.nodes = {node("Nothing", {"undefined"}, {"a"}), node("Again", {"a"}, {"a"})};
  f.nodes[0].domain = "not.imported";
  m.functions.push_back(f);
  ASSERT_NO_THROW(resolve_model(m, FieldPathStyle::Onnx));
  EXPECT_EQ(m.functions[0].nodes[0].opset, 0);
}

// --- section 5: order ---------------------------------------------------------------------------

TEST(GraphResolution, CycleIsAnErrorNamingANodeOnIt) {
  // n0 reads the cycle's output but is not on it; the cycle is n1 -> n2 -> n1.
  IrGraph g;
  g.inputs = {info("x")};
  g.nodes = {node("Relu", {"c"}, {"d"}, "after"), node("Add", {"x", "c"}, {"b"}, "loop_a"),
             node("Relu", {"b"}, {"c"}, "loop_b")};
  g.outputs = {info("d")};
  expect_invalid(model_of(g), "ModelProto.graph.node[1]", "manifest.graph.nodes[1]", {"'loop_a'"});
}

TEST(GraphResolution, SelfLoopIsAnError) {
  IrGraph g;
  g.inputs = {info("x")};
  g.nodes = {node("Relu", {"x"}, {"a"}), node("Add", {"a", "y"}, {"y"}, "self")};
  g.outputs = {info("y")};
  expect_invalid(model_of(g), "ModelProto.graph.node[1]", "manifest.graph.nodes[1]", {"'self'"});
}

TEST(GraphResolution, UnorderedGraphTakesSmallestReadyFileIndexFirst) {
  // Ready at first: n2, n3. Take n2 (b): n4 becomes ready. Take n3 (c): n1 ready. Ready {1, 4}:
  // take n1 (a): n0 ready. Ready {0, 4}: n0, then n4.
  IrGraph g;
  g.inputs = {info("x")};
  g.nodes = {node("Add", {"a", "b"}, {"out"}), node("Add", {"c", "x"}, {"a"}),
             node("Relu", {"x"}, {"b"}), node("Relu", {"x"}, {"c"}), node("Relu", {"b"}, {"e"})};
  g.outputs = {info("out"), info("e")};
  IrModel m = model_of(g);
  resolve_model(m, FieldPathStyle::Onnx);
  EXPECT_EQ(m.graph.order, (Indices{2, 3, 1, 0, 4}));
  EXPECT_TRUE(m.graph.nodes_were_reordered);
  // Consumers are listed in execution order: x is read by n1, n2, n3, executed as 2, 3, 1.
  EXPECT_EQ(value(m.graph, "x").consumers, (Indices{2, 3, 1}));
  EXPECT_EQ(value(m.graph, "b").consumers, (Indices{0, 4}));
  EXPECT_EQ(value(m.graph, "a").consumers, (Indices{0}));
  EXPECT_EQ(value(m.graph, "out").consumers, (Indices{}));
}

TEST(GraphResolution, SortedGraphIsKept) {
  IrGraph g;
  g.inputs = {info("x")};
  g.initializers = {initializer("w")};
  g.nodes = {node("Relu", {"w"}, {"c"}), node("Relu", {"x"}, {"a"}), node("Add", {"a", "c"}, {"b"}),
             node("Mul", {"b", "x"}, {"d"})};
  g.outputs = {info("d")};
  IrModel m = model_of(g);
  resolve_model(m, FieldPathStyle::Onnx);
  EXPECT_EQ(m.graph.order, (Indices{0, 1, 2, 3}));
  EXPECT_FALSE(m.graph.nodes_were_reordered);
}

TEST(GraphResolution, ReversedChainOf100kNodesIsSorted) {
  // Value v[k + 1] = Relu(v[k]); the node for step k sits at file index n - 1 - k.
  const std::int32_t n = 100000;
  IrGraph g;
  g.inputs = {info("v0")};
  g.nodes.reserve(n);
  for (std::int32_t i = 0; i < n; ++i) {
    const std::int32_t k = n - 1 - i;
    g.nodes.push_back(node("Relu", {"v" + std::to_string(k)}, {"v" + std::to_string(k + 1)}));
  }
  g.outputs = {info("v" + std::to_string(n))};
  IrModel m = model_of(std::move(g));
  resolve_model(m, FieldPathStyle::Onnx);
  ASSERT_EQ(m.graph.order.size(), static_cast<std::size_t>(n));
  for (std::int32_t p = 0; p < n; ++p) ASSERT_EQ(m.graph.order[p], n - 1 - p) << "position " << p;
  EXPECT_TRUE(m.graph.nodes_were_reordered);
  EXPECT_EQ(value(m.graph, "v0").consumers, (Indices{n - 1}));
  EXPECT_EQ(value(m.graph, "v12345").consumers, (Indices{n - 1 - 12345}));
}

// --- section 7: consumers -----------------------------------------------------------------------

TEST(GraphResolution, ConsumersListEachReaderOnce) {
  IrGraph g;
  g.inputs = {info("x")};
  g.nodes = {node("Add", {"x", "x"}, {"a"}), node("Mul", {"a", "x", "a"}, {"b"})};
  g.outputs = {info("b"), info("x")};
  IrModel m = model_of(g);
  resolve_model(m, FieldPathStyle::Onnx);
  EXPECT_EQ(value(m.graph, "x").consumers, (Indices{0, 1}));
  EXPECT_EQ(value(m.graph, "a").consumers, (Indices{1}));
  EXPECT_EQ(value(m.graph, "b").consumers, (Indices{}));  // graph outputs are not node readers
}

// --- section 6: types ---------------------------------------------------------------------------

TEST(GraphResolution, TypesFromDeclarationsThenValueInfo) {
  IrType float_2 = tensor_type(1);
  float_2.has_shape = true;
  float_2.shape.resize(1);
  float_2.shape[0].kind = IrDim::Kind::Value;
  float_2.shape[0].value = 2;
  IrGraph g;
  g.inputs = {info("x", float_2), info("z")};
  g.nodes = {node("Relu", {"x"}, {"a"}), node("Relu", {"a"}, {"b"}), node("Relu", {"b"}, {"c"}),
             node("Relu", {"z"}, {"u"})};
  g.outputs = {info("b", tensor_type(7)), info("c"), info("u")};
  g.value_info = {info("a", tensor_type(10)), info("x", tensor_type(6)), info("ghost", tensor_type(9)),
                  info("b", tensor_type(11)), info("c", tensor_type(11)), info("z", tensor_type(6)),
                  info("c", tensor_type(3))};
  IrModel m = model_of(g);
  ASSERT_NO_THROW(resolve_model(m, FieldPathStyle::Onnx));  // "ghost" is ignored
  const IrGraph& r = m.graph;
  EXPECT_EQ(value(r, "x").type.kind, IrType::Kind::Tensor);
  EXPECT_EQ(value(r, "x").type.elem_type, 1);  // the input declaration, not value_info's 6
  ASSERT_TRUE(value(r, "x").type.has_shape);
  ASSERT_EQ(value(r, "x").type.shape.size(), 1u);
  EXPECT_EQ(value(r, "x").type.shape[0].value, 2);
  EXPECT_EQ(value(r, "a").type.elem_type, 10);  // value_info
  EXPECT_EQ(value(r, "b").type.elem_type, 7);   // the output declaration, not value_info's 11
  EXPECT_EQ(value(r, "c").type.elem_type, 11);  // untyped output: the first value_info
  EXPECT_EQ(value(r, "z").type.elem_type, 6);   // untyped input: value_info
  EXPECT_EQ(value(r, "u").type.kind, IrType::Kind::None);  // declared nowhere
  EXPECT_EQ(r.value_index.count("ghost"), 0u);
}

// --- section 2: subgraphs -----------------------------------------------------------------------

// main:  inputs x, y, cond
//   n0 Relu(x) -> a
//   n1 If(cond) -> r    then_branch = g1 (attribute 0), else_branch = g_else (attribute 1)
//   n2 Relu(r) -> out
//   n3 Relu(x) -> late
// g1:    input a (shadows main's a)
//   m0 Add(a, x) -> s
//   m1 Loop(s) -> t     attribute 0: Int, attribute 1: Graphs [g_empty, g2]
//   output t
// g2:
//   k0 Mul(s, y) -> u
//   k1 Sum(u, a, late) -> v
//   output v
// g_else: output y (a graph output reading an outer value)
IrModel nested_model() {
  IrGraph g2;
  g2.nodes = {node("Mul", {"s", "y"}, {"u"}), node("Sum", {"u", "a", "late"}, {"v"})};
  g2.outputs = {info("v")};
  IrGraph g_empty;
  IrGraph g1;
  g1.inputs = {info("a")};
  g1.nodes = {node("Add", {"a", "x"}, {"s"}), node("Loop", {"s"}, {"t"})};
  g1.nodes[1].attributes = {int_attr("unused", 1), graphs_attr("bodies", {g_empty, g2})};
  g1.outputs = {info("t")};
  IrGraph g_else;
  g_else.outputs = {info("y")};
  IrGraph main;
  main.inputs = {info("x"), info("y"), info("cond")};
  main.nodes = {node("Relu", {"x"}, {"a"}), node("If", {"cond"}, {"r"}), node("Relu", {"r"}, {"out"}),
                node("Relu", {"x"}, {"late"})};
  main.nodes[1].attributes = {graph_attr("then_branch", g1), graph_attr("else_branch", g_else)};
  main.outputs = {info("out")};
  return model_of(std::move(main));
}

TEST(GraphResolution, SubgraphsSeeOuterValuesAndListCaptures) {
  IrModel m = nested_model();
  resolve_model(m, FieldPathStyle::Onnx);
  const IrGraph& main = m.graph;
  const IrGraph& g1 = main.nodes[1].attributes[0].graphs[0];
  const IrGraph& g_else = main.nodes[1].attributes[1].graphs[0];
  const IrGraph& g_empty = g1.nodes[1].attributes[1].graphs[0];
  const IrGraph& g2 = g1.nodes[1].attributes[1].graphs[1];

  EXPECT_EQ(g2.captures, (Names{"s", "y", "a", "late"}));
  EXPECT_EQ(g1.captures, (Names{"x", "y", "late"}));  // s and a are g1's own
  EXPECT_EQ(g_else.captures, (Names{"y"}));
  EXPECT_EQ(g_empty.captures, (Names{}));
  EXPECT_EQ(main.captures, (Names{}));

  // n1 reads late (through g1 and g2), which n3 produces: n1 moves after n3.
  EXPECT_EQ(main.order, (Indices{0, 3, 1, 2}));
  EXPECT_TRUE(main.nodes_were_reordered);
  EXPECT_EQ(g1.order, (Indices{0, 1}));
  EXPECT_FALSE(g1.nodes_were_reordered);
  EXPECT_EQ(g2.order, (Indices{0, 1}));

  // A node reads what its subgraphs read; consumers follow the order 0, 3, 1, 2.
  EXPECT_EQ(value(main, "x").consumers, (Indices{0, 3, 1}));
  EXPECT_EQ(value(main, "y").consumers, (Indices{1}));
  EXPECT_EQ(value(main, "late").consumers, (Indices{1}));
  EXPECT_EQ(value(main, "cond").consumers, (Indices{1}));
  EXPECT_EQ(value(main, "a").consumers, (Indices{}));  // g1's input a shadows it
  EXPECT_EQ(value(main, "r").consumers, (Indices{2}));
  EXPECT_EQ(value(g1, "a").consumers, (Indices{0, 1}));  // m0 directly, m1 through g2
  EXPECT_EQ(value(g1, "s").consumers, (Indices{1}));     // m1 directly and through g2: once
  EXPECT_EQ(value(g1, "a").source, IrValue::Source::Input);
  EXPECT_EQ(g1.value_index.count("x"), 0u);  // outer values are not values of the subgraph
  EXPECT_EQ(value(g2, "u").consumers, (Indices{1}));

  EXPECT_EQ(g2.nodes[0].opset, 13);  // subgraph nodes use the model's imports
  EXPECT_EQ(g2.nodes[1].opset, 13);
  EXPECT_EQ(g1.nodes[1].opset, 13);
}

TEST(GraphResolution, UndefinedReadInNestedSubgraphHasTheNestedPath) {
  IrModel m = nested_model();
  IrGraph& g2 = m.graph.nodes[1].attributes[0].graphs[0].nodes[1].attributes[1].graphs[1];
  g2.nodes[1].inputs[2] = "nowhere";
  g2.nodes[1].name = "summer";
  expect_invalid(m, "ModelProto.graph.node[1].attribute[0].g.node[1].attribute[1].graphs[1].node[1].input[2]",
                 "manifest.graph.nodes[1].attributes[0].value.nodes[1].attributes[1].value[1].nodes[1].inputs[2]",
                 {"'summer'", "'nowhere'"});
}

TEST(GraphResolution, UndefinedOutputOfSubgraphHasTheNestedPath) {
  IrModel m = nested_model();
  m.graph.nodes[1].attributes[1].graphs[0].outputs = {info("y"), info("nothing")};
  expect_invalid(m, "ModelProto.graph.node[1].attribute[1].g.output[1]",
                 "manifest.graph.nodes[1].attributes[1].value.outputs[1]", {"'nothing'"});
}

TEST(GraphResolution, MissingDomainInSubgraphIsAnError) {
  IrModel m = nested_model();
  IrGraph& g2 = m.graph.nodes[1].attributes[0].graphs[0].nodes[1].attributes[1].graphs[1];
  g2.nodes[0].domain = "com.example";
  expect_invalid(m, "ModelProto.graph.node[1].attribute[0].g.node[1].attribute[1].graphs[1].node[0].domain",
                 "manifest.graph.nodes[1].attributes[0].value.nodes[1].attributes[1].value[1].nodes[0].domain",
                 {"com.example"});
}

TEST(GraphResolution, SubgraphValuesAreNotVisibleOutside) {
  IrModel m = nested_model();
  m.graph.nodes[2].inputs = {"s"};  // s is defined only inside g1
  expect_invalid(m, "ModelProto.graph.node[2].input[0]", "manifest.graph.nodes[2].inputs[0]", {"'s'"});
}

TEST(GraphResolution, SubgraphMayRedefineOuterNamesButNotItsOwn) {
  IrModel m = nested_model();
  IrGraph& g1 = m.graph.nodes[1].attributes[0].graphs[0];
  g1.nodes[0].outputs = {"late"};  // shadows main's late: allowed
  g1.nodes[1].inputs = {"late"};
  g1.nodes[1].attributes[1].graphs[1].nodes[0].inputs = {"late", "y"};
  IrModel ok = m;
  resolve_model(ok, FieldPathStyle::Onnx);
  const IrGraph& g1r = ok.graph.nodes[1].attributes[0].graphs[0];
  EXPECT_EQ(g1r.captures, (Names{"x", "y"}));  // g2's late is g1's own now
  EXPECT_EQ(ok.graph.order, (Indices{0, 1, 2, 3}));  // n1 no longer waits for n3
  EXPECT_FALSE(ok.graph.nodes_were_reordered);

  g1.nodes[1].outputs = {"late"};  // a second definition inside g1
  expect_invalid(m, "ModelProto.graph.node[1].attribute[0].g.node[1].output[0]",
                 "manifest.graph.nodes[1].attributes[0].value.nodes[1].outputs[0]", {"'late'"});
}

TEST(GraphResolution, NodeReadingItsOwnOutputThroughASubgraphIsACycle) {
  IrGraph body;
  body.nodes = {node("Relu", {"r"}, {"q"})};
  body.outputs = {info("q")};
  IrGraph g;
  g.inputs = {info("cond")};
  g.nodes = {node("If", {"cond"}, {"r"}, "if")};
  g.nodes[0].attributes = {graph_attr("then_branch", body)};
  g.outputs = {info("r")};
  expect_invalid(model_of(g), "ModelProto.graph.node[0]", "manifest.graph.nodes[0]", {"'if'"});
}

TEST(GraphResolution, GraphNested250LevelsDeep) {
  // Level 0 is the main graph, levels 1 to 250 are subgraphs; each level's only node holds the
  // next level, and the node of level 250 reads the main input x.
  const int depth = 250;
  IrGraph inner;
  inner.nodes = {node("Relu", {"x"}, {"y"})};
  inner.outputs = {info("y")};
  for (int level = depth - 1; level >= 1; --level) {
    IrGraph outer;
    outer.nodes = {node("Wrap", {}, {"y"})};
    outer.nodes[0].attributes.push_back(graph_attr("body", std::move(inner)));  // no deep copy
    outer.outputs = {info("y")};
    inner = std::move(outer);
  }
  IrGraph main;
  main.inputs = {info("x")};
  main.nodes = {node("Wrap", {}, {"y"})};
  main.nodes[0].attributes.push_back(graph_attr("body", std::move(inner)));
  main.outputs = {info("y")};
  IrModel m = model_of(std::move(main));
  resolve_model(m, FieldPathStyle::Onnx);
  EXPECT_EQ(value(m.graph, "x").consumers, (Indices{0}));
  const IrGraph* g = &m.graph.nodes[0].attributes[0].graphs[0];
  int levels = 1;
  while (true) {
    EXPECT_EQ(g->captures, (Names{"x"})) << "level " << levels;
    EXPECT_EQ(g->nodes[0].opset, 13);
    if (g->nodes[0].attributes.empty()) break;
    g = &g->nodes[0].attributes[0].graphs[0];
    ++levels;
  }
  EXPECT_EQ(levels, depth);
}

TEST(GraphResolution, ErrorAt250LevelsHasTheFullPath) {
  const int depth = 250;
  IrGraph inner;
  inner.nodes = {node("Relu", {"undefined"}, {"y"})};
  for (int level = depth - 1; level >= 1; --level) {
    IrGraph outer;
    outer.nodes = {node("Wrap", {}, {"y"})};
    outer.nodes[0].attributes.push_back(graph_attr("body", std::move(inner)));  // no deep copy
    inner = std::move(outer);
  }
  IrGraph main;
  main.nodes = {node("Wrap", {}, {"y"})};
  main.nodes[0].attributes.push_back(graph_attr("body", std::move(inner)));
  std::string path = "ModelProto.graph";
  for (int level = 1; level <= depth; ++level) path += ".node[0].attribute[0].g";
  path += ".node[0].input[0]";
  ModelError e = error_of(model_of(std::move(main)), FieldPathStyle::Onnx);
  EXPECT_EQ(e.field_path(), path);
}

}  // namespace
}  // namespace onemodel
