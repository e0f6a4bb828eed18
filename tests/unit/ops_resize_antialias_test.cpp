// Resize with antialias = 1 (spec/ops/products-conv.md section 10.6; the ONNX Resize text, opset
// 18+). Expected values from the onnx package's reference evaluator and ONNX Runtime 1.31.1, which
// agree on every value here (x = [1, 2, 4, 8, 3, 0, 5], scale 0.5 on the last axis, half_pixel).
// With scale 0.5 the filter weights are binary fractions, so most results are exact in float32.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "onemodel/session.hpp"
#include "tests/support/ir_builder.hpp"

namespace onemodel {
namespace {

using namespace ir_builder;

Tensor f32(const Shape& shape, std::vector<float> v) { return Tensor::from_values<float>(DType::F32, shape, v); }

std::vector<float> run_resize(const std::string& mode, std::int64_t antialias, std::int64_t exclude, std::vector<float> scales,
                          ExecutionMode m = ExecutionMode::Exact, EngineKind engine = EngineKind::Reference) {
  const std::vector<NodeInput> in{{"x", f32(Shape{1, 1, 1, 7}, {1, 2, 4, 8, 3, 0, 5})},
                                  {"", Tensor()},
                                  {"s", f32(Shape{4}, std::move(scales))}};
  IrModel model = one_node_model("Resize", 19, in, {unshaped_tensor_value_info("y", 1)},
                                 {string_attr("mode", mode), int_attr("antialias", antialias),
                                  int_attr("exclude_outside", exclude)});
  SessionOptions options;
  options.mode = m;
  options.engine = engine;
  return Session::create(std::move(model), options).run(feeds_of(in)).at(0).to_vector<float>();
}

// Linear: support start = floor(-1 / 0.5) + 1 = -1, 4 taps; output 0 at x = 0.5 reads indices
// -1 (clamped to 0), 0, 1, 2 with weights 0.25, 0.75, 0.75, 0.25 over 2: 1.75.
TEST(ResizeAntialias, LinearAndCubicDownscale) {
  for (ExecutionMode m : {ExecutionMode::Exact, ExecutionMode::Fast}) {
    for (EngineKind e : {EngineKind::Reference, EngineKind::Optimized}) {
      EXPECT_EQ(run_resize("linear", 1, 0, {1, 1, 1, 0.5f}, m, e), (std::vector<float>{1.75f, 5.125f, 2.75f}));
      EXPECT_EQ(run_resize("cubic", 1, 0, {1, 1, 1, 0.5f}, m, e), (std::vector<float>{1.427734375f, 5.76953125f, 2.421875f}));
    }
  }
  const std::vector<float> lin = run_resize("linear", 1, 1, {1, 1, 1, 0.5f});
  const std::vector<float> want_lin{1.8571428060531616f, 5.125f, 2.75f};
  const std::vector<float> cub = run_resize("cubic", 1, 1, {1, 1, 1, 0.5f});
  const std::vector<float> want_cub{1.4553014039993286f, 5.687139987945557f, 2.591240882873535f};
  ASSERT_EQ(lin.size(), 3u);
  ASSERT_EQ(cub.size(), 3u);
  for (std::size_t i = 0; i < 3; ++i) {
    EXPECT_NEAR(lin[i], want_lin[i], 1e-6) << i;
    EXPECT_NEAR(cub[i], want_cub[i], 1e-6) << i;
  }
}

// Upscaling axes and nearest mode are unaffected: the same bits as antialias = 0. A value other
// than 0 or 1 is InvalidModel.
TEST(ResizeAntialias, UpscaleAndNearestUnaffectedAndBadValueRefused) {
  EXPECT_EQ(run_resize("linear", 1, 0, {1, 1, 1, 1.5f}), run_resize("linear", 0, 0, {1, 1, 1, 1.5f}));
  EXPECT_EQ(run_resize("cubic", 1, 0, {1, 1, 1, 2.0f}), run_resize("cubic", 0, 0, {1, 1, 1, 2.0f}));
  EXPECT_EQ(run_resize("nearest", 1, 0, {1, 1, 1, 0.5f}), run_resize("nearest", 0, 0, {1, 1, 1, 0.5f}));
  EXPECT_NE(run_resize("linear", 1, 0, {1, 1, 1, 0.5f}), run_resize("linear", 0, 0, {1, 1, 1, 0.5f}));
  EXPECT_EQ(session_error_kind_of([&] { run_resize("linear", 2, 0, {1, 1, 1, 0.5f}); }), SessionErrorKind::InvalidModel);
}

}  // namespace
}  // namespace onemodel
