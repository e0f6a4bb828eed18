// Issue 10, defect 1: LayerNormalization and RMSNormalization take Scale and B of every shape that
// broadcasts unidirectionally to X (the ONNX operator text: "Scale and B should be unidirectional
// broadcastable to tensor X"; spec/ops/norms.md section 3), not only shapes that broadcast to the
// normalized dimensions. Expected values come from ONNX Runtime 1.31.1 (literals below), from
// runs of the same rows with per-column parameters of the shapes served before (bit for bit), and
// from the reference kernel (the optimized engine, every path, 1 and 2 threads, both modes).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "onemodel/session.hpp"
#include "tests/support/diff_test_helpers.hpp"
#include "tests/support/ir_builder.hpp"

namespace onemodel {
namespace {

using namespace ir_builder;

Tensor f32(const Shape& shape, std::vector<float> v) { return Tensor::from_values<float>(DType::F32, shape, v); }

// X [2, 3, 4]: ((k * 0.37 - 3.1)^2, negated when k % 3 == 0) in float32, k = 0..23, as numpy
// computed it for the ONNX Runtime run below.
const std::vector<float> kX = {
    -9.609999656677246f,  7.452899932861328f,    5.569599628448486f,  -3.960099458694458f, 2.6243996620178223f,
    1.562499761581421f,   -0.7743997573852539f,  0.26009973883628845f, 0.01959996297955513f,
    -0.052900008857250214f, 0.3600001633167267f, 0.9409005045890808f, -1.795600414276123f, 2.924100160598755f,
    4.326401710510254f,   -6.002501487731934f,   7.952401161193848f,  10.176100730895996f, -12.673599243164062f,
    15.444902420043945f,  18.490001678466797f,   -21.808900833129883f, 25.40160369873047f, 29.268102645874023f};
const std::vector<float> kScale214 = {0.5f, -1.25f, 2.0f, 0.75f, 1.5f, 0.25f, -0.5f, 3.0f};  // [2, 1, 4]
const std::vector<float> kBias131 = {0.125f, -2.0f, 10.0f};                                   // [1, 3, 1]
const std::vector<float> kScale231 = {0.5f, -1.25f, 2.0f, 0.75f, 1.5f, 0.25f};                // [2, 3, 1]

Tensor run_norm(const std::string& op, const std::vector<NodeInput>& inputs, ExecutionMode mode) {
  const std::int64_t opset = op == "LayerNormalization" ? 17 : 23;
  return run_one_node(op, opset, inputs, {unshaped_tensor_value_info("y", 1)}, {int_attr("axis", -1)}, mode).at(0);
}

void expect_near_ort(const Tensor& y, const std::vector<float>& ort) {
  const std::span<const float> got = y.data<float>();
  ASSERT_EQ(got.size(), ort.size());
  for (std::size_t i = 0; i < ort.size(); ++i) {
    // Another summation order than ONNX Runtime's: a few ulp of the row's scale.
    EXPECT_NEAR(got[i], ort[i], 2e-6 * (1.0 + std::fabs(ort[i]))) << "element " << i;
  }
}

// ONNX Runtime 1.31.1 (CPUExecutionProvider, build/venv/bin/python, a one-node model made with
// onnx.helper at opset 17, axis -1) on kX, Scale kScale214 [2,1,4], B kBias131 [1,3,1].
TEST(NormsDefect, LayerNormalizationScaleAndBiasAcrossRowsMatchOnnxRuntime) {
  const std::vector<float> ort = {-0.554209292f, -1.23544765f, 1.76159513f,  -0.286177874f, -1.33706093f,
                                  -2.62588239f,  -4.63046408f, -2.38351393f, 9.62133121f,   11.1775274f,
                                  10.2195845f,   11.1921749f,  -0.485450208f, 0.31275624f,  -0.422541797f,
                                  -4.19242525f,  -1.61714458f, -1.88416684f, -1.16251969f, 0.869173348f,
                                  10.416173f,    9.57483482f,  9.69164467f,  12.4195042f};
  for (ExecutionMode mode : {ExecutionMode::Exact, ExecutionMode::Fast}) {
    const Tensor y = run_norm("LayerNormalization",
                              {{"x", f32(Shape{2, 3, 4}, kX)}, {"scale", f32(Shape{2, 1, 4}, kScale214)},
                               {"b", f32(Shape{1, 3, 1}, kBias131)}},
                              mode);
    expect_near_ort(y, ort);
  }
}

// ONNX Runtime 1.31.1 as above, RMSNormalization opset 23, scale kScale231 [2,3,1].
TEST(NormsDefect, RmsNormalizationScalePerRowMatchesOnnxRuntime) {
  const std::vector<float> ort = {-0.688892066f, 0.534260571f,  0.399256319f, -0.283879429f, -2.07515764f,
                                  -1.23549521f,  0.612331092f,  -0.205665305f, 0.0776991919f, -0.209708974f,
                                  1.42713141f,   3.72996688f,   -0.330230474f, 0.537773848f,  0.795672357f,
                                  -1.10392535f,  1.00282943f,   1.28324687f,  -1.59819138f,  1.94766378f,
                                  0.19196488f,   -0.226421997f, 0.263721764f, 0.303864092f};
  for (ExecutionMode mode : {ExecutionMode::Exact, ExecutionMode::Fast}) {
    expect_near_ort(run_norm("RMSNormalization", {{"x", f32(Shape{2, 3, 4}, kX)}, {"scale", f32(Shape{2, 3, 1}, kScale231)}},
                             mode),
                    ort);
  }
}

// Bit for bit: row (i, j) of the broadcast run equals a run of that row alone ([4]) with
// Scale = kScale214[i] ([4]) and B = kBias131[j] ([1]), shapes served before the fix; so the
// exact order of spec/ops/norms.md section 3 step 4 is kept with per-row parameters.
TEST(NormsDefect, BroadcastRowsEqualSeparateRowsBitForBit) {
  const Tensor y = run_norm("LayerNormalization",
                            {{"x", f32(Shape{2, 3, 4}, kX)}, {"scale", f32(Shape{2, 1, 4}, kScale214)},
                             {"b", f32(Shape{1, 3, 1}, kBias131)}},
                            ExecutionMode::Exact);
  const Tensor rms = run_norm("RMSNormalization",
                              {{"x", f32(Shape{2, 3, 4}, kX)}, {"scale", f32(Shape{2, 3, 1}, kScale231)}},
                              ExecutionMode::Exact);
  for (int i = 0; i < 2; ++i) {
    for (int j = 0; j < 3; ++j) {
      const std::size_t row = static_cast<std::size_t>(i * 3 + j);
      const std::vector<float> x(kX.begin() + static_cast<std::ptrdiff_t>(row * 4),
                                 kX.begin() + static_cast<std::ptrdiff_t>(row * 4 + 4));
      const std::vector<float> s(kScale214.begin() + i * 4, kScale214.begin() + i * 4 + 4);
      const Tensor alone = run_norm("LayerNormalization",
                                    {{"x", f32(Shape{4}, x)}, {"scale", f32(Shape{4}, s)},
                                     {"b", f32(Shape{1}, {kBias131[static_cast<std::size_t>(j)]})}},
                                    ExecutionMode::Exact);
      const Tensor rms_alone = run_norm(
          "RMSNormalization", {{"x", f32(Shape{4}, x)}, {"scale", f32(Shape{1}, {kScale231[row]})}}, ExecutionMode::Exact);
      for (std::size_t k = 0; k < 4; ++k) {
        EXPECT_EQ(float_bits(y.data<float>()[row * 4 + k]), float_bits(alone.data<float>()[k])) << row << "," << k;
        EXPECT_EQ(float_bits(rms.data<float>()[row * 4 + k]), float_bits(rms_alone.data<float>()[k])) << row << "," << k;
      }
    }
  }
}

// Scale [1, 1, 4] (the example) gives the bits of Scale [4].
TEST(NormsDefect, LeadingOnesGiveTheBitsOfTheShortParameter) {
  const std::vector<float> s = {0.5f, -1.25f, 2.0f, 0.75f};
  const std::vector<float> b = {1.0f, 2.0f, -3.0f, 0.5f};
  for (const char* op : {"LayerNormalization", "RMSNormalization"}) {
    std::vector<NodeInput> wide = {{"x", f32(Shape{2, 3, 4}, kX)}, {"scale", f32(Shape{1, 1, 4}, s)}};
    std::vector<NodeInput> short_ = {{"x", f32(Shape{2, 3, 4}, kX)}, {"scale", f32(Shape{4}, s)}};
    if (std::string(op) == "LayerNormalization") {
      wide.push_back({"b", f32(Shape{1, 1, 4}, b)});
      short_.push_back({"b", f32(Shape{4}, b)});
    }
    const Tensor a = run_norm(op, wide, ExecutionMode::Exact);
    const Tensor c = run_norm(op, short_, ExecutionMode::Exact);
    for (std::size_t k = 0; k < kX.size(); ++k) EXPECT_EQ(float_bits(a.data<float>()[k]), float_bits(c.data<float>()[k])) << op;
  }
}

// Shapes that do not broadcast to X stay InvalidModel: a larger rank, a wrong extent.
TEST(NormsDefect, NonBroadcastingParametersAreInvalidModel) {
  for (const char* op : {"LayerNormalization", "RMSNormalization"}) {
    for (const Shape& bad : {Shape{1, 2, 3, 4}, Shape{5}, Shape{3, 3, 4}, Shape{2, 3, 2}}) {
      const std::vector<float> v(static_cast<std::size_t>(bad.element_count()), 1.0f);
      EXPECT_EQ(SessionErrorKind::InvalidModel, session_error_kind_of([&] {
                  (void)run_norm(op, {{"x", f32(Shape{2, 3, 4}, kX)}, {"scale", f32(bad, v)}}, ExecutionMode::Exact);
                }))
          << op << " " << bad.to_string();
    }
    if (std::string(op) == "LayerNormalization") {
      EXPECT_EQ(SessionErrorKind::InvalidModel, session_error_kind_of([&] {
                  (void)run_norm(op,
                                 {{"x", f32(Shape{2, 3, 4}, kX)}, {"scale", f32(Shape{4}, {1, 1, 1, 1})},
                                  {"b", f32(Shape{2, 2, 1}, {1, 1, 1, 1})}},
                                 ExecutionMode::Exact);
                }));
    }
  }
}

// The optimized engine against the reference on every path, 1 and 2 threads, exact and fast,
// for parameters that differ between rows (including [4, 1, 1] on [4, 1, 4], whose element count
// equals the row length although it is one value per row), and wide rows for the vector bodies.
TEST(NormsDefect, OptimizedEqualsReferenceForBroadcastParameters) {
  using diff::OpCase;
  using diff::test_helpers::compare_everywhere;
  using diff::test_helpers::count_of;
  using diff::test_helpers::f32_tensor;
  struct Geometry {
    std::vector<std::int64_t> x, scale, bias;
    std::int64_t axis;
  };
  const std::vector<Geometry> geometries = {
      {{2, 3, 4}, {1, 1, 4}, {1, 1, 4}, -1},   {{2, 3, 4}, {2, 1, 4}, {1, 3, 1}, -1},
      {{2, 3, 4}, {2, 3, 1}, {2, 3, 4}, -1},   {{4, 1, 4}, {4, 1, 1}, {4, 1, 4}, -1},
      {{3, 5, 37}, {3, 1, 37}, {5, 1}, -1},    {{2, 7, 64}, {2, 7, 64}, {1, 7, 1}, 2},
      {{2, 3, 4, 20}, {2, 1, 4, 1}, {3, 1, 20}, 2}, {{6, 130}, {6, 1}, {1, 130}, 1},
      {{3, 5, 7}, {3, 1, 1}, {}, 1}};
  std::mt19937 rng(10);
  std::normal_distribution<float> normal(0.2f, 3.0f);
  auto values = [&](const std::vector<std::int64_t>& dims) {
    std::vector<float> v(static_cast<std::size_t>(count_of(dims)));
    for (float& f : v) f = normal(rng);
    return v;
  };
  for (const Geometry& g : geometries) {
    for (const char* op : {"LayerNormalization", "RMSNormalization"}) {
      OpCase c;
      c.op = op;
      c.opset = std::string(op) == "LayerNormalization" ? 17 : 23;
      c.attributes = {ir_builder::int_attr("axis", g.axis)};
      c.inputs.push_back(f32_tensor(g.x, values(g.x)));
      if (std::string(op) == "LayerNormalization" && !g.x.empty()) c.inputs[0].mutable_data<float>()[1] = NAN;
      c.inputs.push_back(f32_tensor(g.scale, values(g.scale)));
      if (std::string(op) == "LayerNormalization" && !g.bias.empty()) c.inputs.push_back(f32_tensor(g.bias, values(g.bias)));
      c.outputs = std::string(op) == "LayerNormalization" ? 3 : 1;
      EXPECT_EQ("", compare_everywhere(c)) << op << " x " << Shape(std::span<const std::int64_t>(g.x)).to_string();
    }
  }
}

}  // namespace
}  // namespace onemodel
