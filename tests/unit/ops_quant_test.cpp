// The reference engine's quantization operators (spec/ops/quantization.md). Every expected value
// is worked out by hand from the text (round half to even at .5 ties, saturation at both ends,
// per-axis and blocked scales, zero points); models are one node whose inputs are graph inputs.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <utility>

#include "onemodel/session.hpp"
#include "tests/support/ir_builder.hpp"

namespace onemodel {
namespace {

using namespace ir_builder;

// Runs one node of `op` at `opset` in the reference engine; output 0 is declared as `out_type`
// of `out_shape` and checked to be that.
Tensor run_node(const std::string& op, int opset, const std::vector<NodeInput>& inputs, std::vector<IrAttribute> attributes,
                DType out_type, const Shape& out_shape, ExecutionMode mode) {
  auto outputs = run_one_node(op, opset, inputs, {fixed_tensor_value_info("y", onnx_elem_type(out_type), out_shape)},
                              std::move(attributes), mode);
  EXPECT_EQ(outputs.at(0).shape(), out_shape);
  EXPECT_EQ(outputs.at(0).dtype(), out_type);
  return outputs.at(0);
}

constexpr ExecutionMode kModes[] = {ExecutionMode::Exact, ExecutionMode::Fast};

Tensor f32(const Shape& shape, std::vector<float> v) { return Tensor::from_values<float>(DType::F32, shape, std::span<const float>(v)); }
Tensor u8(const Shape& shape, std::vector<std::uint8_t> v) {
  return Tensor::from_values<std::uint8_t>(DType::U8, shape, std::span<const std::uint8_t>(v));
}
Tensor i8(const Shape& shape, std::vector<std::int8_t> v) {
  return Tensor::from_values<std::int8_t>(DType::I8, shape, std::span<const std::int8_t>(v));
}
Tensor i32(const Shape& shape, std::vector<std::int32_t> v) {
  return Tensor::from_values<std::int32_t>(DType::I32, shape, std::span<const std::int32_t>(v));
}

template <class T>
std::vector<int> as_ints(const Tensor& t) {
  std::vector<int> out;
  for (T v : t.to_vector<T>()) out.push_back(static_cast<int>(v));
  return out;
}

// Section 1: ties go to the even neighbour, in both signs.
TEST(OpsQuant, QuantizeLinearRoundsHalfToEven) {
  for (ExecutionMode mode : kModes) {
    Tensor y = run_node("QuantizeLinear", 13,
                        {{"x", f32({8}, {0.5f, 1.5f, 2.5f, -0.5f, -1.5f, -2.5f, 3.4f, 3.6f})},
                         {"s", f32({}, {1.0f})},
                         {"z", i8({}, {0})}},
                        {}, DType::I8, Shape{8}, mode);
    EXPECT_EQ(as_ints<std::int8_t>(y), (std::vector<int>{0, 2, 2, 0, -2, -2, 3, 4}));
    // The tie is on x / scale: 5 / 2 = 2.5 -> 2, 7 / 2 = 3.5 -> 4.
    Tensor z = run_node("QuantizeLinear", 13, {{"x", f32({2}, {5.0f, 7.0f})}, {"s", f32({}, {2.0f})}, {"z", i8({}, {0})}}, {},
                        DType::I8, Shape{2}, mode);
    EXPECT_EQ(as_ints<std::int8_t>(z), (std::vector<int>{2, 4}));
  }
}

// Section 1: the zero point is added after rounding, then the sum saturates; NaN gives the
// smallest value, infinities the ends. Without a zero point the output is uint8.
TEST(OpsQuant, QuantizeLinearSaturatesAtBothEnds) {
  const float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  for (ExecutionMode mode : kModes) {
    Tensor y = run_node("QuantizeLinear", 13,
                        {{"x", f32({6}, {-20.0f, 300.0f, 244.5f, nan, inf, -inf})}, {"s", f32({}, {1.0f})}, {"z", u8({}, {10})}},
                        {}, DType::U8, Shape{6}, mode);
    EXPECT_EQ(as_ints<std::uint8_t>(y), (std::vector<int>{0, 255, 254, 0, 255, 0}));
    Tensor s = run_node("QuantizeLinear", 13,
                        {{"x", f32({3}, {-200.0f, 200.0f, nan})}, {"s", f32({}, {1.0f})}, {"z", i8({}, {0})}}, {},
                        DType::I8, Shape{3}, mode);
    EXPECT_EQ(as_ints<std::int8_t>(s), (std::vector<int>{-128, 127, -128}));
    Tensor u = run_node("QuantizeLinear", 10, {{"x", f32({2}, {-1.0f, 2.5f})}, {"s", f32({}, {1.0f})}}, {}, DType::U8,
                        Shape{2}, mode);
    EXPECT_EQ(as_ints<std::uint8_t>(u), (std::vector<int>{0, 2}));
  }
}

// Section 2: per-axis scales and zero points along axis 1.
TEST(OpsQuant, QuantizeLinearPerAxis) {
  for (ExecutionMode mode : kModes) {
    Tensor y = run_node("QuantizeLinear", 13,
                        {{"x", f32({2, 3}, {1.0f, 2.0f, 4.0f, 3.0f, 5.0f, 10.0f})},
                         {"s", f32({3}, {1.0f, 2.0f, 4.0f})},
                         {"z", u8({3}, {0, 10, 20})}},
                        {int_attr("axis", 1)}, DType::U8, Shape{2, 3}, mode);
    // 5 / 2 = 2.5 -> 2, 10 / 4 = 2.5 -> 2.
    EXPECT_EQ(as_ints<std::uint8_t>(y), (std::vector<int>{1, 11, 21, 3, 12, 22}));
  }
}

// Section 2: blocks of 2 along axis 1 (the last one short), output_dtype int16 without a zero point.
TEST(OpsQuant, QuantizeLinearBlockedWithOutputDtype) {
  for (ExecutionMode mode : kModes) {
    Tensor y = run_node("QuantizeLinear", 21,
                        {{"x", f32({2, 3}, {3.0f, 4.0f, 15.0f, 6.0f, 9.0f, 25.0f})}, {"s", f32({2, 2}, {1.0f, 10.0f, 2.0f, 10.0f})}},
                        {int_attr("axis", 1), int_attr("block_size", 2), int_attr("output_dtype", 5)}, DType::I16, Shape{2, 3},
                        mode);
    // Row 0: 3/1, 4/1, 15/10 = 1.5 -> 2. Row 1: 6/2 = 3, 9/2 = 4.5 -> 4, 25/10 = 2.5 -> 2.
    EXPECT_EQ(as_ints<std::int16_t>(y), (std::vector<int>{3, 4, 2, 3, 4, 2}));
  }
}

// Section 5: (x - zp) * scale, per tensor and per axis.
TEST(OpsQuant, DequantizeLinearPerTensorAndPerAxis) {
  for (ExecutionMode mode : kModes) {
    Tensor y = run_node("DequantizeLinear", 13,
                        {{"x", i8({3}, {-128, 127, 0})}, {"s", f32({}, {0.5f})}, {"z", i8({}, {1})}}, {}, DType::F32, Shape{3},
                        mode);
    EXPECT_EQ(y.to_vector<float>(), (std::vector<float>{-64.5f, 63.0f, -0.5f}));
    Tensor a = run_node("DequantizeLinear", 13,
                        {{"x", u8({2, 2}, {1, 3, 2, 5})}, {"s", f32({2}, {2.0f, 3.0f})}, {"z", u8({2}, {1, 2})}},
                        {int_attr("axis", 0)}, DType::F32, Shape{2, 2}, mode);
    EXPECT_EQ(a.to_vector<float>(), (std::vector<float>{0.0f, 4.0f, 0.0f, 9.0f}));
    Tensor b = run_node("DequantizeLinear", 10, {{"x", i32({2}, {-7, 2147483647})}, {"s", f32({}, {1.0f})}}, {}, DType::F32,
                        Shape{2}, mode);
    EXPECT_EQ(b.to_vector<float>(), (std::vector<float>{-7.0f, 2147483648.0f}));  // nearest binary32
  }
}

// Section 6: range [-255, 255] gives scale 2 and zp round(127.5) = 128; an all-zero input scale 1.
TEST(OpsQuant, DynamicQuantizeLinear) {
  for (ExecutionMode mode : kModes) {
    Tensor y = run_node("DynamicQuantizeLinear", 11, {{"x", f32({3}, {-255.0f, 0.0f, 255.0f})}}, {}, DType::U8, Shape{3}, mode);
    // -127.5 -> -128 + 128 = 0; 0 + 128; 127.5 -> 128 + 128 = 256 -> 255.
    EXPECT_EQ(as_ints<std::uint8_t>(y), (std::vector<int>{0, 128, 255}));
    Tensor t = run_node("DynamicQuantizeLinear", 11, {{"x", f32({3}, {0.0f, 255.0f, 127.5f})}}, {}, DType::U8, Shape{3}, mode);
    EXPECT_EQ(as_ints<std::uint8_t>(t), (std::vector<int>{0, 255, 128}));
    Tensor z = run_node("DynamicQuantizeLinear", 11, {{"x", f32({2}, {0.0f, 0.0f})}}, {}, DType::U8, Shape{2}, mode);
    EXPECT_EQ(as_ints<std::uint8_t>(z), (std::vector<int>{0, 0}));
  }
}

// Sections 7 and 8: uint8 A with one zero point, int8 B with one zero point per column.
TEST(OpsQuant, MatMulIntegerMixedTypesPerColumnZeroPoint) {
  for (ExecutionMode mode : kModes) {
    Tensor y = run_node("MatMulInteger", 10,
                        {{"a", u8({2, 2}, {1, 2, 3, 4})}, {"b", i8({2, 2}, {1, -1, 2, 0})}, {"za", u8({}, {1})}, {"zb", i8({2}, {1, 0})}},
                        {}, DType::I32, Shape{2, 2}, mode);
    // A' = [[0, 1], [2, 3]], B' = [[0, -1], [1, 0]].
    EXPECT_EQ(y.to_vector<std::int32_t>(), (std::vector<std::int32_t>{1, 0, 3, -2}));
  }
}

// Section 9: padding lies in the shifted domain (contributes 0, not -zx); per-channel w zero points.
TEST(OpsQuant, ConvIntegerPadsInShiftedDomain) {
  for (ExecutionMode mode : kModes) {
    Tensor y = run_node("ConvInteger", 10,
                        {{"x", u8({1, 1, 2, 2}, {1, 2, 3, 4})}, {"w", u8({1, 1, 2, 2}, {2, 2, 2, 2})}, {"zx", u8({}, {1})}, {"zw", u8({1}, {1})}},
                        {ints_attr("pads", {1, 1, 1, 1})}, DType::I32, Shape{1, 1, 3, 3}, mode);
    // x' = [[0, 1], [2, 3]], w' = ones.
    EXPECT_EQ(y.to_vector<std::int32_t>(), (std::vector<std::int32_t>{0, 1, 1, 2, 6, 4, 2, 5, 3}));
    Tensor c = run_node("ConvInteger", 10,
                        {{"x", u8({1, 1, 2, 2}, {1, 2, 3, 4})}, {"w", u8({2, 1, 1, 1}, {2, 5})}, {"zx", u8({}, {1})}, {"zw", u8({2}, {1, 3})}},
                        {}, DType::I32, Shape{1, 2, 2, 2}, mode);
    EXPECT_EQ(c.to_vector<std::int32_t>(), (std::vector<std::int32_t>{0, 1, 2, 3, 0, 2, 4, 6}));
  }
}

// Section 10: mult = 0.5 * 1 / 4 = 0.125; acc 20 -> 2.5 -> 2, acc 30 -> 3.75 -> 4; zp 100, and
// saturation at 255 with zp 254.
TEST(OpsQuant, QLinearMatMulRequantizes) {
  for (ExecutionMode mode : kModes) {
    for (int zy : {100, 254}) {
      Tensor y = run_node("QLinearMatMul", 10,
                          {{"a", u8({1, 2}, {10, 20})},
                           {"sa", f32({}, {0.5f})},
                           {"za", u8({}, {0})},
                           {"b", u8({2, 2}, {3, 4, 1, 1})},
                           {"sb", f32({}, {1.0f})},
                           {"zb", u8({}, {1})},
                           {"sy", f32({}, {4.0f})},
                           {"zy", u8({}, {static_cast<std::uint8_t>(zy)})}},
                          {}, DType::U8, Shape{1, 2}, mode);
      EXPECT_EQ(as_ints<std::uint8_t>(y), zy == 100 ? (std::vector<int>{102, 104}) : (std::vector<int>{255, 255}));
    }
  }
}

// Runs one node of `op` in `engine` and `mode`; output 0 as in run_node.
Tensor run_node_in(EngineKind engine, const std::string& op, int opset, const std::vector<NodeInput>& inputs,
                   DType out_type, const Shape& out_shape, ExecutionMode mode) {
  SessionOptions options;
  options.mode = mode;
  options.engine = engine;
  Session session = Session::create(
      one_node_model(op, opset, inputs, {fixed_tensor_value_info("y", onnx_elem_type(out_type), out_shape)}, {}), options);
  auto outputs = session.run(feeds_of(inputs));
  EXPECT_EQ(outputs.at(0).shape(), out_shape);
  EXPECT_EQ(outputs.at(0).dtype(), out_type);
  return outputs.at(0);
}

constexpr EngineKind kEngines[] = {EngineKind::Reference, EngineKind::Optimized};

// Section 11, per-row a and per-column b scales and zero points. The expected values are ONNX
// Runtime 1.31.1's (CPUExecutionProvider, build/venv/bin/python, onnx.helper one-node models at
// opset 21). ORT refuses a per-row a_scale / a_zero_point ("input zero point must be a scalar"),
// so each row i was run as its own 1 x K QLinearMatMul with the scalar a_scale[i] and
// a_zero_point[i] and the full per-column b scale and zero point (row i of the product depends
// on row i of a alone), and the rows stacked. int8 b values stay in [-64, 63]: with larger ones
// ORT's u8 x s8 kernel saturates a pair of products in 16 bits (observed: 74 where the exact
// product gives 64). numpy's evaluation of section 10's formula agreed on every element, and
// no product lies within 1e-6 of a rounding tie.
TEST(OpsQuant, QLinearMatMulPerRowAndPerColumnAgainstOnnxRuntime) {
  // uint8 a [3, 4], int8 b [4, 5], uint8 y.
  const std::vector<NodeInput> u8s8 = {
      {"a", u8({3, 4}, {171, 206, 5, 206, 120, 131, 161, 73, 250, 13, 71, 98})},
      {"sa", f32({3}, {0.02f, 0.05f, 0.011f})},
      {"za", u8({3}, {3, 128, 250})},
      {"b", i8({4, 5}, {9, -12, -48, -59, -64, -58, -45, 63, -40, 19, 32, -34, -28, -9, -31, 60, -42, 50, 38, 44})},
      {"sb", f32({5}, {0.01f, 0.03f, 0.007f, 0.02f, 0.004f})},
      {"zb", i8({5}, {0, -3, 7, 1, -60})},
      {"sy", f32({}, {0.15f})},
      {"zy", u8({}, {120})}};
  const std::vector<int> u8s8_want = {123, 48, 130, 91, 139, 112, 131, 113, 107, 114, 119, 167, 113, 129, 108};
  // int8 a [2, 3], int8 b [3, 4], int8 y (one element saturates at -128).
  const std::vector<NodeInput> s8s8 = {
      {"a", i8({2, 3}, {-99, -28, 32, -2, 42, 45})},
      {"sa", f32({2}, {0.5f, 0.125f})},
      {"za", i8({2}, {-5, 9})},
      {"b", i8({3, 4}, {20, -57, 58, 7, 51, -30, -18, 48, -41, -56, -17, 22})},
      {"sb", f32({4}, {0.25f, 0.0625f, 0.5f, 0.03125f})},
      {"zb", i8({4}, {50, 0, -60, 20})},
      {"sy", f32({}, {8.0f})},
      {"zy", i8({}, {-10})}};
  const std::vector<int> s8s8_want = {-19, 6, -128, -9, -21, -12, 3, -9};
  for (EngineKind engine : kEngines) {
    for (ExecutionMode mode : kModes) {
      const char* where = engine == EngineKind::Reference ? "reference" : "optimized";
      EXPECT_EQ(as_ints<std::uint8_t>(run_node_in(engine, "QLinearMatMul", 10, u8s8, DType::U8, Shape{3, 5}, mode)),
                u8s8_want)
          << where;
      EXPECT_EQ(as_ints<std::int8_t>(run_node_in(engine, "QLinearMatMul", 21, s8s8, DType::I8, Shape{2, 4}, mode)),
                s8s8_want)
          << where;
    }
  }
}

// Section 11's ninth input, the int32 bias (an extension: ONNX's QLinearMatMul has eight inputs,
// so ONNX Runtime cannot run it). Its expected values are ONNX Runtime 1.31.1's for an equivalent
// eight-input product: a gets one more column holding a_zero_point + 1 (a' = 1) and b one more
// row holding bias[j] + b_zero_point[j] (b' = bias[j]), so the accumulator gains exactly
// bias[j]. Without the bias ORT gives {53, 41, 75, 53, 27, 35, 50, 66}, so the bias is seen.
TEST(OpsQuant, QLinearMatMulBiasAgainstOnnxRuntime) {
  const auto inputs_with = [](Tensor bias) {
    return std::vector<NodeInput>{{"a", u8({2, 3}, {95, 125, 103, 99, 112, 126})},
                                  {"sa", f32({}, {0.5f})},
                                  {"za", u8({}, {110})},
                                  {"b", u8({3, 4}, {116, 45, 142, 108, 111, 39, 161, 108, 81, 30, 143, 125})},
                                  {"sb", f32({4}, {0.02f, 0.04f, 0.03f, 0.05f})},
                                  {"zb", u8({4}, {100, 30, 150, 128})},
                                  {"sy", f32({}, {0.2f})},
                                  {"zy", u8({}, {50})},
                                  {"bias", std::move(bias)}};
  };
  for (EngineKind engine : kEngines) {
    for (ExecutionMode mode : kModes) {
      const char* where = engine == EngineKind::Reference ? "reference" : "optimized";
      EXPECT_EQ(as_ints<std::uint8_t>(run_node_in(engine, "QLinearMatMul", 10, inputs_with(i32({4}, {100, -30, 90, -120})),
                                                  DType::U8, Shape{2, 4}, mode)),
                (std::vector<int>{58, 38, 82, 38, 32, 32, 57, 52}))
          << where << " bias per column";
      EXPECT_EQ(as_ints<std::uint8_t>(run_node_in(engine, "QLinearMatMul", 10, inputs_with(i32({1}, {-27})), DType::U8,
                                                  Shape{2, 4}, mode)),
                (std::vector<int>{52, 38, 73, 49, 26, 33, 48, 63}))
          << where << " one bias value";
    }
  }
}

// Section 12: int32 bias added first; per-channel w scale and zero point.
TEST(OpsQuant, QLinearConvBiasAndPerChannel) {
  for (ExecutionMode mode : kModes) {
    Tensor y = run_node("QLinearConv", 10,
                        {{"x", u8({1, 1, 1, 2}, {4, 6})},
                         {"sx", f32({}, {1.0f})},
                         {"zx", u8({}, {2})},
                         {"w", i8({2, 1, 1, 1}, {1, 3})},
                         {"sw", f32({2}, {0.5f, 0.25f})},
                         {"zw", i8({2}, {0, 1})},
                         {"sy", f32({}, {1.0f})},
                         {"zy", u8({}, {0})},
                         {"bias", i32({2}, {1, -1})}},
                        {}, DType::U8, Shape{1, 2, 1, 2}, mode);
    // oc 0: (2 + 1, 4 + 1) * 0.5 = 1.5 -> 2, 2.5 -> 2. oc 1: (4 - 1, 8 - 1) * 0.25 = 0.75 -> 1, 1.75 -> 2.
    EXPECT_EQ(as_ints<std::uint8_t>(y), (std::vector<int>{2, 2, 1, 2}));
  }
}

// Section 1: every quantized type of ONNX is stored since issue 17 (float8, int4/uint4, float4);
// an output_dtype outside the quantized types (COMPLEX64, 14; the scale type FLOAT8E8M0, 24) and
// a blocked scale of the wrong shape are InvalidModel.
TEST(OpsQuant, RefusesNonQuantizedTypesAndBadBlockShapes) {
  for (int code : {14, 24}) {
    EXPECT_EQ(session_error_kind_of([code] {
                run_node("QuantizeLinear", 21, {{"x", f32({2}, {1.0f, 2.0f})}, {"s", f32({}, {1.0f})}},
                         {int_attr("output_dtype", code)}, DType::U8, Shape{2}, ExecutionMode::Exact);
              }),
              SessionErrorKind::InvalidModel)
        << code;
  }
  EXPECT_EQ(session_error_kind_of([] {
              run_node("QuantizeLinear", 21, {{"x", f32({1, 4}, {1, 2, 3, 4})}, {"s", f32({1, 3}, {1, 1, 1})}},
                       {int_attr("axis", 1), int_attr("block_size", 2)}, DType::U8, Shape{1, 4}, ExecutionMode::Exact);
            }),
            SessionErrorKind::InvalidModel);
}

}  // namespace
}  // namespace onemodel
