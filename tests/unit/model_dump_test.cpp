// The structural dump (spec/dump.md) of a hand-built IrModel that touches every construct the dump
// writes. The expected text was produced by tools/onnx_dump.py (the `onnx` package) from the same
// model built with onnx.helper, so it was not obtained from this code.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "onemodel/model_dump.hpp"
#include "tests/support/ir_builder.hpp"

namespace onemodel {
namespace {

using ir_builder::fixed_dim;
using ir_builder::named_dim;

template <typename T>
ByteView le_bytes(const std::vector<T>& values) {
  // This machine is little-endian (x86-64, aarch64), so the memory layout is the raw layout.
  auto buffer = std::make_shared<std::vector<std::byte>>(values.size() * sizeof(T));
  if (!values.empty()) std::memcpy(buffer->data(), values.data(), buffer->size());
  return ByteView{buffer->data(), buffer->size(), buffer};
}

IrTensor tensor(std::string name, std::int32_t dtype, std::vector<std::int64_t> dims, ByteView data) {
  IrTensor t;
  t.name = std::move(name);
  t.data_type = dtype;
  t.dims = std::move(dims);
  t.data = std::move(data);
  return t;
}

IrType tensor_type(std::int32_t elem, bool has_shape, std::vector<IrDim> shape = {}) {
  IrType t;
  t.kind = IrType::Kind::Tensor;
  t.elem_type = elem;
  t.has_shape = has_shape;
  t.shape = std::move(shape);
  return t;
}

IrValueInfo value(std::string name, IrType type) { return IrValueInfo{std::move(name), std::move(type), {}}; }

IrNode node(std::string name, std::string op, std::vector<std::string> inputs, std::vector<std::string> outputs) {
  IrNode n;
  n.name = std::move(name);
  n.op_type = std::move(op);
  n.inputs = std::move(inputs);
  n.outputs = std::move(outputs);
  return n;
}

IrAttribute attr(std::string name, AttrType type) {
  IrAttribute a;
  a.name = std::move(name);
  a.type = type;
  return a;
}

IrGraph then_graph() {
  IrGraph g;
  g.name = "then";
  g.outputs.push_back(value("t_out", tensor_type(1, false)));
  g.nodes.push_back(node("", "Identity", {"x"}, {"t_out"}));
  return g;
}

IrSparseTensor sparse() {
  IrSparseTensor sp;
  sp.values = tensor("spv", 1, {2}, le_bytes(std::vector<float>{3.0f, 4.0f}));
  sp.indices = tensor("spi", 7, {2}, le_bytes(std::vector<std::int64_t>{1, 5}));
  sp.dims = {2, 3};
  return sp;
}

IrModel build_model() {
  IrModel m;
  m.ir_version = 10;
  m.producer_name = "tester \"q\"\\";
  m.producer_version = "1.0";
  m.domain = "ai.example";
  m.model_version = 42;
  m.doc_string = "model doc";
  m.opset_imports = {{"", 21}, {"com.example", 1}};
  m.metadata_props = {{"k\xc3\xa9y", "line\nbreak"}};
  IrGraph& g = m.graph;
  g.name = "main";
  g.doc_string = "graph doc";
  g.inputs.push_back(value("x", tensor_type(1, true, {named_dim("batch"), fixed_dim(4), IrDim{}})));
  g.inputs[0].doc_string = "input doc";
  IrType seq;
  seq.kind = IrType::Kind::Sequence;
  seq.inner.push_back(tensor_type(7, false));
  g.inputs.push_back(value("seq", seq));
  IrType map;
  map.kind = IrType::Kind::Map;
  map.elem_type = 8;
  map.inner.push_back(tensor_type(1, true));
  IrType opt;
  opt.kind = IrType::Kind::Optional;
  opt.inner.push_back(map);
  g.inputs.push_back(value("opt", opt));
  g.outputs.push_back(value("y", tensor_type(1, false)));
  g.outputs.push_back(value("z", IrType{}));
  IrType opaque;
  opaque.kind = IrType::Kind::Opaque;
  opaque.opaque_domain = "d";
  opaque.opaque_name = "n";
  g.value_info.push_back(value("h", opaque));
  IrType sparse_type;
  sparse_type.kind = IrType::Kind::SparseTensor;
  sparse_type.elem_type = 10;
  g.value_info.push_back(value("sp", sparse_type));

  g.initializers.push_back(tensor("w", 1, {2, 2},
      le_bytes(std::vector<float>{1.0f, -0.0f, std::numeric_limits<float>::infinity(), 0.5f})));
  g.initializers[0].doc_string = "weights";
  IrTensor names = tensor("names", 8, {2}, {});
  names.strings = {"ab", std::string("\x00\xff", 2)};
  g.initializers.push_back(names);
  g.initializers.push_back(tensor("b", 9, {3}, le_bytes(std::vector<std::uint8_t>{1, 0, 1})));
  g.initializers.push_back(tensor("r", 7, {}, le_bytes(std::vector<std::int64_t>{-7})));
  g.sparse_initializers.push_back(sparse());

  IrGraph else_graph;
  else_graph.name = "else";
  else_graph.outputs.push_back(value("e_out", tensor_type(1, true)));
  else_graph.nodes.push_back(node("neg", "Neg", {"x"}, {"e_out"}));
  IrNode if_node = node("if0", "If", {"c"}, {"y"});
  if_node.doc_string = "node doc";
  IrAttribute else_attr = attr("else_branch", AttrType::Graph);
  else_attr.graphs.push_back(else_graph);
  IrAttribute then_attr = attr("then_branch", AttrType::Graph);
  then_attr.graphs.push_back(then_graph());
  if_node.attributes = {else_attr, then_attr};
  g.nodes.push_back(if_node);

  IrNode custom = node("c\tq", "Custom", {"x", "", "w"}, {"z", ""});
  custom.domain = "com.example";
  custom.overload = "ov";
  IrAttribute a = attr("alpha", AttrType::Float);
  a.f = 0.1f;
  custom.attributes.push_back(a);
  a = attr("count", AttrType::Int);
  a.i = -3;
  custom.attributes.push_back(a);
  a = attr("fl", AttrType::Floats);
  a.floats = {1.5f, std::bit_cast<float>(std::uint32_t{0x7fc00000})};
  custom.attributes.push_back(a);
  a = attr("gs", AttrType::Graphs);
  a.graphs.push_back(then_graph());
  custom.attributes.push_back(a);
  a = attr("il", AttrType::Ints);
  a.ints = {1, -2};
  custom.attributes.push_back(a);
  a = attr("mode", AttrType::String);
  a.s = "\x01" "a\"";
  custom.attributes.push_back(a);
  a = attr("sl", AttrType::Strings);
  a.strings = {"a", "b"};
  custom.attributes.push_back(a);
  a = attr("t", AttrType::Tensor);
  a.tensors.push_back(tensor("tv", 6, {2}, le_bytes(std::vector<std::int32_t>{1, -1})));
  custom.attributes.push_back(a);
  a = attr("ts", AttrType::Tensors);
  a.tensors.push_back(tensor("t1", 2, {1}, le_bytes(std::vector<std::uint8_t>{200})));
  a.tensors.push_back(tensor("t2", 10, {1}, le_bytes(std::vector<std::uint16_t>{0x3c00})));
  custom.attributes.push_back(a);
  a = attr("tp", AttrType::TypeProto);
  a.type_protos.push_back(tensor_type(6, false));
  custom.attributes.push_back(a);
  a = attr("tps", AttrType::TypeProtos);
  IrType empty_seq;
  empty_seq.kind = IrType::Kind::Sequence;
  a.type_protos.push_back(empty_seq);
  custom.attributes.push_back(a);
  a = attr("spt", AttrType::SparseTensor);
  a.sparse_tensors.push_back(sparse());
  custom.attributes.push_back(a);
  a = attr("untyped", AttrType::Int);
  a.i = 9;
  a.doc_string = "attr doc";
  custom.attributes.push_back(a);
  g.nodes.push_back(custom);

  IrFunction fn;
  fn.name = "Fn";
  fn.domain = "com.example";
  fn.overload = "o1";
  fn.doc_string = "fn doc";
  fn.inputs = {"a"};
  fn.outputs = {"b"};
  fn.attribute_names = {"alpha"};
  IrAttribute beta = attr("beta", AttrType::Float);
  beta.f = 2.0f;
  fn.attribute_defaults.push_back(beta);
  fn.opset_imports = {{"", 18}};
  IrNode leaky = node("", "LeakyRelu", {"a"}, {"b"});
  IrAttribute ref = attr("alpha", AttrType::Float);
  ref.ref_attr_name = "alpha";
  leaky.attributes.push_back(ref);
  fn.nodes.push_back(leaky);
  m.functions.push_back(fn);
  return m;
}

constexpr const char* kExpected = R"dump(onemodel-dump 1
ir_version 10
producer_name "tester \"q\"\\"
producer_version "1.0"
domain "ai.example"
model_version 42
doc_string 9 4b9133891934bcdb528f9a0d1f5aaa935cd315e23d06f1c546b1a328ce034e0f
opset_import "" 21
opset_import "com.example" 1
metadata_prop "k\xc3\xa9y" "line\x0abreak"
graph "main"
  doc_string 9 812a67ceb4fcd69a97ce2f9206252c25e656c1ad6418fb0309886554437338ac
  input 0 "x" tensor(1,["batch",4,?]) doc_string=9:da89ffbdbfe655259a60c84b19f3d02ac8f9394381ae5e9b913ad3bd48034b74
  input 1 "seq" sequence(tensor(7,*))
  input 2 "opt" optional(map(8,tensor(1,[])))
  output 0 "y" tensor(1,*)
  output 1 "z" none
  value_info 0 "h" opaque("d","n")
  value_info 1 "sp" sparse_tensor(10,*)
  initializer 0 "w" dtype=1 dims=[2,2] bytes=16 sha256=7fd239ca4f85d5ad34242c799d22c17219307e7bc2011dc5df9afd2e59994373 doc_string=7:9a129038d9a00aed0cf6a7ea059ca50a813449061ab87848cf1a13eafdf33b2c
  initializer 1 "names" dtype=8 dims=[2] bytes=20 sha256=c6d54d761a32662c9511c05219c21e82712083a3ff2ef281aef314639b929eee
  initializer 2 "b" dtype=9 dims=[3] bytes=3 sha256=85f90dfea1d8027e1463e5ca971a250110a20df0119d204a74220bc63516d15b
  initializer 3 "r" dtype=7 dims=[] bytes=8 sha256=9db26f8ea010babf6afb228a7b257afe54c28f98cd0b246a2f16dc14d16336d7
  sparse_initializer 0 dims=[2,3]
    values "spv" dtype=1 dims=[2] bytes=8 sha256=986c627ee6ef1bcc3d746256a7045624ceeb44c4ed557ca055b2d43933de3489
    indices "spi" dtype=7 dims=[2] bytes=16 sha256=e716a168cd65de1488a49d997610a642f97d64f655d2ca95d15c89ae0b4dc358
  node 0 "if0" "If" domain="" overload=""
    inputs "c"
    outputs "y"
    doc_string 8 1dda6597d3b801ea7e4f6b796f310d3335bb89ffd70b74b28589c5508c5c2bb8
    attribute 0 "else_branch" 5 GRAPH
      graph 0 "else"
        output 0 "e_out" tensor(1,[])
        node 0 "neg" "Neg" domain="" overload=""
          inputs "x"
          outputs "e_out"
    attribute 1 "then_branch" 5 GRAPH
      graph 0 "then"
        output 0 "t_out" tensor(1,*)
        node 0 "" "Identity" domain="" overload=""
          inputs "x"
          outputs "t_out"
  node 1 "c\x09q" "Custom" domain="com.example" overload="ov"
    inputs "x" "" "w"
    outputs "z" ""
    attribute 0 "alpha" 1 FLOAT f=3dcccccd
    attribute 1 "count" 2 INT i=-3
    attribute 2 "fl" 6 FLOATS floats=[3fc00000,7fc00000]
    attribute 3 "gs" 10 GRAPHS count=1
      graph 0 "then"
        output 0 "t_out" tensor(1,*)
        node 0 "" "Identity" domain="" overload=""
          inputs "x"
          outputs "t_out"
    attribute 4 "il" 7 INTS ints=[1,-2]
    attribute 5 "mode" 3 STRING s="\x01a\""
    attribute 6 "sl" 8 STRINGS strings=["a","b"]
    attribute 7 "t" 4 TENSOR
      tensor 0 "tv" dtype=6 dims=[2] bytes=8 sha256=b15348c8f462384c01e83b6d499c6faf3f96808f5aa07c6bab4b65b36b4445d4
    attribute 8 "ts" 9 TENSORS count=2
      tensor 0 "t1" dtype=2 dims=[1] bytes=1 sha256=7c5bd2d144fdde498406edcb9fe60ce65b0dfa5f2dd7a7617f505e3d46d68bdb
      tensor 1 "t2" dtype=10 dims=[1] bytes=2 sha256=505114fe537172ea35e17ca1a7516edac516a89b31f983f7c6387d5d2bb462aa
    attribute 9 "tp" 13 TYPE_PROTO tp=tensor(6,*)
    attribute 10 "tps" 14 TYPE_PROTOS type_protos=[sequence(none)]
    attribute 11 "spt" 11 SPARSE_TENSOR
      sparse_tensor 0 dims=[2,3]
        values "spv" dtype=1 dims=[2] bytes=8 sha256=986c627ee6ef1bcc3d746256a7045624ceeb44c4ed557ca055b2d43933de3489
        indices "spi" dtype=7 dims=[2] bytes=16 sha256=e716a168cd65de1488a49d997610a642f97d64f655d2ca95d15c89ae0b4dc358
    attribute 12 "untyped" 2 INT i=9
      doc_string 8 a34a67999a8157ee82ac657ddea9951c0a0ac886fedfd07e3475a9418ddebb6a
function 0 "Fn" domain="com.example" overload="o1"
  doc_string 6 e95e869c6f5c1533eb3d4399e6bd430979330879e4b780282c5f43b6b123b389
  inputs "a"
  outputs "b"
  attribute_names "alpha"
  attribute_default 0 "beta" 1 FLOAT f=40000000
  opset_import "" 18
  node 0 "" "LeakyRelu" domain="" overload=""
    inputs "a"
    outputs "b"
    attribute 0 "alpha" 1 FLOAT ref="alpha"
)dump";

TEST(ModelDump, MatchesTheOnnxPackageDumpOfTheSameModel) {
  EXPECT_EQ(dump_model(build_model()), kExpected);
}

TEST(ModelDump, EmptyModelHasHeaderAndGraphLine) {
  EXPECT_EQ(dump_model(IrModel{}),
            "onemodel-dump 1\nir_version 0\nproducer_name \"\"\nproducer_version \"\"\ndomain \"\"\n"
            "model_version 0\ngraph \"\"\n");
}

TEST(ModelDump, ChangingOneTensorByteChangesTheDump) {
  IrModel m = build_model();
  const std::string before = dump_model(m);
  m.graph.initializers[3] = tensor("r", 7, {}, le_bytes(std::vector<std::int64_t>{-6}));
  EXPECT_NE(dump_model(m), before);
}

}  // namespace
}  // namespace onemodel
