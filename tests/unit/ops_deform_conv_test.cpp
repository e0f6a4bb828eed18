// DeformConv in the reference engine (spec/ops/products-conv.md section 15). Expected values are
// worked by hand from the section's rules with inputs chosen so every step is exact; none comes
// from running the code under test. ONNX Runtime's values are checked by the oracle family
// `newattn`, the backend data by conformance.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "onemodel/session.hpp"
#include "onemodel/session_error.hpp"
#include "tests/support/ir_builder.hpp"

namespace onemodel {
namespace {

using namespace ir_builder;

constexpr float kInf = std::numeric_limits<float>::infinity();

Tensor f32(const Shape& shape, std::vector<float> v) { return Tensor::from_values<float>(DType::F32, shape, v); }

struct Inputs {
  Tensor x, w, offset;
  Tensor bias, mask;  // undefined: omitted
};

std::vector<float> deform(const Inputs& in, std::vector<IrAttribute> attrs = {}, ExecutionMode mode = ExecutionMode::Fast,
                          std::int64_t opset = 22) {
  std::vector<NodeInput> inputs{{"x", in.x}, {"w", in.w}, {"offset", in.offset}};
  inputs.push_back(in.bias.defined() ? NodeInput{"b", in.bias} : NodeInput{"", Tensor()});
  if (in.mask.defined()) inputs.push_back({"mask", in.mask});
  return run_one_node("DeformConv", opset, inputs, {unshaped_tensor_value_info("y", 1)}, std::move(attrs), mode,
                      /*ir_version=*/10)
      .at(0)
      .to_vector<float>();
}

// Zero offsets give Conv: X = 1..9 (3 x 3), W = [1, 2; 3, 4]: y(0,0) = 1 + 4 + 12 + 20 = 37, then
// 47, 67, 77. Opsets 19 and 22 share the kernel.
TEST(DeformConv, ZeroOffsetsAreAConvolution) {
  const Inputs in{f32({1, 1, 3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9}), f32({1, 1, 2, 2}, {1, 2, 3, 4}),
                  f32({1, 8, 2, 2}, std::vector<float>(32, 0.0f)), {}, {}};
  for (ExecutionMode mode : {ExecutionMode::Fast, ExecutionMode::Exact}) {
    for (std::int64_t opset : {19, 22}) EXPECT_EQ(deform(in, {}, mode, opset), (std::vector<float>{37, 47, 67, 77}));
  }
}

// Bilinear samples with a 1 x 1 kernel on X = [1, 2; 3, 4]. Offsets (0.5, 0.5) everywhere: (0, 0)
// reads the four pixels at 0.25 each: 2.5; (0, 1) samples (0.5, 1.5), whose right corners are
// outside (+0): 0.25 * 2 + 0.25 * 4 = 1.5; (1, 0): 0.25 * 3 + 0.25 * 4 = 1.75; (1, 1): 1.
TEST(DeformConv, BilinearSamplesWithCornersOutside) {
  std::vector<float> offset(8, 0.5f);
  const Inputs in{f32({1, 1, 2, 2}, {1, 2, 3, 4}), f32({1, 1, 1, 1}, {1}), f32({1, 2, 2, 2}, offset), {}, {}};
  EXPECT_EQ(deform(in, {}, ExecutionMode::Exact), (std::vector<float>{2.5f, 1.5f, 1.75f, 1}));
}

// Offset channel 2k moves the row and 2k + 1 the column: a row offset of 0.5 at output (0, 0)
// gives 0.5 * 1 + 0.5 * 3 = 2 (a column offset would give 1.5). A mask of 0.5 halves the sample,
// and the bias is added after the sum.
TEST(DeformConv, RowOffsetFirstThenMaskAndBias) {
  std::vector<float> offset(8, 0.0f);
  offset[0] = 0.5f;  // channel 0 (row), output (0, 0)
  Inputs in{f32({1, 1, 2, 2}, {1, 2, 3, 4}), f32({1, 1, 1, 1}, {1}), f32({1, 2, 2, 2}, offset), {}, {}};
  EXPECT_EQ(deform(in), (std::vector<float>{2, 2, 3, 4}));
  in.mask = f32({1, 1, 2, 2}, {0.5f, 1, 1, 2});
  in.bias = f32({1}, {10});
  EXPECT_EQ(deform(in), (std::vector<float>{11, 12, 13, 18}));
}

// Section 15, "The choice at the border": a sample at exactly py = -1 has weight 0 on row 0 and
// still reads it, so an infinite value there gives 0 * inf = NaN; at py = -1.5 every corner is
// outside: +0. A NaN offset gives NaN.
TEST(DeformConv, BorderChoiceAndNanOffsets) {
  const Tensor x = f32({1, 1, 2, 2}, {kInf, 1, 1, 1});
  const Tensor w = f32({1, 1, 1, 1}, {1});
  std::vector<float> offset(8, 0.0f);
  offset[0] = -1.0f;                                        // output (0, 0): py = -1
  offset[1] = -1.5f;                                        // output (0, 1): py = -1.5
  offset[4 + 2] = std::numeric_limits<float>::quiet_NaN();  // output (1, 0): px = NaN
  const std::vector<float> y = deform({x, w, f32({1, 2, 2, 2}, offset), {}, {}}, {}, ExecutionMode::Exact);
  EXPECT_TRUE(std::isnan(y.at(0)));
  EXPECT_EQ(float_bits(y.at(1)), 0u);
  EXPECT_TRUE(std::isnan(y.at(2)));
  EXPECT_EQ(y.at(3), 1.0f);
}

// offset_group = 2 over C = 2: channel 0 takes offset channels 0-1, channel 1 channels 2-3. With a
// 1 x 1 kernel, W = [1, 1] and X channel 0 = [1, 2], channel 1 = [10, 20] (1 x 2): a column offset
// of 1 for channel 1 only at output (0, 0) gives 1 + 20 = 21; (0, 1) reads 2 + (outside +0) = 2.
TEST(DeformConv, OffsetGroupsMoveTheirOwnChannels) {
  std::vector<float> offset(8, 0.0f);
  offset[3 * 2 + 0] = 1.0f;  // offset channel 3 (group 1's column), output (0, 0)
  offset[3 * 2 + 1] = 1.0f;  // and output (0, 1)
  const Inputs in{f32({1, 2, 1, 2}, {1, 2, 10, 20}), f32({1, 2, 1, 1}, {1, 1}), f32({1, 4, 1, 2}, offset), {}, {}};
  EXPECT_EQ(deform(in, {int_attr("offset_group", 2)}), (std::vector<float>{21, 2}));
  // group = 2: output channel m reads input channel m only.
  const Inputs grouped{f32({1, 2, 1, 2}, {1, 2, 10, 20}), f32({2, 1, 1, 1}, {1, 3}), f32({1, 2, 1, 2}, {0, 0, 0, 0}), {}, {}};
  EXPECT_EQ(deform(grouped, {int_attr("group", 2)}), (std::vector<float>{1, 2, 30, 60}));
}

// Section 2's order inside one output: samples [1, 2^24, -2^24] with weights [1, 1, 1] (a 1 x 3
// kernel, zero offsets) sum to 0 in increasing tap order; decreasing order would give 1.
TEST(DeformConv, TapsAddInIncreasingOrder) {
  const float big = 16777216.0f;
  const Inputs in{f32({1, 1, 1, 3}, {1, big, -big}), f32({1, 1, 1, 3}, {1, 1, 1}), f32({1, 6, 1, 1}, std::vector<float>(6, 0)),
                  {}, {}};
  for (ExecutionMode mode : {ExecutionMode::Fast, ExecutionMode::Exact}) {
    EXPECT_EQ(float_bits(deform(in, {}, mode).at(0)), 0u);
  }
}

TEST(DeformConv, Refusals) {
  const auto kind = [](const std::function<void()>& f) { return session_error_kind_of(f); };
  const Tensor x = f32({1, 2, 3, 3}, std::vector<float>(18, 1));
  const Tensor w = f32({2, 2, 2, 2}, std::vector<float>(16, 1));
  const Tensor offset = f32({1, 8, 2, 2}, std::vector<float>(32, 0));
  EXPECT_EQ(deform({x, w, offset, {}, {}}).size(), 8u);  // the base case runs
  // offset: wrong channel count, wrong spatial extents.
  EXPECT_EQ(kind([&] { deform({x, w, f32({1, 6, 2, 2}, std::vector<float>(24, 0)), {}, {}}); }),
            SessionErrorKind::InvalidModel);
  EXPECT_EQ(kind([&] { deform({x, w, f32({1, 8, 3, 3}, std::vector<float>(72, 0)), {}, {}}); }),
            SessionErrorKind::InvalidModel);
  // mask of the wrong channel count; bias of the wrong length.
  EXPECT_EQ(kind([&] { deform({x, w, offset, {}, f32({1, 8, 2, 2}, std::vector<float>(32, 1))}); }),
            SessionErrorKind::InvalidModel);
  EXPECT_EQ(kind([&] { deform({x, w, offset, f32({3}, {1, 2, 3}), {}}); }), SessionErrorKind::InvalidModel);
  // C not a multiple of offset_group; W's channels times group not C; group 0; kernel_shape not W's.
  EXPECT_EQ(kind([&] { deform({x, w, offset, {}, {}}, {int_attr("offset_group", 3)}); }), SessionErrorKind::InvalidModel);
  EXPECT_EQ(kind([&] { deform({x, w, offset, {}, {}}, {int_attr("group", 2)}); }), SessionErrorKind::InvalidModel);
  EXPECT_EQ(kind([&] { deform({x, w, offset, {}, {}}, {int_attr("group", 0)}); }), SessionErrorKind::InvalidModel);
  EXPECT_EQ(kind([&] { deform({x, w, offset, {}, {}}, {ints_attr("kernel_shape", {3, 3})}); }),
            SessionErrorKind::InvalidModel);
  EXPECT_EQ(kind([&] { deform({x, w, offset, {}, {}}, {string_attr("auto_pad", "SAME_UPPER")}); }),
            SessionErrorKind::InvalidModel);
  // Inputs of different element types; one spatial axis (valid ONNX that this library does not serve).
  EXPECT_EQ(kind([&] {
              deform({f32({1, 2, 3}, std::vector<float>(6, 1)), f32({2, 2, 2}, std::vector<float>(8, 1)),
                      f32({1, 2, 2}, std::vector<float>(4, 0)), {}, {}});
            }),
            SessionErrorKind::Unsupported);
  const Tensor xd = Tensor::from_values<double>(DType::F64, Shape{1, 2, 3, 3}, std::vector<double>(18, 1.0));
  EXPECT_EQ(kind([&] { deform({xd, w, offset, {}, {}}); }), SessionErrorKind::InvalidModel);
  // An integer X is not a type of the operator.
  const Tensor xi = Tensor::from_values<std::int32_t>(DType::I32, Shape{1, 2, 3, 3}, std::vector<std::int32_t>(18, 1));
  EXPECT_EQ(kind([&] { deform({xi, w, offset, {}, {}}); }), SessionErrorKind::Unsupported);
}

// float64 runs the same rules in binary64: the half-pixel samples of BilinearSamplesWithCornersOutside,
// plus a bias of 0.125, and a row offset of 2^-40 that float32 could not hold beside 1 (1 + 2^-40
// rounds to 1 there) but binary64 keeps: 1 * (1 - 2^-40) + 3 * 2^-40 = 1 + 2^-39.
TEST(DeformConv, Float64) {
  const auto f64 = [](const Shape& shape, std::vector<double> v) { return Tensor::from_values<double>(DType::F64, shape, v); };
  const Tensor x = f64({1, 1, 2, 2}, {1, 2, 3, 4});
  const Tensor w = f64({1, 1, 1, 1}, {1});
  const auto run = [&](const Tensor& offset, ExecutionMode mode) {
    return run_one_node("DeformConv", 22, {{"x", x}, {"w", w}, {"offset", offset}, {"b", f64({1}, {0.125})}},
                        {unshaped_tensor_value_info("y", 11)}, {}, mode, 10)
        .at(0)
        .to_vector<double>();
  };
  for (ExecutionMode mode : {ExecutionMode::Fast, ExecutionMode::Exact}) {
    EXPECT_EQ(run(f64({1, 2, 2, 2}, std::vector<double>(8, 0.5)), mode), (std::vector<double>{2.625, 1.625, 1.875, 1.125}));
    const double tiny = std::ldexp(1.0, -40);
    EXPECT_EQ(run(f64({1, 2, 2, 2}, {tiny, 0, 0, 0, 0, 0, 0, 0}), mode).at(0), 1.0 + std::ldexp(1.0, -39) + 0.125);
  }
}

}  // namespace
}  // namespace onemodel
