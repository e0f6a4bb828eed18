// Dropout (spec/ops/shape-indexing.md section 2): inference is the identity with an all-true mask;
// training_mode true is the same identity when ratio is exactly 0, and otherwise drops elements at
// random (spec/ops/random.md section 11; its law: tests/unit/random_ops_test.cpp). Values from the
// rule text.
#include <gtest/gtest.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "core/ir/resolve.hpp"
#include "onemodel/session.hpp"
#include "tests/support/ir_builder.hpp"

namespace onemodel {
namespace {

using namespace ir_builder;

std::vector<Tensor> dropout(float ratio, bool training, ExecutionMode mode) {
  const Tensor x = Tensor::from_values<float>(DType::F32, Shape{2, 2}, {1.5f, -2.0f, 0.0f, 7.0f});
  return run_one_node("Dropout", 13,
                      {{"x", x},
                       {"ratio", Tensor::from_values<float>(DType::F32, Shape{}, {ratio})},
                       {"training_mode", Tensor::from_values<std::uint8_t>(DType::Bool, Shape{}, {static_cast<std::uint8_t>(training ? 1 : 0)})}},
                      {unshaped_tensor_value_info("y", 1), unshaped_tensor_value_info("mask", 9)}, {}, mode);
}

TEST(OpsDropout, TrainingWithRatioZeroKeepsEverything) {
  for (ExecutionMode mode : {ExecutionMode::Fast, ExecutionMode::Exact}) {
    for (bool training : {false, true}) {
      const std::vector<Tensor> out = dropout(0.0f, training, mode);
      EXPECT_EQ(out.at(0).to_vector<float>(), (std::vector<float>{1.5f, -2.0f, 0.0f, 7.0f}));
      EXPECT_EQ(out.at(1).to_vector<std::uint8_t>(), (std::vector<std::uint8_t>{1, 1, 1, 1}));
    }
  }
  // Inference ignores the ratio; training with ratio 0.5 keeps an element (its mask true) as
  // x / (1 - 0.5) = 2x and drops the others to 0.
  EXPECT_EQ(dropout(0.5f, false, ExecutionMode::Fast).at(0).to_vector<float>(),
            (std::vector<float>{1.5f, -2.0f, 0.0f, 7.0f}));
  const std::vector<Tensor> trained = dropout(0.5f, true, ExecutionMode::Fast);
  const std::vector<float> y = trained.at(0).to_vector<float>();
  const std::vector<std::uint8_t> mask = trained.at(1).to_vector<std::uint8_t>();
  const std::vector<float> x = {1.5f, -2.0f, 0.0f, 7.0f};
  for (std::size_t i = 0; i < 4; ++i) EXPECT_EQ(y[i], mask[i] ? 2.0f * x[i] : 0.0f) << i;
}

// A fed training_mode is known only at the call: its refusals (a non-floating input asked to
// train, a training_mode of more than one element) come from the call in both engines, and a
// false one runs the identity on any element type (spec/ops/random.md section 11). The optimized
// engine plans without the value; it used to refuse such a model when creating the session while
// the reference engine ran it (found by OperatorFuzzProperty: int8 input, fed Bool[3,3,3] mode).
TEST(OpsDropout, FedTrainingModeIsJudgedAtTheCallInBothEngines) {
  const Tensor x = Tensor::from_values<std::int8_t>(DType::I8, Shape{3}, {-3, 0, 5});
  const Tensor ratio = Tensor::from_values<float>(DType::F32, Shape{}, {0.25f});
  auto mode_tensor = [](Shape shape, std::vector<std::uint8_t> values) {
    return Tensor::from_values<std::uint8_t>(DType::Bool, std::move(shape), std::move(values));
  };
  // training_mode declared without a shape, so a three-element one reaches the node.
  IrModel model;
  model.ir_version = 8;
  model.opset_imports = {{"", 13}};
  model.graph.inputs = {fixed_tensor_value_info("x", 3, Shape{3}), fixed_tensor_value_info("ratio", 1, Shape{}),
                        unshaped_tensor_value_info("training_mode", 9)};
  model.graph.outputs = {unshaped_tensor_value_info("y", 3), unshaped_tensor_value_info("mask", 9)};
  model.graph.nodes = {node("Dropout", {"x", "ratio", "training_mode"}, {"y", "mask"})};
  resolve_model(model, FieldPathStyle::Onnx);
  for (EngineKind engine : {EngineKind::Reference, EngineKind::Optimized}) {
    for (ExecutionMode mode : {ExecutionMode::Fast, ExecutionMode::Exact}) {
      SessionOptions options;
      options.engine = engine;
      options.mode = mode;
      Session session = Session::create(model, options);
      auto run = [&](const Tensor& training) {
        return session.run({{"x", x}, {"ratio", ratio}, {"training_mode", training}});
      };
      const std::vector<Tensor> out = run(mode_tensor(Shape{}, {0}));
      EXPECT_EQ(out.at(0).to_vector<std::int8_t>(), (std::vector<std::int8_t>{-3, 0, 5}));
      EXPECT_EQ(out.at(1).to_vector<std::uint8_t>(), (std::vector<std::uint8_t>{1, 1, 1}));
      EXPECT_EQ(session_error_kind_of([&] { run(mode_tensor(Shape{}, {1})); }), SessionErrorKind::Unsupported);
      EXPECT_EQ(session_error_kind_of([&] { run(mode_tensor(Shape{3}, {0, 0, 0})); }),
                SessionErrorKind::InvalidInput);
      EXPECT_EQ(run(mode_tensor(Shape{1}, {0})).at(0).to_vector<std::int8_t>(), (std::vector<std::int8_t>{-3, 0, 5}));
    }
  }
}

// A constant training_mode of more than one element is the model's error (InvalidModel, not the
// caller's InvalidInput), in both engines.
TEST(OpsDropout, ConstantTrainingModeOfThreeElementsIsInvalidModel) {
  const Tensor x = Tensor::from_values<float>(DType::F32, Shape{3}, {1.0f, 2.0f, 3.0f});
  IrModel model;
  model.ir_version = 8;
  model.opset_imports = {{"", 13}};
  model.graph.inputs = {fixed_tensor_value_info("x", 1, Shape{3})};
  model.graph.outputs = {unshaped_tensor_value_info("y", 1)};
  IrTensor mode;
  mode.name = "training_mode";
  mode.data_type = 9;
  mode.dims = {3};
  const auto bytes = std::make_shared<std::array<std::byte, 3>>();  // three false values
  mode.data = ByteView{bytes->data(), bytes->size(), bytes};
  model.graph.initializers = {mode};
  model.graph.nodes = {node("Dropout", {"x", "", "training_mode"}, {"y"})};
  resolve_model(model, FieldPathStyle::Onnx);
  for (EngineKind engine : {EngineKind::Reference, EngineKind::Optimized}) {
    SessionOptions options;
    options.engine = engine;
    EXPECT_EQ(session_error_kind_of([&] { (void)Session::create(model, options).run({{"x", x}}); }),
              SessionErrorKind::InvalidModel);
  }
}

}  // namespace
}  // namespace onemodel
