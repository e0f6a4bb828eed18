// A value named "" (issue 11, defect 1). In ONNX "" is the mark of an omitted optional operand,
// never the name of a value (spec/graph-resolution.md section 1): an initializer, sparse
// initializer or graph output that defines or names "" is InvalidModel at import, whichever file
// kind the model came from, and neither engine indexes anything with the -1 an unbound name
// would give. An omitted optional node input ("") keeps working. Before the fix an initializer
// named "" made the optimized engine write initializers[(size_t)-1] (a crash under ASan).
#include <gtest/gtest.h>

#include <memory>
#include <span>
#include <string>
#include <vector>

#include "core/ir/resolve.hpp"
#include "onemodel/error.hpp"
#include "onemodel/model_format.hpp"
#include "onemodel/session.hpp"
#include "tests/support/ir_builder.hpp"
#include "tests/support/onnx_builder.hpp"

namespace onemodel {
namespace {

using namespace ir_builder;
namespace onnxb = testing::onnxb;

constexpr EngineKind kEngines[] = {EngineKind::Optimized, EngineKind::Reference};

SessionOptions options_for(EngineKind engine) {
  SessionOptions options;
  options.engine = engine;
  return options;
}

// A view owning a copy of `bytes`.
ByteView owned_bytes(std::span<const std::byte> bytes) {
  auto owner = std::make_shared<std::vector<std::byte>>(bytes.begin(), bytes.end());
  return ByteView{owner->data(), owner->size(), owner};
}

IrTensor float_initializer(const std::string& name, const std::vector<float>& values) {
  IrTensor t;
  t.name = name;
  t.data_type = 1;
  t.dims = {static_cast<std::int64_t>(values.size())};
  t.data = owned_bytes(std::as_bytes(std::span<const float>(values)));
  return t;
}

// x[2] -> Identity -> y, plus an unused initializer named `initializer_name` (not resolved).
IrModel identity_with_initializer(const std::string& initializer_name) {
  IrModel m;
  m.ir_version = 8;
  m.opset_imports = {{"", 13}};
  m.source_name = "test";
  m.graph.inputs = {tensor_value_info("x", 1, {fixed_dim(2)})};
  m.graph.outputs = {tensor_value_info("y", 1, {fixed_dim(2)})};
  m.graph.nodes = {node("Identity", {"x"}, {"y"})};
  m.graph.initializers = {float_initializer(initializer_name, {1.0f, 2.0f})};
  return m;
}

ModelError resolve_error(IrModel m, FieldPathStyle style) {
  try {
    resolve_model(m, style);
  } catch (const ModelError& e) {
    return e;
  }
  ADD_FAILURE() << "resolution accepted the model";
  return ModelError(ModelErrorKind::Io, "none");
}

TEST(EmptyName, AnInitializerNamedEmptyIsInvalidModelNamingIt) {
  const IrModel m = identity_with_initializer("");
  ModelError onnx = resolve_error(m, FieldPathStyle::Onnx);
  EXPECT_EQ(onnx.kind(), ModelErrorKind::InvalidModel);
  EXPECT_EQ(onnx.field_path(), "ModelProto.graph.initializer[0]");
  EXPECT_NE(onnx.message().find("empty name"), std::string::npos) << onnx.message();
  ModelError manifest = resolve_error(m, FieldPathStyle::Manifest);
  EXPECT_EQ(manifest.kind(), ModelErrorKind::InvalidModel);
  EXPECT_EQ(manifest.field_path(), "manifest.graph.initializers[0]");
}

TEST(EmptyName, ASparseInitializerNamedEmptyIsInvalidModel) {
  IrModel m = identity_with_initializer("w");
  m.graph.sparse_initializers.emplace_back();
  ModelError e = resolve_error(m, FieldPathStyle::Onnx);
  EXPECT_EQ(e.kind(), ModelErrorKind::InvalidModel);
  EXPECT_EQ(e.field_path(), "ModelProto.graph.sparse_initializer[0]");
}

TEST(EmptyName, AGraphOutputNamedEmptyIsInvalidModelEvenWithAValueNamedEmpty) {
  IrModel m = identity_with_initializer("w");
  m.graph.outputs.push_back(tensor_value_info("", 1, {fixed_dim(2)}));
  ModelError e = resolve_error(m, FieldPathStyle::Onnx);
  EXPECT_EQ(e.kind(), ModelErrorKind::InvalidModel);
  EXPECT_EQ(e.field_path(), "ModelProto.graph.output[1]");
  EXPECT_NE(e.message().find("empty name"), std::string::npos) << e.message();
}

// The file: an ONNX model with an initializer named "", loaded by a session in each
// engine (before the fix: a heap write at index -1 in the optimized engine).
TEST(EmptyName, AnOnnxFileWithAnInitializerNamedEmptyIsRefusedByBothEngines) {
  onnxb::GraphParts g = onnxb::identity_graph();
  g.initializers.push_back(onnxb::tensor_floats("", {2}, {1.0f, 2.0f}));
  const std::string bytes = onnxb::model_bytes(g);
  for (EngineKind engine : kEngines) {
    try {
      Session::load_bytes(owned_bytes(std::as_bytes(std::span<const char>(bytes))), "empty.onnx", options_for(engine));
      ADD_FAILURE() << "loaded";
    } catch (const ModelError& e) {
      EXPECT_EQ(e.kind(), ModelErrorKind::InvalidModel) << e.describe();
      EXPECT_EQ(e.field_path(), "ModelProto.graph.initializer[0]");
    }
  }
}

// The same model as a OneModel file: the writer keeps names as they are, the reader refuses.
TEST(EmptyName, AOneModelFileWithAnInitializerNamedEmptyIsRefusedByBothEngines) {
  const std::vector<std::byte> bytes = write_onemodel_bytes(identity_with_initializer(""));
  for (EngineKind engine : kEngines) {
    try {
      Session::load_bytes(owned_bytes(bytes), "empty.onemodel", options_for(engine));
      ADD_FAILURE() << "loaded";
    } catch (const ModelError& e) {
      EXPECT_EQ(e.kind(), ModelErrorKind::InvalidModel) << e.describe();
      EXPECT_EQ(e.field_path(), "manifest.graph.initializers[0]");
    }
  }
}

// An in-memory model whose tables say otherwise than its lists (an initializer renamed to ""
// after resolution): each engine refuses it with a typed error instead of indexing with -1.
TEST(EmptyName, EnginesRefuseAnUnboundInitializerNameOfAnInMemoryModel) {
  for (EngineKind engine : kEngines) {
    IrModel m = identity_with_initializer("w");
    resolve_model(m, FieldPathStyle::Onnx);
    m.graph.initializers[0].name = "";
    EXPECT_EQ(session_error_kind_of([&] { Session::create(m, options_for(engine)); }), SessionErrorKind::InvalidModel);
  }
}

// "" as an omitted optional node input still means "omitted": Clip(x, "", max) clamps from above
// only (ONNX Clip-13: min defaults to the lowest value of the type).
TEST(EmptyName, AnOmittedOptionalInputStillWorksInBothEngines) {
  IrModel m;
  m.ir_version = 8;
  m.opset_imports = {{"", 13}};
  m.graph.inputs = {tensor_value_info("x", 1, {fixed_dim(3)})};
  m.graph.outputs = {tensor_value_info("y", 1, {fixed_dim(3)})};
  m.graph.initializers = {float_initializer("hi", {1.0f})};
  m.graph.initializers[0].dims = {};
  m.graph.nodes = {node("Clip", {"x", "", "hi"}, {"y"})};
  resolve_model(m, FieldPathStyle::Onnx);
  for (EngineKind engine : kEngines) {
    Session s = Session::create(m, options_for(engine));
    auto out = s.run({{"x", Tensor::from_values<float>(DType::F32, Shape{3}, {-5.0f, 0.5f, 3.0f})}});
    ASSERT_EQ(out.size(), 1u);
    EXPECT_EQ(out[0].to_vector<float>(), (std::vector<float>{-5.0f, 0.5f, 1.0f}));
  }
}

}  // namespace
}  // namespace onemodel
