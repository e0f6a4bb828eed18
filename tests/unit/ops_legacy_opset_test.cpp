// The opset 6 forms (spec/ops/elementwise.md section 11): legacy broadcast with `broadcast` and
// `axis`, PRelu-6's per-channel slope, BatchNormalization-6's is_test. Expected values are
// written from the ONNX text of Add-6 / PRelu-6 (the loops below spell the rule out), never
// obtained by running the library; both engines and both modes must give them.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "onemodel/session.hpp"
#include "tests/support/ir_builder.hpp"

namespace onemodel {
namespace {

using namespace ir_builder;

Tensor f32(const Shape& shape, std::vector<float> v) {
  return Tensor::from_values<float>(DType::F32, shape, std::span<const float>(v));
}

std::vector<float> iota(std::size_t n, float start, float step) {
  std::vector<float> v(n);
  for (std::size_t i = 0; i < n; ++i) v[i] = start + step * static_cast<float>(i);
  return v;
}

struct Config {
  EngineKind engine;
  ExecutionMode mode;
};
constexpr Config kConfigs[] = {{EngineKind::Reference, ExecutionMode::Fast},
                               {EngineKind::Reference, ExecutionMode::Exact},
                               {EngineKind::Optimized, ExecutionMode::Fast},
                               {EngineKind::Optimized, ExecutionMode::Exact}};

std::vector<float> run6(const std::string& op, const std::vector<NodeInput>& inputs, std::vector<IrAttribute> attrs,
                        Config config, std::int64_t opset = 6) {
  SessionOptions options;
  options.engine = config.engine;
  options.mode = config.mode;
  options.intra_op_threads = 1;
  Session s = Session::create(
      one_node_model(op, opset, inputs, {unshaped_tensor_value_info("y", 1)}, std::move(attrs)), options);
  return s.run(feeds_of(inputs)).at(0).to_vector<float>();
}

// Add-6: "shape(A) = (2, 3, 4, 5), shape(B) = (3, 4), with axis=1": B[j][k] meets A[i][j][k][l].
TEST(OpsLegacyOpset, AddAlignsAtAxis) {
  const std::vector<float> a = iota(2 * 3 * 4 * 5, 0.5f, 1.0f);
  const std::vector<float> b = iota(3 * 4, -100.0f, 7.0f);
  std::vector<float> want(a.size());
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 3; ++j)
      for (int k = 0; k < 4; ++k)
        for (int l = 0; l < 5; ++l) {
          const int at = ((i * 3 + j) * 4 + k) * 5 + l;
          want[static_cast<std::size_t>(at)] = a[static_cast<std::size_t>(at)] + b[static_cast<std::size_t>(j * 4 + k)];
        }
  for (const Config& c : kConfigs) {
    EXPECT_EQ(run6("Add", {{"a", f32({2, 3, 4, 5}, a)}, {"b", f32({3, 4}, b)}},
                   {int_attr("broadcast", 1), int_attr("axis", 1)}, c),
              want);
  }
}

// Without `axis`, suffix matching: Sub-6 of B (5,) against A (2, 5); with axis = 0 a B of (2, 1)
// (the pytorch exporter's size-1 case) meets rows, its extent 1 repeated along axis 1.
TEST(OpsLegacyOpset, SuffixMatchingAndExtentOne) {
  for (const Config& c : kConfigs) {
    EXPECT_EQ(run6("Sub", {{"a", f32({2, 5}, iota(10, 0.0f, 1.0f))}, {"b", f32({5}, {1, 2, 3, 4, 5})}},
                   {int_attr("broadcast", 1)}, c),
              (std::vector<float>{-1, -1, -1, -1, -1, 4, 4, 4, 4, 4}));
    EXPECT_EQ(run6("Mul", {{"a", f32({2, 3}, {1, 2, 3, 4, 5, 6})}, {"b", f32({2, 1}, {10, -1})}},
                   {int_attr("broadcast", 1), int_attr("axis", 0)}, c),
              (std::vector<float>{10, 20, 30, -4, -5, -6}));
    // A one-element B of any rank up to A's.
    EXPECT_EQ(run6("Div", {{"a", f32({2, 2}, {2, 4, 6, 8})}, {"b", f32({1, 1}, {2})}}, {int_attr("broadcast", 1)}, c),
              (std::vector<float>{1, 2, 3, 4}));
    // Pow-1 (served for graphs of opsets 1 to 6), same rule.
    EXPECT_EQ(run6("Pow", {{"a", f32({2, 2}, {2, 3, 4, 5})}, {"b", f32({2}, {2, 1})}}, {int_attr("broadcast", 1)}, c),
              (std::vector<float>{4, 3, 16, 5}));
  }
}

TEST(OpsLegacyOpset, RefusesWhatTheRuleDoesNotAllow) {
  const Config ref{EngineKind::Reference, ExecutionMode::Fast};
  const Tensor a = f32({2, 3}, iota(6, 0.0f, 1.0f));
  // broadcast = 0 (the default) needs one shape.
  EXPECT_EQ(session_error_kind_of([&] { run6("Add", {{"a", a}, {"b", f32({3}, {1, 2, 3})}}, {}, ref); }),
            SessionErrorKind::InvalidModel);
  // An extent other than A's or 1 at the aligned axis; an axis that puts B past A's end.
  EXPECT_EQ(session_error_kind_of([&] {
              run6("Add", {{"a", a}, {"b", f32({2}, {1, 2})}}, {int_attr("broadcast", 1)}, ref);
            }),
            SessionErrorKind::InvalidModel);
  EXPECT_EQ(session_error_kind_of([&] {
              run6("Add", {{"a", a}, {"b", f32({3}, {1, 2, 3})}}, {int_attr("broadcast", 1), int_attr("axis", 2)}, ref);
            }),
            SessionErrorKind::InvalidModel);
  // B of a higher rank than A; a broadcast value other than 0 or 1.
  EXPECT_EQ(session_error_kind_of([&] {
              run6("Add", {{"a", f32({3}, {1, 2, 3})}, {"b", f32({1, 3}, {1, 2, 3})}}, {int_attr("broadcast", 1)}, ref);
            }),
            SessionErrorKind::InvalidModel);
  EXPECT_EQ(session_error_kind_of([&] { run6("Add", {{"a", a}, {"b", a}}, {int_attr("broadcast", 2)}, ref); }),
            SessionErrorKind::InvalidModel);
}

// PRelu-6: a 1-D slope of the channel count meets axis 1 ("shared across different channels" when
// it is one value).
TEST(OpsLegacyOpset, PReluSlopePerChannel) {
  const std::vector<float> x{-1, 2, -3, 4, -5, 6, -1, -2, -3, -4, -5, -6};  // (2, 3, 2)
  const std::vector<float> slope{0.5f, 2.0f, -1.0f};
  std::vector<float> want(x.size());
  for (int n = 0; n < 2; ++n)
    for (int ch = 0; ch < 3; ++ch)
      for (int w = 0; w < 2; ++w) {
        const std::size_t at = static_cast<std::size_t>((n * 3 + ch) * 2 + w);
        want[at] = x[at] < 0 ? slope[static_cast<std::size_t>(ch)] * x[at] : x[at];
      }
  for (const Config& c : kConfigs) {
    EXPECT_EQ(run6("PRelu", {{"x", f32({2, 3, 2}, x)}, {"slope", f32({3}, slope)}}, {}, c), want);
  }
  EXPECT_EQ(session_error_kind_of([&] {
              run6("PRelu", {{"x", f32({2, 3, 2}, x)}, {"slope", f32({2}, {1, 2})}}, {}, kConfigs[0]);
            }),
            SessionErrorKind::InvalidModel);
}

// BatchNormalization-6 serves test mode only.
TEST(OpsLegacyOpset, BatchNormalizationNeedsTestMode) {
  const std::vector<NodeInput> in{{"x", f32({1, 2, 1}, {1, 2})}, {"scale", f32({2}, {1, 1})}, {"b", f32({2}, {0, 0})},
                                  {"mean", f32({2}, {0, 0})},    {"var", f32({2}, {1, 1})}};
  EXPECT_EQ(session_error_kind_of([&] { run6("BatchNormalization", in, {}, kConfigs[0]); }),
            SessionErrorKind::Unsupported);
  for (const Config& c : kConfigs) {
    const std::vector<float> y = run6("BatchNormalization", in, {int_attr("is_test", 1), float_attr("epsilon", 0.0f)}, c);
    EXPECT_EQ(y, (std::vector<float>{1, 2}));
  }
}

}  // namespace
}  // namespace onemodel
