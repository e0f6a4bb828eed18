// Differential tests of the ConvInteger and QLinearConv overrides (optimized/ops/op_integer_conv.cpp:
// im2col and the integer product kernel of int8.md) against the reference kernels through
// diff/op_harness.hpp: the reference's bits in both modes on every path of this machine at 1 and 2
// threads, over geometries with strides, asymmetric pads, dilations, groups (depthwise included)
// and one to three spatial axes, uint8 and int8 inputs and weights in every mix, the weight zero
// point per tensor and per output channel, and QLinearConv's per-channel scales and int32 bias.
// Padding taps must contribute nothing (they hold the input's zero point).
// Second test: the direct depthwise kernel (channel multipliers 1 to 3, kernels up to 5x5,
// strides, dilations, asymmetric pads, rows long enough for every vector width and a tail, 1-D
// and 3-D), the product path's column blocks (more than 256 output positions, split between two
// threads with few output channels), runtime (non-constant) weights, and QLinearConv's epilogue
// with scales holding NaN, infinities, -0, 0 and extremes and biases near the int32 limits (the
// accumulator plus bias wraps modulo 2^32).
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "diff/op_harness.hpp"
#include "tests/support/diff_test_helpers.hpp"
#include "tests/support/ir_builder.hpp"

namespace onemodel::diff {
namespace {

using ir_builder::int_attr;
using ir_builder::ints_attr;

Tensor bytes_tensor(DType type, const Shape& shape, std::mt19937& rng) {
  std::vector<std::uint8_t> v(static_cast<std::size_t>(shape.element_count()));
  for (auto& x : v) x = static_cast<std::uint8_t>(rng());
  return Tensor::from_bytes(type, shape, std::as_bytes(std::span<const std::uint8_t>(v)));
}

Tensor scales(const Shape& shape, std::mt19937& rng) {
  std::vector<float> v(static_cast<std::size_t>(shape.element_count()));
  for (float& x : v) x = static_cast<float>(rng() % 1000 + 1) / 65536.0f;
  return Tensor::from_values<float>(DType::F32, shape, std::span<const float>(v));
}

struct Geometry {
  std::vector<std::int64_t> x;  // N, C, spatial...
  std::int64_t m, group;
  std::vector<std::int64_t> kernel, strides, pads, dilations;
};

std::vector<Geometry> geometries() {
  return {
      {{1, 4, 9, 11}, 6, 1, {3, 3}, {1, 1}, {1, 1, 1, 1}, {1, 1}},
      {{2, 6, 10, 7}, 4, 2, {3, 2}, {2, 1}, {0, 1, 2, 0}, {1, 2}},
      {{1, 8, 12, 12}, 8, 8, {3, 3}, {2, 2}, {1, 1, 1, 1}, {1, 1}},  // depthwise
      {{1, 3, 17}, 5, 1, {4}, {3}, {2, 1}, {2}},                      // 1-D
      {{1, 2, 5, 6, 4}, 3, 1, {2, 3, 2}, {1, 2, 1}, {1, 0, 1, 0, 1, 1}, {1, 1, 2}},  // 3-D
      {{1, 16, 20, 20}, 70, 1, {1, 1}, {1, 1}, {0, 0, 0, 0}, {1, 1}},  // 1x1, two row blocks
  };
}

// Scales with the special values of the requantization (spec/ops/quantization.md section 10):
// NaN, +-inf, -0, 0, negative, a denormal, huge and tiny values beside ordinary ones.
Tensor special_scales(const Shape& shape, std::mt19937& rng) {
  const float specials[] = {std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity(),
                            -std::numeric_limits<float>::infinity(), -0.0f, 0.0f, -0.003f, 1e-40f, 1e30f, 1e-30f, 3.0f};
  std::vector<float> v(static_cast<std::size_t>(shape.element_count()));
  for (float& x : v) x = rng() % 2 == 0 ? specials[rng() % 10] : static_cast<float>(rng() % 1000 + 1) / 65536.0f;
  return Tensor::from_values<float>(DType::F32, shape, std::span<const float>(v));
}

OpCase conv_case(const Geometry& g, bool qlinear, DType tx, DType tw, bool per_channel, std::mt19937& rng) {
  std::vector<std::int64_t> w_shape{g.m, g.x[1] / g.group};
  w_shape.insert(w_shape.end(), g.kernel.begin(), g.kernel.end());
  const Shape xs{std::span<const std::int64_t>(g.x)};
  const Shape ws{std::span<const std::int64_t>(w_shape)};
  const Shape zw_shape = per_channel ? Shape{g.m} : Shape{};
  OpCase c;
  c.opset = 10;
  c.attributes = {int_attr("group", g.group), ints_attr("kernel_shape", g.kernel), ints_attr("strides", g.strides),
                  ints_attr("pads", g.pads), ints_attr("dilations", g.dilations)};
  if (!qlinear) {
    c.op = "ConvInteger";
    c.inputs = {bytes_tensor(tx, xs, rng), bytes_tensor(tw, ws, rng), bytes_tensor(tx, Shape{}, rng),
                bytes_tensor(tw, zw_shape, rng)};
    return c;
  }
  c.op = "QLinearConv";
  std::vector<std::int32_t> bias(static_cast<std::size_t>(g.m));
  for (auto& b : bias) b = static_cast<std::int32_t>(rng() % 40001) - 20000;
  c.inputs = {bytes_tensor(tx, xs, rng), scales(Shape{}, rng), bytes_tensor(tx, Shape{}, rng), bytes_tensor(tw, ws, rng),
              scales(zw_shape, rng), bytes_tensor(tw, zw_shape, rng), scales(Shape{}, rng), bytes_tensor(tx, Shape{}, rng),
              Tensor::from_values<std::int32_t>(DType::I32, Shape{g.m}, std::span<const std::int32_t>(bias))};
  return c;
}

TEST(DiffConvInteger, ReferenceBitsEverywhere) {
  CaseTally tally;
  std::mt19937 rng(41);
  const DType types[] = {DType::U8, DType::I8};
  for (const bool qlinear : {false, true}) {
    for (const Geometry& g : geometries()) {
      for (DType tx : types) {
        for (DType tw : types) {
          if (qlinear && tx != tw && rng() % 2 == 0) continue;  // every mix appears, not every pair of geometry
          for (const bool per_channel : {false, true}) {
            OpCase c = conv_case(g, qlinear, tx, tw, per_channel, rng);
            c.constant.assign(c.inputs.size(), true);
            c.constant[0] = false;
            const std::string d = test_helpers::compare_everywhere(c, &tally);
            EXPECT_TRUE(d.empty()) << d;
          }
        }
      }
    }
  }
  EXPECT_EQ(tally.fallback_cases, 0u) << tally.summary();
  EXPECT_GT(tally.override_cases, 40u) << tally.summary();
  EXPECT_GT(tally.shared_cases, 0u) << tally.summary();  // the 70-channel case splits into two row blocks
}

std::vector<Geometry> depthwise_and_block_geometries() {
  return {
      // Depthwise, multiplier 1: 3x3 stride 1 on rows of 37 (16 + 16 + tail), pads 1.
      {{1, 5, 9, 37}, 5, 5, {3, 3}, {1, 1}, {1, 1, 1, 1}, {1, 1}},
      // Multiplier 2, stride 2, asymmetric pads, dilation 2 across the row.
      {{2, 3, 11, 41}, 6, 3, {3, 3}, {2, 2}, {0, 2, 1, 0}, {1, 2}},
      // Multiplier 3, 5x5, stride 3 along the row, pads 2.
      {{1, 4, 12, 50}, 12, 4, {5, 5}, {1, 3}, {2, 2, 2, 2}, {1, 1}},
      // Windows larger than the input: taps fall on padding only.
      {{1, 2, 3, 4}, 4, 2, {3, 5}, {1, 1}, {2, 3, 2, 3}, {2, 1}},
      // 1-D and 3-D depthwise.
      {{1, 6, 70}, 6, 6, {7}, {2}, {3, 3}, {1}},
      {{1, 3, 4, 5, 20}, 6, 3, {3, 2, 3}, {1, 2, 1}, {1, 0, 1, 1, 1, 0}, {1, 1, 2}},
      // The product path in column blocks: 20x20 = 400 positions (two blocks of 256) with 4 output
      // channels and two groups, and a 1x1 layer of 300 positions.
      {{2, 4, 20, 20}, 4, 2, {3, 3}, {1, 1}, {1, 1, 1, 1}, {1, 1}},
      {{1, 8, 15, 20}, 5, 1, {1, 1}, {1, 1}, {0, 0, 0, 0}, {1, 1}},
      // A late layer's shape: 7x7 positions (one column block) and 200 output channels (more than
      // four of the kernel's 48-row blocks), and two groups of 150 channels at 1x1 over 2 images.
      {{1, 6, 7, 7}, 200, 1, {3, 3}, {1, 1}, {1, 1, 1, 1}, {1, 1}},
      {{2, 4, 5, 5}, 300, 2, {1, 1}, {1, 1}, {0, 0, 0, 0}, {1, 1}},
  };
}

TEST(DiffConvInteger, DepthwiseColumnBlocksRuntimeWeightsSpecialScales) {
  CaseTally tally;
  std::mt19937 rng(73);
  const DType types[] = {DType::U8, DType::I8};
  for (const Geometry& g : depthwise_and_block_geometries()) {
    for (const bool qlinear : {false, true}) {
      for (DType tx : types) {
        for (DType tw : types) {
          for (const bool per_channel : {false, true}) {
            OpCase c = conv_case(g, qlinear, tx, tw, per_channel, rng);
            const std::size_t w_in = qlinear ? 3 : 1;
            if (qlinear && rng() % 2 == 0) {
              // The epilogue's special values: scales with NaN, infinities and -0, biases near
              // the int32 limits.
              const Shape zw_shape = per_channel ? Shape{g.m} : Shape{};
              c.inputs[1] = special_scales(Shape{}, rng);
              c.inputs[4] = special_scales(zw_shape, rng);
              c.inputs[6] = special_scales(Shape{}, rng);
              std::vector<std::int32_t> bias(static_cast<std::size_t>(g.m));
              for (auto& b : bias) b = (rng() % 2 == 0 ? 2147483647 - static_cast<std::int32_t>(rng() % 1000)
                                                       : -2147483647 + static_cast<std::int32_t>(rng() % 1000));
              c.inputs[8] = Tensor::from_values<std::int32_t>(DType::I32, Shape{g.m}, std::span<const std::int32_t>(bias));
            }
            // Constant weights (prepared at plan time) and runtime ones (prepared per call).
            for (const bool w_constant : {true, false}) {
              OpCase run = c;
              run.constant.assign(run.inputs.size(), true);
              run.constant[0] = false;
              run.constant[w_in] = w_constant;
              const std::string d = test_helpers::compare_everywhere(run, &tally);
              EXPECT_TRUE(d.empty()) << d << " for x " << g.x.size() << "-D, m " << g.m << ", group " << g.group
                                     << (w_constant ? "" : " (runtime weights)");
            }
          }
        }
      }
    }
  }
  EXPECT_EQ(tally.fallback_cases, 0u) << tally.summary();
  EXPECT_GT(tally.override_cases, 200u) << tally.summary();
  EXPECT_EQ(tally.shared_cases, tally.cases) << tally.summary();  // every case splits between two threads
}

}  // namespace
}  // namespace onemodel::diff
