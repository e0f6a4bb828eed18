// Differential tests of the QuantizeLinear and DynamicQuantizeLinear overrides
// (optimized/ops/op_quantize_linear.cpp, op_dynamic_quantize_linear.cpp, vector kernels in
// optimized/kernels/quantize/) against the reference kernels through diff/op_harness.hpp: the
// reference's bits in both modes on every path of this machine at 1 and 2 threads, with calls of
// several chunks split between the threads. Inputs hold the values where a vector sequence could
// part from the reference's double arithmetic: NaN with payloads, infinities, -0, denormals, exact
// .5 ties and their neighbours, values that saturate, and scales that are tiny, huge, NaN, infinite,
// zero or negative (the reference accepts any). The cases the overrides hand to the reference
// kernel (blocked scales, float16 scales, int32 x, a bfloat16 precision) are labelled as such.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "diff/op_harness.hpp"
#include "tests/support/diff_test_helpers.hpp"
#include "tests/support/ir_builder.hpp"

namespace onemodel::diff {
namespace {

float bits(std::uint32_t b) { return __builtin_bit_cast(float, b); }

// Values around which the element rule could go wrong, for a scale of `s`.
std::vector<float> specials(float s) {
  std::vector<float> v = {bits(0x7FC00000u), bits(0x7FC00001u), bits(0xFFFFFFFFu), bits(0x7F800001u),  // NaNs
                          bits(0x7F800000u), bits(0xFF800000u), 0.0f, -0.0f,                        // +-inf, +-0
                          bits(0x00000001u), bits(0x807FFFFFu), bits(0x00800000u),                  // denormals, min normal
                          3.0e38f, -3.0e38f, 1.0e10f, -1.0e10f, 16777217.0f, -16777216.0f, 8388609.0f};
  // Exact ties k + 1/2 of x / s when s is a power of two, and their binary32 neighbours.
  for (int k = -300; k <= 300; k += 7) {
    const float t = (static_cast<float>(k) + 0.5f) * s;
    v.push_back(t);
    v.push_back(std::nextafter(t, 0.0f));
    v.push_back(std::nextafter(t, 1.0e30f));
    v.push_back(std::nextafter(t, -1.0e30f));
  }
  return v;
}

// n values: random in [-400 s, 400 s] (many saturate for 8-bit types), the specials spread over
// them (the vector bodies and the scalar tails both see them).
Tensor x_values(const Shape& shape, float s, std::mt19937& rng) {
  const auto n = static_cast<std::size_t>(shape.element_count());
  std::vector<float> v(n);
  std::uniform_real_distribution<float> d(-400.0f, 400.0f);
  const float scale = std::isfinite(s) && s != 0.0f ? std::fabs(s) : 0.01f;
  for (float& x : v) x = d(rng) * scale;
  const std::vector<float> sp = specials(scale);
  for (std::size_t i = 0; i < sp.size() && n > 0; ++i) v[(i * 7919 + rng() % 13) % n] = sp[i];
  if (n > 0) v[n - 1] = sp[rng() % sp.size()];
  return test_helpers::f32_tensor(shape, v);
}

Tensor integers(DType type, const Shape& shape, std::mt19937& rng) {
  std::vector<std::uint8_t> v(static_cast<std::size_t>(shape.element_count()) * dtype_size(type));
  for (auto& x : v) x = static_cast<std::uint8_t>(rng());
  return Tensor::from_bytes(type, shape, std::as_bytes(std::span<const std::uint8_t>(v)));
}

// Per-axis scales: mostly ordinary (powers of two among them, for exact ties), a few specials.
Tensor axis_scales(std::int64_t extent, std::mt19937& rng) {
  std::vector<float> v(static_cast<std::size_t>(extent));
  for (float& s : v) s = rng() % 3 == 0 ? std::ldexp(1.0f, static_cast<int>(rng() % 8) - 6) : static_cast<float>(rng() % 1000 + 1) / 3.0e4f;
  const float sp[] = {bits(0x7FC00005u), bits(0x7F800000u), -0.0f, 1.0e-40f, 3.0e38f, -0.5f};
  for (std::size_t i = 0; i < v.size() && i < 6; ++i) v[(i * 5) % v.size()] = sp[i];
  return test_helpers::f32_tensor(Shape{extent}, v);
}

OpCase quantize_case(std::int64_t opset, const std::vector<IrAttribute>& attributes, std::vector<Tensor> inputs) {
  OpCase c;
  c.op = "QuantizeLinear";
  c.opset = opset;
  c.attributes = attributes;
  c.inputs = std::move(inputs);
  c.constant.assign(c.inputs.size(), true);
  c.constant[0] = false;
  return c;
}

constexpr DType kOutTypes[] = {DType::U8, DType::I8, DType::U16, DType::I16};

TEST(DiffQuantizeLinear, PerTensorReferenceBitsEverywhere) {
  CaseTally tally;
  std::mt19937 rng(61);
  const Shape shape{3, 70, 181};  // 38010 elements: three chunks of 16384
  const float scales[] = {0.0173f, 0.25f, 1.0f / 64.0f, 1.0e-40f, 1.0e-30f, 3.0e38f, bits(0x7FC00123u),
                          bits(0x7F800000u), bits(0xFF800000u), -0.0f, 0.0f, -0.125f};
  for (DType type : kOutTypes) {
    for (const float s : scales) {
      OpCase c = quantize_case(13, {}, {x_values(shape, s, rng), test_helpers::f32_tensor(Shape{}, {s}),
                                        integers(type, Shape{}, rng)});
      const std::string d = test_helpers::compare_everywhere(c, &tally);
      EXPECT_TRUE(d.empty()) << d << " for " << dtype_name(type) << " scale " << s;
    }
  }
  // No zero point: uint8 (opset 10 and 13), or output_dtype (opset 21) for the other types.
  for (std::int64_t opset : {10, 13}) {
    OpCase c = quantize_case(opset, {}, {x_values(shape, 0.5f, rng), test_helpers::f32_tensor(Shape{1}, {0.5f})});
    const std::string d = test_helpers::compare_everywhere(c, &tally);
    EXPECT_TRUE(d.empty()) << d << " opset " << opset;
  }
  for (DType type : kOutTypes) {
    OpCase c = quantize_case(21, {ir_builder::int_attr("output_dtype", static_cast<std::int64_t>(type))},
                             {x_values(shape, 0.03f, rng), test_helpers::f32_tensor(Shape{}, {0.03f})});
    const std::string d = test_helpers::compare_everywhere(c, &tally);
    EXPECT_TRUE(d.empty()) << d << " output_dtype " << dtype_name(type);
  }
  // precision = float (opset 23) divides in binary32: served. Short tensors: tails only.
  OpCase p = quantize_case(23, {ir_builder::int_attr("precision", 1)},
                           {x_values(shape, 0.0625f, rng), test_helpers::f32_tensor(Shape{}, {0.0625f}),
                            integers(DType::I8, Shape{}, rng)});
  EXPECT_TRUE(test_helpers::compare_everywhere(p, &tally).empty());
  for (std::int64_t n : {1, 5, 15, 17, 33, 70}) {
    OpCase c = quantize_case(13, {}, {x_values(Shape{n}, 0.25f, rng), test_helpers::f32_tensor(Shape{}, {0.25f}),
                                      integers(DType::I16, Shape{}, rng)});
    const std::string d = test_helpers::compare_everywhere(c, &tally);
    EXPECT_TRUE(d.empty()) << d << " n " << n;
  }
  EXPECT_EQ(tally.fallback_cases, 0u) << tally.summary();
  EXPECT_EQ(tally.override_cases, tally.cases) << tally.summary();
  EXPECT_GT(tally.shared_cases, 0u) << tally.summary();
}

TEST(DiffQuantizeLinear, PerAxisEveryAxis) {
  CaseTally tally;
  std::mt19937 rng(67);
  // {3, 70, 181}: inner 12670, 181 (runs crossing chunk ends) and 1 (the last axis: one scale per
  // lane); {40, 37, 3, 9}: inner 9, shorter than a vector.
  const std::vector<Shape> shapes = {Shape{3, 70, 181}, Shape{40, 37, 3, 9}};
  for (const Shape& shape : shapes) {
    const auto rank = static_cast<std::int64_t>(shape.rank());
    for (std::int64_t axis = -rank; axis < rank; ++axis) {
      for (DType type : kOutTypes) {
        const std::int64_t extent = shape[static_cast<int>(axis < 0 ? axis + rank : axis)];
        for (const bool with_zero : {true, false}) {
          if (!with_zero && type != DType::U8) continue;
          std::vector<Tensor> in = {x_values(shape, 0.02f, rng), axis_scales(extent, rng)};
          if (with_zero) in.push_back(integers(type, Shape{extent}, rng));
          OpCase c = quantize_case(13, {ir_builder::int_attr("axis", axis)}, std::move(in));
          const std::string d = test_helpers::compare_everywhere(c, &tally);
          EXPECT_TRUE(d.empty()) << d << " for " << dtype_name(type) << " shape " << shape.to_string() << " axis " << axis;
        }
      }
    }
  }
  EXPECT_EQ(tally.fallback_cases, 0u) << tally.summary();
  EXPECT_EQ(tally.override_cases, tally.cases) << tally.summary();
  EXPECT_GT(tally.shared_cases, 0u) << tally.summary();
}

TEST(DiffQuantizeLinear, HandedToTheReferenceKernel) {
  std::mt19937 rng(71);
  const Shape shape{2, 8};
  std::vector<OpCase> cases;
  // Blocked scales (opset 21).
  cases.push_back(quantize_case(21, {ir_builder::int_attr("axis", 1), ir_builder::int_attr("block_size", 4)},
                                {x_values(shape, 0.1f, rng), test_helpers::f32_tensor(Shape{2, 2}, {0.1f, 0.2f, 0.3f, 0.4f}),
                                 integers(DType::U8, Shape{2, 2}, rng)}));
  // A float16 scale (opset 19): 0x2E66 is about 0.1.
  cases.push_back(quantize_case(19, {}, {x_values(shape, 0.1f, rng), Tensor::from_bytes(DType::F16, Shape{},
                                         std::as_bytes(std::span<const std::uint16_t>(std::vector<std::uint16_t>{0x2E66})))}));
  // int32 x.
  cases.push_back(quantize_case(13, {}, {integers(DType::I32, shape, rng), test_helpers::f32_tensor(Shape{}, {1.0e7f})}));
  // precision bfloat16 (opset 23).
  cases.push_back(quantize_case(23, {ir_builder::int_attr("precision", 16)},
                                {x_values(shape, 0.1f, rng), test_helpers::f32_tensor(Shape{}, {0.1f})}));
  CaseTally fallback;
  for (const OpCase& c : cases) {
    const std::string d = test_helpers::compare_everywhere(c, &fallback);
    EXPECT_TRUE(d.empty()) << d;
  }
  EXPECT_EQ(fallback.fallback_cases, cases.size()) << fallback.summary();
}

OpCase dynamic_case(const Shape& shape, const std::vector<float>& v) {
  OpCase c;
  c.op = "DynamicQuantizeLinear";
  c.opset = 11;
  c.inputs = {test_helpers::f32_tensor(shape, v)};
  c.constant = {false};
  c.outputs = 3;
  return c;
}

TEST(DiffDynamicQuantizeLinear, ReferenceBitsEverywhere) {
  CaseTally tally;
  std::mt19937 rng(73);
  std::normal_distribution<float> normal(0.0f, 3.0f);
  std::vector<std::pair<std::string, std::vector<float>>> inputs;
  const std::size_t big = 2 * 16384 + 4133;  // three chunks, a ragged last one
  auto random = [&](std::size_t n, float shift) {
    std::vector<float> v(n);
    for (float& x : v) x = normal(rng) + shift;
    return v;
  };
  inputs.push_back({"random", random(big, 0.0f)});
  inputs.push_back({"positive", random(big, 50.0f)});
  inputs.push_back({"negative", random(big, -50.0f)});
  {
    // NaNs with payloads everywhere: in vector bodies, in tails, first and last; the extremes
    // in the second chunk's first element and in the last (tail) element.
    std::vector<float> v = random(big, 0.0f);
    for (std::size_t i = 0; i < v.size(); i += 997) v[i] = bits(0x7FC00000u | static_cast<std::uint32_t>(rng() % 4096));
    v[0] = bits(0xFFFFFFFFu);
    v[16384] = -40.0f;
    v[big - 1] = 41.5f;
    inputs.push_back({"NaNs and extremes at chunk edges", v});
  }
  {
    // The extremes in the scalar tail of a vector loop.
    std::vector<float> v = random(16384 + 63, 0.0f);
    v[16384 + 62] = -99.0f;
    v[16384 + 61] = 98.0f;
    inputs.push_back({"extremes in the tail", v});
  }
  for (std::size_t n : {std::size_t{1}, std::size_t{7}, std::size_t{16}, std::size_t{33}, std::size_t{100}}) {
    inputs.push_back({"short " + std::to_string(n), random(n, 1.0f)});
  }
  inputs.push_back({"all zero", std::vector<float>(big, 0.0f)});
  inputs.push_back({"all -0", std::vector<float>(big, -0.0f)});
  {
    std::vector<float> v = random(big, 3.0f);
    for (float& x : v) x = std::fabs(x);
    v[5] = -0.0f;
    v[big - 2] = -0.0f;
    inputs.push_back({"non-negative with -0", v});
  }
  inputs.push_back({"constant 2.5", std::vector<float>(big, 2.5f)});
  inputs.push_back({"constant -7", std::vector<float>(big, -7.0f)});
  inputs.push_back({"all NaN", std::vector<float>(4099, bits(0x7FC00042u))});
  {
    std::vector<float> v = random(big, 0.0f);
    v[100] = bits(0x7F800000u);
    inputs.push_back({"+inf", v});
    v[200] = bits(0xFF800000u);
    inputs.push_back({"+inf and -inf", v});
    v[100] = 1.0f;
    inputs.push_back({"-inf", v});
  }
  {
    std::vector<float> v = random(big, 0.0f);
    v[3] = 3.0e38f;
    v[big - 3] = -3.0e38f;
    inputs.push_back({"range overflows", v});
  }
  {
    std::vector<float> v(big);
    for (std::size_t i = 0; i < v.size(); ++i) v[i] = bits(static_cast<std::uint32_t>(rng() % 0x00800000u) | (rng() % 2 ? 0x80000000u : 0u));
    inputs.push_back({"denormals only", v});
  }
  {
    // x / scale lands on .5 ties: lo = -127.5 and hi = 127.5 give scale 1, so k + 0.5 is a tie.
    std::vector<float> v(big);
    for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>(static_cast<int>(rng() % 255) - 127) + 0.5f;
    v[0] = -127.5f;
    v[1] = 127.5f;
    inputs.push_back({"ties", v});
  }
  for (const auto& [label, v] : inputs) {
    const std::string d = test_helpers::compare_everywhere(dynamic_case(Shape{static_cast<std::int64_t>(v.size())}, v), &tally);
    EXPECT_TRUE(d.empty()) << d << " for " << label;
  }
  // A rank-3 input and an empty one.
  std::vector<float> v3 = random(3 * 70 * 181, -1.0f);
  EXPECT_TRUE(test_helpers::compare_everywhere(dynamic_case(Shape{3, 70, 181}, v3), &tally).empty());
  EXPECT_TRUE(test_helpers::compare_everywhere(dynamic_case(Shape{0, 4}, {}), &tally).empty());
  EXPECT_EQ(tally.fallback_cases, 0u) << tally.summary();
  EXPECT_EQ(tally.override_cases, tally.cases) << tally.summary();
  EXPECT_GT(tally.shared_cases, 0u) << tally.summary();
}

}  // namespace
}  // namespace onemodel::diff
