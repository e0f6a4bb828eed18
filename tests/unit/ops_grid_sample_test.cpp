// GridSample (spec/ops/grid-sample.md): values worked by hand from sections 2-4, the NaN and far
// positions of section 3, and the refusals of section 1. ONNX Runtime's values are checked by the
// oracle family `breadth`, the backend data by conformance; exact mode gives the same bits as
// fast mode (one arithmetic).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "onemodel/session.hpp"
#include "tests/support/ir_builder.hpp"

namespace onemodel {
namespace {

using namespace ir_builder;

Tensor f32(const Shape& shape, std::vector<float> v) {
  return Tensor::from_values<float>(DType::F32, shape, std::span<const float>(v));
}

std::vector<float> sample(const std::vector<float>& grid_xy, std::vector<IrAttribute> attrs, std::int64_t opset = 20,
                          ExecutionMode mode = ExecutionMode::Fast) {
  const Tensor x = f32({1, 1, 2, 2}, {1, 2, 3, 4});
  const std::int64_t points = static_cast<std::int64_t>(grid_xy.size() / 2);
  const Tensor grid = f32({1, 1, points, 2}, grid_xy);
  return run_one_node("GridSample", opset, {{"x", x}, {"grid", grid}}, {unshaped_tensor_value_info("y", 1)},
                      std::move(attrs), mode)
      .at(0)
      .to_vector<float>();
}

// align_corners = 1: -1 and 1 are the corner pixels' centres; (0, 0) lies between all four.
TEST(OpsGridSample, LinearAtCornersAndCentre) {
  for (ExecutionMode mode : {ExecutionMode::Fast, ExecutionMode::Exact}) {
    EXPECT_EQ(sample({-1, -1, 1, 1, 0, 0, 1, -1}, {int_attr("align_corners", 1)}, 20, mode),
              (std::vector<float>{1, 4, 2.5f, 2}));
  }
  // align_corners = 0, zeros padding: x = ((g + 1) * 2 - 1) / 2; g = -1 gives -0.5, halfway
  // between the padding 0 and pixel 1 on both axes: 0.25 * 1.
  EXPECT_EQ(sample({-1, -1}, {}), (std::vector<float>{0.25f}));
  // Border padding clamps the position to the corner pixel.
  EXPECT_EQ(sample({-1, -1}, {string_attr("padding_mode", "border")}), (std::vector<float>{1}));
}

// Section 2: nearest rounds halfway positions to the even index: (0.5, 0.5) reads pixel (0, 0).
TEST(OpsGridSample, NearestTiesToEven) {
  EXPECT_EQ(sample({0, 0}, {string_attr("mode", "nearest"), int_attr("align_corners", 1)}), (std::vector<float>{1}));
  // Position 1.5 on both axes rounds to 2, outside: zeros padding reads 0.
  EXPECT_EQ(sample({2, 2}, {string_attr("mode", "nearest"), int_attr("align_corners", 1)}), (std::vector<float>{0}));
}

// Section 3: a NaN position gives NaN; one far outside with zeros padding reads 0.
TEST(OpsGridSample, NanAndFarPositions) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  for (const char* mode : {"linear", "nearest", "cubic"}) {
    const std::vector<float> y = sample({nan, 0, 1e30f, 0, -1e30f, 3e9f}, {string_attr("mode", mode)});
    ASSERT_EQ(y.size(), 3u);
    EXPECT_TRUE(std::isnan(y[0])) << mode;
    EXPECT_EQ(y[1], 0.0f) << mode;
    EXPECT_EQ(y[2], 0.0f) << mode;
  }
}

TEST(OpsGridSample, Refusals) {
  // Mode names belong to their opset.
  EXPECT_EQ(session_error_kind_of([&] { sample({0, 0}, {string_attr("mode", "bilinear")}, 20); }),
            SessionErrorKind::InvalidModel);
  EXPECT_EQ(session_error_kind_of([&] { sample({0, 0}, {string_attr("mode", "linear")}, 16); }),
            SessionErrorKind::InvalidModel);
  EXPECT_EQ(session_error_kind_of([&] { sample({0, 0}, {string_attr("padding_mode", "wrap")}); }),
            SessionErrorKind::InvalidModel);
  // A grid whose last extent is not the spatial rank, as the model declares the shapes.
  EXPECT_EQ(session_error_kind_of([&] {
              run_one_node("GridSample", 20,
                           {{"x", f32({1, 1, 2, 2}, {1, 2, 3, 4})}, {"grid", f32({1, 1, 1, 3}, {0, 0, 0})}},
                           {unshaped_tensor_value_info("y", 1)}, {}, ExecutionMode::Fast);
            }),
            SessionErrorKind::InvalidModel);
}

// Section 5: the identity theta returns the base positions; with align_corners = 1 and 2 x 2
// they are the corners, x innermost.
TEST(OpsAffineGrid, IdentityGivesTheBasePositions) {
  const Tensor theta = f32({1, 2, 3}, {1, 0, 0, 0, 1, 0});
  const Tensor size = Tensor::from_values<std::int64_t>(DType::I64, Shape{4}, {1, 1, 2, 2});
  for (ExecutionMode mode : {ExecutionMode::Fast, ExecutionMode::Exact}) {
    EXPECT_EQ(run_one_node("AffineGrid", 20, {{"theta", theta}, {"size", size}}, {unshaped_tensor_value_info("y", 1)},
                           {int_attr("align_corners", 1)}, mode)
                  .at(0)
                  .to_vector<float>(),
              (std::vector<float>{-1, -1, 1, -1, -1, 1, 1, 1}));
  }
  // align_corners = 0: the pixel centres -0.5 and 0.5; a translation adds to every position.
  const Tensor shifted = f32({1, 2, 3}, {1, 0, 0.25f, 0, 1, -1});
  EXPECT_EQ(run_one_node("AffineGrid", 20, {{"theta", shifted}, {"size", size}}, {unshaped_tensor_value_info("y", 1)}, {},
                         ExecutionMode::Exact)
                .at(0)
                .to_vector<float>(),
            (std::vector<float>{-0.25f, -1.5f, 0.75f, -1.5f, -0.25f, -0.5f, 0.75f, -0.5f}));
  // A theta for 3-D with a 2-D size.
  EXPECT_EQ(session_error_kind_of([&] {
              run_one_node("AffineGrid", 20, {{"theta", f32({1, 3, 4}, std::vector<float>(12, 0))}, {"size", size}},
                           {unshaped_tensor_value_info("y", 1)}, {}, ExecutionMode::Fast);
            }),
            SessionErrorKind::InvalidInput);
}

}  // namespace
}  // namespace onemodel
