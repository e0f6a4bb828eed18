// TreeEnsemble (ai.onnx.ml version 5; spec/ops/ml.md section 3). Expected values from ONNX Runtime
// 1.31.1 on the same one-node models (tools: the onnx package builds them; ORT's outputs are
// quoted next to each check), worked by hand where the text decides alone.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <type_traits>
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
// a post_transform outside 0-4 is InvalidModel; a feature beyond X's columns is InvalidInput.
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
  post.push_back(int_attr("post_transform", 5));
  EXPECT_EQ(kind(post), SessionErrorKind::InvalidModel);
  EXPECT_EQ(kind(with(base, "nodes_featureids", ints_attr("nodes_featureids", {1}))), SessionErrorKind::InvalidInput);
}

// Section 3.1, post_transform. Three stumps on feature 0 (splits 1, 2, 3, LEQ) feeding targets
// (0, 1), (1, 2), (2, 0) with weights (0.5, 1.5), (-1.25, 0.75), (2, -0.5); rows x = 0.5, 1.5,
// 2.5, 3.5 give the sums {0.5, -1.25, 2}, {0, 0.25, 2}, {0, 1.5, 2.75}, {-0.5, 1.5, 0.75}.
// Expected values: the ONNX ML definitions (onnx's _common_classifier.py: softmax, logistic,
// softmax_zero, probit with its erf_inv) evaluated in binary64 by numpy and Python's math module.
// ONNX Runtime 1.31.1 gives the same values in float32 (within 2 ulp) with 1 and 2 swapped: it
// applies LOGISTIC for 1 and SOFTMAX for 2, against the ONNX text ('SOFTMAX' (1), 'LOGISTIC' (2)),
// and its float64 results are float32 ones (0.176820189 for 0.17682018210744427); its PROBIT of 0
// is -inf where the ONNX definition's erf_inv returns 0.
template <class T>
std::vector<double> run_post(std::int64_t post, EngineKind engine, ExecutionMode mode) {
  const std::int32_t code = std::is_same_v<T, float> ? 1 : 11;
  const std::vector<IrAttribute> attrs{
      int_attr("aggregate_function", 1), int_attr("post_transform", post), int_attr("n_targets", 3),
      ints_attr("tree_roots", {0, 1, 2}), ints_attr("nodes_featureids", {0, 0, 0}),
      ints_attr("nodes_truenodeids", {0, 2, 4}), ints_attr("nodes_trueleafs", {1, 1, 1}),
      ints_attr("nodes_falsenodeids", {1, 3, 5}), ints_attr("nodes_falseleafs", {1, 1, 1}),
      tensor_attr<std::uint8_t>("nodes_modes", 2, {0, 0, 0}), tensor_attr<T>("nodes_splits", code, {1, 2, 3}),
      ints_attr("leaf_targetids", {0, 1, 1, 2, 2, 0}),
      tensor_attr<T>("leaf_weights", code, {T(0.5), T(1.5), T(-1.25), T(0.75), T(2.0), T(-0.5)})};
  const DType type = std::is_same_v<T, float> ? DType::F32 : DType::F64;
  const std::vector<NodeInput> in{{"x", Tensor::from_values<T>(type, Shape{4, 1}, {T(0.5), T(1.5), T(2.5), T(3.5)})}};
  IrModel model = one_node_model("TreeEnsemble", 5, in, {unshaped_tensor_value_info("y", code)}, attrs);
  model.opset_imports = {{"", 21}, {"ai.onnx.ml", 5}};
  model.graph.nodes[0].domain = "ai.onnx.ml";
  SessionOptions o;
  o.engine = engine;
  o.mode = mode;
  Session session = Session::create(std::move(model), o);
  const Tensor y = session.run(feeds_of(in)).at(0);
  std::vector<double> out;
  for (T v : y.to_vector<T>()) out.push_back(static_cast<double>(v));
  return out;
}

TEST(TreeEnsemble, PostTransformsFollowTheOnnxDefinitions) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const std::vector<std::vector<double>> expected = {
      {},  // NONE: covered by the tests above
      {0.17682018210744427, 0.030726740326436432, 0.79245307756611927, 0.10337967258782796, 0.13274212717162809,
       0.76387820024054387, 0.047338799772673086, 0.21215778154411105, 0.74050341868321579, 0.084179342343237831,
       0.62200588294527259, 0.29381477471148948},
      {0.62245933120185459, 0.22270013882530884, 0.88079707797788231, 0.5, 0.56217650088579807, 0.88079707797788231,
       0.5, 0.81757447619364365, 0.93991334982599239, 0.37754066879814541, 0.81757447619364365, 0.67917869917539297},
      {0.17682018210744427, 0.030726740326436432, 0.79245307756611927, 0, 0.1480471980316895, 0.85195280196831058, 0,
       0.22270013882530884, 0.77729986117469108, 0.084179342343237831, 0.62200588294527259, 0.29381477471148948},
      {0, nan, nan, 0, -0.67457424574332836, nan, 0, nan, nan, nan, nan, 0.67457424574332836},
  };
  for (std::int64_t post = 1; post <= 4; ++post) {
    for (EngineKind engine : {EngineKind::Reference, EngineKind::Optimized}) {
      for (ExecutionMode mode : {ExecutionMode::Exact, ExecutionMode::Fast}) {
        const std::vector<double> f = run_post<float>(post, engine, mode);
        const std::vector<double> d = run_post<double>(post, engine, mode);
        ASSERT_EQ(f.size(), 12u);
        ASSERT_EQ(d.size(), 12u);
        for (std::size_t i = 0; i < 12; ++i) {
          const double want = expected[static_cast<std::size_t>(post)][i];
          if (std::isnan(want)) {
            EXPECT_TRUE(std::isnan(f[i]) && std::isnan(d[i])) << "post " << post << " element " << i;
            continue;
          }
          // float32: the exact functions are within a few float32 ulps; float64: within 1e-15.
          EXPECT_NEAR(f[i], want, 3e-7 * std::max(1.0, std::fabs(want))) << "float32 post " << post << " element " << i;
          EXPECT_NEAR(d[i], want, 1e-15) << "float64 post " << post << " element " << i;
        }
      }
    }
  }
}

}  // namespace
}  // namespace onemodel
