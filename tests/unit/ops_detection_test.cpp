// NonMaxSuppression and RoiAlign (spec/ops/detection.md): the order and tie rules worked by hand,
// a NaN score, RoiAlign's one-sample bin, and the refusals. The backend cases and the oracle family `breadth` check the rest.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "onemodel/session.hpp"
#include "tests/support/ir_builder.hpp"

namespace onemodel {
namespace {

using namespace ir_builder;

Tensor f32(const Shape& shape, std::vector<float> v) {
  return Tensor::from_values<float>(DType::F32, shape, std::span<const float>(v));
}

std::vector<std::int64_t> nms(const std::vector<float>& boxes, const std::vector<float>& scores, std::int64_t max_out,
                              float iou) {
  const std::int64_t count = static_cast<std::int64_t>(scores.size());
  return run_one_node("NonMaxSuppression", 11,
                      {{"b", f32({1, count, 4}, boxes)},
                       {"s", f32({1, 1, count}, scores)},
                       {"m", Tensor::from_values<std::int64_t>(DType::I64, Shape{}, {max_out})},
                       {"i", Tensor::from_values<float>(DType::F32, Shape{}, {iou})}},
                      {unshaped_tensor_value_info("y", 7)}, {}, ExecutionMode::Exact)
      .at(0)
      .to_vector<std::int64_t>();
}

TEST(OpsDetection, OrderTiesAndSuppression) {
  // Boxes 0 and 1 overlap with IoU 1/3 (areas 2 and 2, intersection 1); box 2 is apart. Scores
  // 0.5, 0.9, 0.5: box 1 first, then the tie 0 / 2 by index. With threshold 0.3 box 0 falls.
  const std::vector<float> boxes{0, 0, 1, 2, 0, 1, 1, 3, 5, 5, 6, 6};
  EXPECT_EQ(nms(boxes, {0.5f, 0.9f, 0.5f}, 10, 0.3f), (std::vector<std::int64_t>{0, 0, 1, 0, 0, 2}));
  // With threshold 1/3 exactly nothing exceeds it: all three, in score order.
  EXPECT_EQ(nms(boxes, {0.5f, 0.9f, 0.5f}, 10, 0.34f), (std::vector<std::int64_t>{0, 0, 1, 0, 0, 0, 0, 0, 2}));
  // The limit keeps the first one; a NaN score is never a candidate.
  EXPECT_EQ(nms(boxes, {0.5f, 0.9f, 0.5f}, 1, 0.3f), (std::vector<std::int64_t>{0, 0, 1}));
  EXPECT_EQ(nms(boxes, {0.5f, std::numeric_limits<float>::quiet_NaN(), 0.5f}, 10, 0.3f),
            (std::vector<std::int64_t>{0, 0, 0, 0, 0, 2}));
}

TEST(OpsDetection, Refusals) {
  const std::vector<float> boxes{0, 0, 1, 1};
  EXPECT_EQ(session_error_kind_of([&] { nms(boxes, {1}, -1, 0.5f); }), SessionErrorKind::InvalidInput);
  EXPECT_EQ(session_error_kind_of([&] { nms(boxes, {1}, 1, 1.5f); }), SessionErrorKind::InvalidInput);
  EXPECT_EQ(session_error_kind_of([&] {
              run_one_node("NonMaxSuppression", 11, {{"b", f32({1, 1, 3}, {0, 0, 1})}, {"s", f32({1, 1, 1}, {1})}},
                           {unshaped_tensor_value_info("y", 7)}, {}, ExecutionMode::Fast);
            }),
            SessionErrorKind::InvalidInput);
}

// Section 2: a roi over the 2 x 2 map with one sample at its centre (0.5, 0.5): avg is the
// bilinear value 2.5, max the largest weighted neighbour 0.25 * 4 = 1.
TEST(OpsDetection, RoiAlignOneSample) {
  const Tensor x = f32({1, 1, 2, 2}, {1, 2, 3, 4});
  const Tensor rois = f32({1, 4}, {0, 0, 1, 1});
  for (const char* mode : {"avg", "max"}) {
    for (ExecutionMode m : {ExecutionMode::Fast, ExecutionMode::Exact}) {
      const std::vector<float> y =
          run_one_node("RoiAlign", 10,
                       {{"x", x}, {"rois", rois}, {"i", Tensor::from_values<std::int64_t>(DType::I64, Shape{1}, {0})}},
                       {unshaped_tensor_value_info("y", 1)}, {string_attr("mode", mode)}, m)
              .at(0)
              .to_vector<float>();
      EXPECT_EQ(y, (std::vector<float>{std::string(mode) == "avg" ? 2.5f : 1.0f})) << mode;
    }
  }
  EXPECT_EQ(session_error_kind_of([&] {
              run_one_node("RoiAlign", 10,
                           {{"x", x}, {"rois", rois}, {"i", Tensor::from_values<std::int64_t>(DType::I64, Shape{1}, {1})}},
                           {unshaped_tensor_value_info("y", 1)}, {}, ExecutionMode::Fast);
            }),
            SessionErrorKind::InvalidInput);
}

}  // namespace
}  // namespace onemodel
