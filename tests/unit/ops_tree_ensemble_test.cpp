// TreeEnsemble (ai.onnx.ml version 5; spec/ops/ml.md section 3). Expected values from ONNX Runtime
// 1.31.1 on the same one-node models (tools: the onnx package builds them; ORT's outputs are
// quoted next to each check), worked by hand where the text decides alone.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <vector>

#include "onemodel/session.hpp"
#include "tests/support/ir_builder.hpp"

namespace onemodel {
namespace {

using namespace ir_builder;

constexpr float kNan = std::numeric_limits<float>::quiet_NaN();

template <class T>
IrAttribute tensor_attr(const std::string& name, std::int32_t onnx_type, const std::vector<T>& values) {
  auto bytes = std::make_shared<std::vector<std::byte>>(values.size() * sizeof(T));
  if (!values.empty()) std::memcpy(bytes->data(), values.data(), bytes->size());
  IrTensor t;
  t.name = name;
  t.data_type = onnx_type;
  t.dims = {static_cast<std::int64_t>(values.size())};
  t.data = ByteView{bytes->data(), bytes->size(), bytes};
  IrAttribute a;
  a.name = name;
  a.type = AttrType::Tensor;
  a.tensors = {t};
  return a;
}

// One decision node (feature 0, split 2, `mode`) used as the root of two trees: true goes to leaf
// 0 (weight 1.5), false to leaf 1 (weight 4); both leaves feed target 0 of 2.
std::vector<IrAttribute> two_stumps(std::uint8_t mode, std::int64_t aggregate, bool nan_true) {
  std::vector<IrAttribute> a{int_attr("aggregate_function", aggregate),
                             ints_attr("leaf_targetids", {0, 0}),
                             tensor_attr<float>("leaf_weights", 1, {1.5f, 4.0f}),
                             int_attr("n_targets", 2),
                             ints_attr("nodes_falseleafs", {1}),
                             ints_attr("nodes_falsenodeids", {1}),
                             ints_attr("nodes_featureids", {0}),
                             tensor_attr<std::uint8_t>("nodes_modes", 2, {mode}),
                             tensor_attr<float>("nodes_splits", 1, {2.0f}),
                             ints_attr("nodes_trueleafs", {1}),
                             ints_attr("nodes_truenodeids", {0}),
                             ints_attr("tree_roots", {0, 0})};
  if (nan_true) a.push_back(ints_attr("nodes_missing_value_tracks_true", {1}));
  return a;
}

std::vector<float> run(std::vector<IrAttribute> attrs, ExecutionMode mode = ExecutionMode::Exact) {
  const std::vector<NodeInput> in{{"x", Tensor::from_values<float>(DType::F32, Shape{4, 1}, {1.0f, 2.0f, 3.0f, kNan})}};
  IrModel model = one_node_model("TreeEnsemble", 5, in, {unshaped_tensor_value_info("y", 1)}, std::move(attrs));
  model.opset_imports = {{"", 21}, {"ai.onnx.ml", 5}};
  model.graph.nodes[0].domain = "ai.onnx.ml";
  SessionOptions options;
  options.mode = mode;
  options.engine = EngineKind::Reference;
  return Session::create(std::move(model), options).run(feeds_of(in)).at(0).to_vector<float>();
}

// Rows x = 1, 2, 3, NaN. ONNX Runtime: BRANCH_EQ (4) with SUM gives [8,0],[3,0],[8,0],[8,0]; with
// missing values tracking true the NaN row gives [3,0]; BRANCH_NEQ (5) gives [3,0],[8,0],[3,0],[3,0]
// (NaN != 2 is true); AVERAGE divides by the two trees: EQ gives [4,0],[1.5,0],[4,0],[4,0]; MIN
// leaves the unreached target 1 at 0. BRANCH_LEQ (0), by hand: 1 and 2 go true (3), 3 and NaN false (8).
TEST(TreeEnsemble, ModesMissingValuesAndAggregates) {
  for (ExecutionMode m : {ExecutionMode::Exact, ExecutionMode::Fast}) {
    EXPECT_EQ(run(two_stumps(4, 1, false), m), (std::vector<float>{8, 0, 3, 0, 8, 0, 8, 0}));
    EXPECT_EQ(run(two_stumps(4, 1, true), m), (std::vector<float>{8, 0, 3, 0, 8, 0, 3, 0}));
    EXPECT_EQ(run(two_stumps(5, 1, false), m), (std::vector<float>{3, 0, 8, 0, 3, 0, 3, 0}));
    EXPECT_EQ(run(two_stumps(4, 0, false), m), (std::vector<float>{4, 0, 1.5f, 0, 4, 0, 4, 0}));
    EXPECT_EQ(run(two_stumps(4, 2, false), m), (std::vector<float>{4, 0, 1.5f, 0, 4, 0, 4, 0}));
    EXPECT_EQ(run(two_stumps(0, 1, false), m), (std::vector<float>{3, 0, 3, 0, 8, 0, 8, 0}));
  }
}

// BRANCH_MEMBER: membership_values [1, 2.5, NaN] is one set {1, 2.5}: x = 1 is a member (true leaf,
// 1.5 per tree), 2 and 3 are not (4 per tree), NaN is no member.
TEST(TreeEnsemble, SetMembership) {
  std::vector<IrAttribute> a = two_stumps(6, 1, false);
  a.push_back(tensor_attr<float>("membership_values", 1, {1.0f, 2.5f, kNan}));
  EXPECT_EQ(run(a), (std::vector<float>{3, 0, 8, 0, 8, 0, 8, 0}));
}

// Bad models are InvalidModel: an unknown mode, a branch outside the node list, a leaf target
// outside n_targets, a membership set count that does not match, mismatched nodes_* lengths;
// a post_transform other than NONE is Unsupported; a feature beyond X's columns is InvalidInput.
TEST(TreeEnsemble, Refusals) {
  auto with = [](std::vector<IrAttribute> a, const std::string& name, IrAttribute replacement) {
    for (IrAttribute& x : a) {
      if (x.name == name) x = replacement;
    }
    return a;
  };
  const auto base = two_stumps(0, 1, false);
  auto kind = [&](std::vector<IrAttribute> a) { return session_error_kind_of([&] { run(std::move(a)); }); };
  EXPECT_EQ(kind(with(base, "nodes_modes", tensor_attr<std::uint8_t>("nodes_modes", 2, {7}))), SessionErrorKind::InvalidModel);
  EXPECT_EQ(kind(with(base, "nodes_falseleafs", ints_attr("nodes_falseleafs", {0}))), SessionErrorKind::InvalidModel);
  EXPECT_EQ(kind(with(base, "leaf_targetids", ints_attr("leaf_targetids", {0, 2}))), SessionErrorKind::InvalidModel);
  EXPECT_EQ(kind(with(base, "nodes_modes", tensor_attr<std::uint8_t>("nodes_modes", 2, {6}))), SessionErrorKind::InvalidModel);
  EXPECT_EQ(kind(with(base, "nodes_featureids", ints_attr("nodes_featureids", {0, 0}))), SessionErrorKind::InvalidModel);
  auto post = base;
  post.push_back(int_attr("post_transform", 2));
  EXPECT_EQ(kind(post), SessionErrorKind::Unsupported);
  EXPECT_EQ(kind(with(base, "nodes_featureids", ints_attr("nodes_featureids", {1}))), SessionErrorKind::InvalidInput);
}

}  // namespace
}  // namespace onemodel
