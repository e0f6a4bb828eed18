// Who is wrong when a node refuses an input value (spec/errors.md section 3.2; issue 11, defect 8):
// a value that comes from a graph input (directly or computed from one) is the caller's, so the
// refusal is InvalidInput (the command line's exit 5), as Gather's out-of-range indices are; the
// same value given by an initializer is the model's, InvalidModel. One case per operator the issue
// lists (TopK k, Slice axes and steps, Reshape shape, Range delta, OneHot depth, Resize scales, Pad
// pads, ConstantOfShape extents), each in both engines. The refused values follow the ONNX text of
// each operator (k at most the axis extent, step not 0, axes not repeated, a shape with the input's
// element count, delta not 0, depth at least 1, positive scales, pads not cropping below zero,
// non-negative extents). Before the fix every graph-input case was InvalidModel.
#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/graph/tensor_bytes.hpp"
#include "core/ir/resolve.hpp"
#include "onemodel/session.hpp"
#include "tests/support/ir_builder.hpp"

namespace onemodel {
namespace {

using namespace ir_builder;

// A node input: a graph input fed `value` when `from_caller`, else an initializer holding it;
// an empty name is an omitted input.
struct Operand {
  std::string name;
  Tensor value;
  bool from_caller = false;
};

struct Case {
  std::string what;
  std::string op;
  std::int64_t opset;
  std::vector<Operand> operands;
  std::size_t refused;  // the operand holding the refused value
  std::vector<std::string> outputs;
  std::vector<IrAttribute> attributes;
};

IrTensor initializer_of(const std::string& name, const Tensor& value) {
  IrTensor t;
  t.name = name;
  t.data_type = onnx_elem_type(value.dtype());
  for (int d = 0; d < value.rank(); ++d) t.dims.push_back(value.shape()[d]);
  const std::span<const std::byte> bytes = tensor_bytes(value);
  auto owner = std::make_shared<std::vector<std::byte>>(bytes.begin(), bytes.end());
  t.data = ByteView{owner->data(), owner->size(), owner};
  return t;
}

// The case's model with the refused operand from the caller (`refused_from_caller`) or from an
// initializer; the other operands keep their own source. With `through_identity` the refused
// graph input reaches the node through an Identity node (a value computed from a graph input).
IrModel model_of(const Case& c, bool refused_from_caller, bool through_identity = false) {
  IrModel m;
  m.ir_version = 8;
  m.opset_imports = {{"", c.opset}};
  IrNode n = node(c.op, {}, c.outputs);
  n.attributes = c.attributes;
  for (std::size_t i = 0; i < c.operands.size(); ++i) {
    const Operand& o = c.operands[i];
    n.inputs.push_back(o.name);
    if (o.name.empty()) continue;
    const bool caller = i == c.refused ? refused_from_caller : o.from_caller;
    if (!caller) {
      m.graph.initializers.push_back(initializer_of(o.name, o.value));
      continue;
    }
    const std::string fed = through_identity && i == c.refused ? o.name + "_fed" : o.name;
    m.graph.inputs.push_back(fixed_tensor_value_info(fed, onnx_elem_type(o.value.dtype()), o.value.shape()));
    if (fed != o.name) m.graph.nodes.push_back(node("Identity", {fed}, {o.name}));
  }
  for (const std::string& out : c.outputs) m.graph.outputs.push_back(unshaped_tensor_value_info(out, 1));
  m.graph.nodes.push_back(n);
  resolve_model(m, FieldPathStyle::Onnx);
  return m;
}

std::vector<std::pair<std::string, Tensor>> feeds_of(const Case& c, bool refused_from_caller, bool through_identity) {
  std::vector<std::pair<std::string, Tensor>> feeds;
  for (std::size_t i = 0; i < c.operands.size(); ++i) {
    const Operand& o = c.operands[i];
    const bool caller = i == c.refused ? refused_from_caller : o.from_caller;
    if (o.name.empty() || !caller) continue;
    feeds.emplace_back(through_identity && i == c.refused ? o.name + "_fed" : o.name, o.value);
  }
  return feeds;
}

// The kind the run raises, with the node named.
SessionErrorKind kind_of_run(const Case& c, EngineKind engine, bool refused_from_caller, bool through_identity = false) {
  SessionOptions options;
  options.engine = engine;
  options.intra_op_threads = 1;
  try {
    Session s = Session::create(model_of(c, refused_from_caller, through_identity), options);
    s.run(feeds_of(c, refused_from_caller, through_identity));
  } catch (const SessionError& e) {
    EXPECT_EQ(e.node_name(), c.op + "_node") << c.what << ": " << e.message();
    return e.kind();
  }
  ADD_FAILURE() << c.what << ": the run succeeded";
  return SessionErrorKind::Disposed;
}

Tensor f32(Shape shape, std::initializer_list<float> v) { return Tensor::from_values<float>(DType::F32, shape, v); }
Tensor i64(Shape shape, std::initializer_list<std::int64_t> v) {
  return Tensor::from_values<std::int64_t>(DType::I64, shape, v);
}

std::vector<Case> cases() {
  const Tensor x4 = f32(Shape{4}, {1, 2, 3, 4});
  return {
      {"TopK k above the extent", "TopK", 11, {{"x", x4, true}, {"k", i64(Shape{1}, {5})}}, 1, {"y", "i"}, {}},
      {"Slice step 0", "Slice", 13,
       {{"x", x4, true}, {"starts", i64(Shape{1}, {0})}, {"ends", i64(Shape{1}, {2})}, {"axes", i64(Shape{1}, {0})},
        {"steps", i64(Shape{1}, {0})}},
       4, {"y"}, {}},
      {"Slice axis repeated", "Slice", 13,
       {{"x", x4, true}, {"starts", i64(Shape{2}, {0, 0})}, {"ends", i64(Shape{2}, {1, 1})},
        {"axes", i64(Shape{2}, {0, 0})}},
       3, {"y"}, {}},
      {"Reshape to another element count", "Reshape", 14, {{"x", x4, true}, {"shape", i64(Shape{1}, {3})}}, 1, {"y"}, {}},
      {"Range delta 0", "Range", 11,
       {{"start", f32(Shape{}, {0})}, {"limit", f32(Shape{}, {10})}, {"delta", f32(Shape{}, {0})}}, 2, {"y"}, {}},
      {"OneHot depth 0", "OneHot", 11,
       {{"indices", i64(Shape{2}, {0, 1}), true}, {"depth", i64(Shape{1}, {0})}, {"values", f32(Shape{2}, {0, 1})}},
       1, {"y"}, {}},
      {"Resize negative scale", "Resize", 13,
       {{"x", f32(Shape{1, 1, 2, 2}, {1, 2, 3, 4}), true}, {"", Tensor()}, {"scales", f32(Shape{4}, {1, 1, -1, 1})}},
       2, {"y"}, {}},
      {"Pad cropping below zero", "Pad", 13, {{"x", x4, true}, {"pads", i64(Shape{2}, {-5, 0})}}, 1, {"y"}, {}},
      {"ConstantOfShape negative extent", "ConstantOfShape", 9, {{"shape", i64(Shape{1}, {-1})}}, 0, {"y"}, {}},
  };
}

constexpr EngineKind kEngines[] = {EngineKind::Reference, EngineKind::Optimized};

TEST(CallerValueErrors, ARefusedValueFromAGraphInputIsInvalidInputInBothEngines) {
  for (const Case& c : cases()) {
    for (EngineKind engine : kEngines) {
      EXPECT_EQ(kind_of_run(c, engine, true), SessionErrorKind::InvalidInput)
          << c.what << (engine == EngineKind::Reference ? " (reference)" : " (optimized)");
    }
  }
}

TEST(CallerValueErrors, TheSameValueFromAnInitializerStaysInvalidModel) {
  for (const Case& c : cases()) {
    for (EngineKind engine : kEngines) {
      EXPECT_EQ(kind_of_run(c, engine, false), SessionErrorKind::InvalidModel)
          << c.what << (engine == EngineKind::Reference ? " (reference)" : " (optimized)");
    }
  }
}

// A value computed from a graph input (here through Identity) is the caller's too.
TEST(CallerValueErrors, AValueComputedFromAGraphInputIsTheCallers) {
  for (const Case& c : cases()) {
    for (EngineKind engine : kEngines) {
      EXPECT_EQ(kind_of_run(c, engine, true, true), SessionErrorKind::InvalidInput)
          << c.what << (engine == EngineKind::Reference ? " (reference)" : " (optimized)");
    }
  }
}

// The data a kernel only measures is not a refused value: Slice with constant starts and ends of
// different lengths is the model's fault even when the data comes from the caller.
TEST(CallerValueErrors, AnInconsistentModelStaysInvalidModelWhateverTheDataSource) {
  const Case c{"Slice starts and ends differ in length", "Slice", 13,
               {{"x", f32(Shape{4}, {1, 2, 3, 4}), true}, {"starts", i64(Shape{2}, {0, 0})}, {"ends", i64(Shape{1}, {1})}},
               1, {"y"}, {}};
  for (EngineKind engine : kEngines) EXPECT_EQ(kind_of_run(c, engine, false), SessionErrorKind::InvalidModel);
}

}  // namespace
}  // namespace onemodel
