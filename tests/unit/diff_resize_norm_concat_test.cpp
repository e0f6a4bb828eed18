// Resize, BatchNormalization and Concat through the optimized overrides (optimized/ops/op_resize.cpp,
// op_batch_normalization.cpp, op_concat.cpp) against the reference kernels (diff/op_harness.hpp), on
// every path this machine has at 1 and 2 threads: exact mode through check_everywhere and fast mode
// compared bit for bit too (spec/ops/products-conv.md sections 9 and 10 and shape-indexing.md
// section 2 state operations that do not depend on the mode). Rapidcheck generates shapes, scales
// and sizes (constant or known only at run time), modes, coordinate and nearest modes, epsilon and
// parameter vectors, Concat axes, input counts and element types, with float values including NaN
// (several payloads), infinities, signed zeros and subnormals; fixed cases cover the detector's
// shapes and the cases that run the reference (cubic, tf_crop_and_resize, axes, aspect policy,
// rank 3, resampled channels, many Concat inputs).
#include <gtest/gtest.h>
#include <rapidcheck.h>

#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "core/graph/tensor_bytes.hpp"
#include "diff/counterexample.hpp"
#include "diff/op_harness.hpp"
#include "optimized/frame/isa.hpp"
#include "tests/support/ir_builder.hpp"

namespace onemodel::diff {
namespace {

namespace ib = ir_builder;

float from_bits(std::uint32_t bits) {
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

Shape shape_of(const std::vector<std::int64_t>& e) { return Shape(std::span<const std::int64_t>(e)); }

// Values: 0 uniform in [-2, 2); 1 uniform with one in eight special; 2 only specials; 3 mostly NaN.
std::vector<float> random_floats(std::size_t count, std::mt19937& rng, int values) {
  std::uniform_real_distribution<float> dist(-2.0f, 2.0f);
  const float specials[] = {std::numeric_limits<float>::quiet_NaN(),
                            from_bits(0xFFC00000u),  // -NaN
                            from_bits(0x7FA00001u),  // NaN with a payload
                            std::numeric_limits<float>::infinity(),
                            -std::numeric_limits<float>::infinity(),
                            0.0f,
                            -0.0f,
                            std::numeric_limits<float>::denorm_min(),
                            -2.5e-39f,
                            1.0f,
                            -1.0f,
                            std::numeric_limits<float>::max(),
                            std::numeric_limits<float>::lowest()};
  constexpr std::size_t kSpecials = sizeof specials / sizeof specials[0];
  std::vector<float> v(count);
  for (float& e : v) {
    switch (values) {
      case 0: e = dist(rng); break;
      case 1: e = rng() % 8 == 0 ? specials[rng() % kSpecials] : dist(rng); break;
      case 2: e = specials[rng() % kSpecials]; break;
      default: e = rng() % 8 != 0 ? specials[rng() % 3] : specials[rng() % kSpecials]; break;
    }
  }
  return v;
}

Tensor random_tensor(const std::vector<std::int64_t>& shape, std::mt19937& rng, int values) {
  std::size_t count = 1;
  for (std::int64_t e : shape) count *= static_cast<std::size_t>(e);
  const auto v = random_floats(count, rng, values);
  return Tensor::from_values<float>(DType::F32, shape_of(shape), std::span<const float>(v));
}

// The tally of the running test (set by a TallyScope): difference() adds every passing case, so a
// test can require how many ran the override, fell back to the reference kernel, or were split
// between two threads.
CaseTally* g_tally = nullptr;

struct TallyScope {
  explicit TallyScope(CaseTally& tally) { g_tally = &tally; }
  ~TallyScope() { g_tally = nullptr; }
  TallyScope(const TallyScope&) = delete;
  TallyScope& operator=(const TallyScope&) = delete;
};

// "" when exact and fast mode on every path at 1 and 2 threads give the reference's bits (of the
// same mode); an exact-mode difference is saved as a replayable counterexample.
std::string difference(const OpCase& c) {
  RunTally runs;
  const std::string exact = check_everywhere(c, "diff-resize-norm-concat-" + c.op, &runs);
  if (!exact.empty()) return "exact: " + exact;
  const std::vector<Tensor> want = run_reference(c, ExecutionMode::Fast);
  for (opt::Isa isa : opt::available_isas()) {
    for (int threads : {1, 2}) {
      OptimizedRun run;
      const std::string d = first_difference(want, run_optimized(c, ExecutionMode::Fast, isa, threads, &run));
      if (!d.empty()) return "fast " + std::string(opt::isa_name(isa)) + " " + std::to_string(threads) + ": " + d;
      runs.add(run, threads);
    }
  }
  if (g_tally != nullptr) g_tally->add(runs);
  return "";
}

// ---------------------------------------------------------------------------------------------
// Resize

struct ResizeSpec {
  std::int64_t opset = 13;
  std::string mode = "nearest";
  std::string coordinate;  // "" leaves the attribute out (half_pixel)
  std::string nearest;     // "" leaves the attribute out (round_prefer_floor)
  std::vector<float> scales;          // empty: sizes
  std::vector<std::int64_t> sizes;    // empty: scales
  bool scales_f64 = false;
  bool empty_scales_with_sizes = false;  // opset 11+: an empty scales tensor next to sizes
  bool constant = true;                  // scales / sizes known to prepare()
  std::vector<IrAttribute> extra;        // attributes the override leaves to the reference
  std::vector<float> roi;                // tf_crop_and_resize only
};

OpCase resize_case(const std::vector<std::int64_t>& shape, const ResizeSpec& s, std::uint32_t seed, int values) {
  std::mt19937 rng(seed);
  OpCase c;
  c.op = "Resize";
  c.opset = s.opset;
  c.attributes = {ib::string_attr("mode", s.mode)};
  if (!s.coordinate.empty()) c.attributes.push_back(ib::string_attr("coordinate_transformation_mode", s.coordinate));
  if (!s.nearest.empty()) c.attributes.push_back(ib::string_attr("nearest_mode", s.nearest));
  for (const IrAttribute& a : s.extra) c.attributes.push_back(a);
  c.inputs = {random_tensor(shape, rng, values)};
  Tensor scales;
  if (!s.scales.empty()) {
    const std::vector<std::int64_t> n{static_cast<std::int64_t>(s.scales.size())};
    if (s.scales_f64) {
      const std::vector<double> d(s.scales.begin(), s.scales.end());
      scales = Tensor::from_values<double>(DType::F64, shape_of(n), std::span<const double>(d));
    } else {
      scales = Tensor::from_values<float>(DType::F32, shape_of(n), std::span<const float>(s.scales));
    }
  } else if (s.empty_scales_with_sizes) {
    scales = Tensor::from_values<float>(DType::F32, Shape{0}, std::span<const float>());
  }
  Tensor roi;
  if (!s.roi.empty()) {
    roi = Tensor::from_values<float>(DType::F32, Shape{static_cast<std::int64_t>(s.roi.size())},
                                     std::span<const float>(s.roi));
  }
  c.inputs.push_back(roi);
  c.inputs.push_back(scales);
  if (!s.sizes.empty()) {
    c.inputs.push_back(Tensor::from_values<std::int64_t>(DType::I64, Shape{static_cast<std::int64_t>(s.sizes.size())},
                                                         std::span<const std::int64_t>(s.sizes)));
  }
  c.constant = {false, true, s.constant, s.constant};
  return c;
}

TEST(DiffResizeNormConcat, OverridesAreRegistered) {
  for (std::int64_t opset : {11, 13, 19, 22}) EXPECT_TRUE(has_override("Resize", opset)) << opset;
  // The reference's Resize_10 never reads its scales input in infer(), so such nodes do not load;
  // the override leaves that row alone (optimized/ops/resize_plan.hpp).
  EXPECT_FALSE(has_override("Resize", 10));
  for (std::int64_t opset : {7, 9, 15}) EXPECT_TRUE(has_override("BatchNormalization", opset)) << opset;
  for (std::int64_t opset : {1, 4, 13}) EXPECT_TRUE(has_override("Concat", opset)) << opset;
  EXPECT_FALSE(has_override("Upsample", 9));
}

TEST(DiffResizeNormConcat, ResizeDetectorCases) {
  CaseTally tally;
  const TallyScope scope(tally);
  // PP-OCRv4's Resize nodes: opset 12, nearest, asymmetric, floor, scales (1, 1, 2, 2) or (1, 1, 4, 4).
  std::uint32_t seed = 1;
  for (int values = 0; values < 4; ++values) {
    for (float f : {2.0f, 4.0f, 8.0f}) {
      ResizeSpec s;
      s.opset = 12;
      s.coordinate = "asymmetric";
      s.nearest = "floor";
      s.scales = {1.0f, 1.0f, f, f};
      EXPECT_EQ(difference(resize_case({1, 5, 7, 9}, s, seed++, values)), "");
      s.constant = false;
      EXPECT_EQ(difference(resize_case({2, 3, 10, 6}, s, seed++, values)), "");
      s.mode = "linear";
      EXPECT_EQ(difference(resize_case({1, 2, 6, 11}, s, seed++, values)), "");
    }
    // Planes large enough to be cut into several chunks (32768 outputs per chunk), so two threads
    // share the work.
    for (const char* mode : {"nearest", "linear"}) {
      ResizeSpec s;
      s.opset = 12;
      s.mode = mode;
      s.coordinate = "asymmetric";
      s.nearest = "floor";
      s.scales = {1.0f, 1.0f, 2.0f, 2.0f};
      EXPECT_EQ(difference(resize_case({2, 3, 60, 70}, s, seed++, values)), "");
    }
    // Both modes: one axis skipped; shrinking W with growing H and the reverse; no pass; H resampled
    // with out == in (linear still rounds -0 to +0 and canonicalises NaN there); an empty output.
    for (const char* mode : {"nearest", "linear"}) {
      ResizeSpec s;
      s.opset = 11;
      s.mode = mode;
      s.scales = {1.0f, 1.0f, 2.0f, 1.0f};
      EXPECT_EQ(difference(resize_case({1, 3, 5, 8}, s, seed++, values)), "");
      s.opset = 13;
      s.coordinate = "half_pixel";
      s.scales = {1.0f, 1.0f, 1.75f, 0.6f};
      EXPECT_EQ(difference(resize_case({2, 2, 9, 13}, s, seed++, values)), "");
      s.scales = {1.0f, 1.0f, 0.5f, 3.0f};
      EXPECT_EQ(difference(resize_case({1, 2, 9, 4}, s, seed++, values)), "");
      s.scales = {1.0f, 1.0f, 1.0f, 1.0f};  // no pass at all: a copy
      EXPECT_EQ(difference(resize_case({1, 2, 3, 4}, s, seed++, values)), "");
      s.scales = {1.0f, 1.0f, 1.2f, 1.0f};  // H resampled with out == in
      EXPECT_EQ(difference(resize_case({1, 2, 1, 4}, s, seed++, values)), "");
      s.scales = {};
      s.sizes = {1, 2, 0, 5};  // an empty output
      EXPECT_EQ(difference(resize_case({1, 2, 3, 4}, s, seed++, values)), "");
    }
  }
  // Every case runs the override; the large planes (several 32768-output chunks) are split.
  EXPECT_EQ(tally.override_cases, 92u) << tally.summary();
  EXPECT_EQ(tally.shared_cases, 8u) << tally.summary();
}

// The segmentation heads' Resize nodes (DeepLabV3: 21 class maps 14x14 -> 224x224; LR-ASPP:
// 28x28 -> 224x224; linear, half_pixel, sizes), align_corners and asymmetric upsampling (taps of
// weight exactly zero at exact hits, left out next to infinities and NaN), and rows longer than
// the W pass's table (512, optimized/kernels/resize/resize.cpp) that take the untabled loop.
TEST(DiffResizeNormConcat, ResizeSegmentationHeads) {
  CaseTally tally;
  const TallyScope scope(tally);
  std::uint32_t seed = 700;
  for (int values = 0; values < 4; ++values) {
    for (const char* coordinate : {"half_pixel", "align_corners", "asymmetric", "pytorch_half_pixel"}) {
      ResizeSpec s;
      s.mode = "linear";
      s.coordinate = coordinate;
      s.sizes = {1, 21, 224, 224};
      EXPECT_EQ(difference(resize_case({1, 21, 14, 14}, s, seed++, values)), "") << coordinate;
      s.sizes = {1, 3, 224, 224};
      EXPECT_EQ(difference(resize_case({1, 3, 28, 28}, s, seed++, values)), "") << coordinate;
      s.sizes = {1, 2, 5, 1201};
      EXPECT_EQ(difference(resize_case({1, 2, 2, 600}, s, seed++, values)), "") << coordinate;
      s.sizes = {1, 2, 7, 700};
      EXPECT_EQ(difference(resize_case({1, 2, 3, 300}, s, seed++, values)), "") << coordinate;
    }
  }
  EXPECT_EQ(tally.override_cases, tally.cases) << tally.summary();
  EXPECT_GT(tally.shared_cases, 0u) << tally.summary();
}

TEST(DiffResizeNormConcat, ResizeReferenceCasesStayTheReference) {
  CaseTally tally;
  const TallyScope scope(tally);
  std::uint32_t seed = 50;
  ResizeSpec cubic;
  cubic.mode = "cubic";
  cubic.scales = {1.0f, 1.0f, 2.0f, 1.5f};
  EXPECT_EQ(difference(resize_case({1, 2, 5, 6}, cubic, seed++, 1)), "");
  cubic.extra = {ib::int_attr("exclude_outside", 1)};
  EXPECT_EQ(difference(resize_case({1, 2, 5, 6}, cubic, seed++, 1)), "");
  ResizeSpec crop;
  crop.mode = "linear";
  crop.coordinate = "tf_crop_and_resize";
  crop.scales = {1.0f, 1.0f, 2.0f, 2.0f};
  crop.roi = {0.0f, 0.0f, -0.2f, 0.1f, 1.0f, 1.0f, 1.3f, 0.9f};
  crop.extra = {ib::float_attr("extrapolation_value", -7.0f)};
  EXPECT_EQ(difference(resize_case({1, 2, 5, 6}, crop, seed++, 1)), "");
  ResizeSpec axes;
  axes.opset = 18;
  axes.scales = {2.0f, 3.0f};
  axes.extra = {ib::ints_attr("axes", {2, 3})};
  EXPECT_EQ(difference(resize_case({1, 2, 5, 6}, axes, seed++, 1)), "");
  ResizeSpec policy;
  policy.opset = 18;
  policy.sizes = {1, 2, 12, 9};
  policy.extra = {ib::string_attr("keep_aspect_ratio_policy", "not_larger")};
  EXPECT_EQ(difference(resize_case({1, 2, 5, 6}, policy, seed++, 1)), "");
  ResizeSpec rank3;
  rank3.scales = {1.0f, 2.0f, 2.0f};
  EXPECT_EQ(difference(resize_case({2, 5, 6}, rank3, seed++, 1)), "");
  ResizeSpec rank5;
  rank5.mode = "linear";
  rank5.scales = {1.0f, 1.0f, 2.0f, 2.0f, 0.5f};
  EXPECT_EQ(difference(resize_case({1, 2, 3, 4, 6}, rank5, seed++, 1)), "");
  ResizeSpec channels;  // C resampled
  channels.mode = "linear";
  channels.scales = {1.0f, 2.0f, 2.0f, 2.0f};
  EXPECT_EQ(difference(resize_case({1, 3, 4, 4}, channels, seed++, 1)), "");
  ResizeSpec batch_sized;  // N resized through sizes
  batch_sized.sizes = {2, 2, 4, 4};
  EXPECT_EQ(difference(resize_case({1, 2, 4, 4}, batch_sized, seed++, 1)), "");
  ResizeSpec opset10;  // Resize-10 (X, scales) is not overridden: both engines run the reference
  opset10.opset = 10;
  opset10.scales = {1.0f, 1.0f, 2.0f, 2.0f};
  {
    OpCase c = resize_case({1, 2, 3, 4}, opset10, seed++, 1);
    c.inputs.erase(c.inputs.begin() + 1);  // X, scales
    EXPECT_EQ(difference(c), "");
  }
  ResizeSpec empty_input;
  empty_input.sizes = {1, 2, 0, 3};
  EXPECT_EQ(difference(resize_case({1, 2, 0, 4}, empty_input, seed++, 1)), "");
  // Fallback cases, labelled as such: they compare the reference kernel with itself.
  EXPECT_EQ(tally.fallback_cases, 11u) << tally.summary();
}

TEST(DiffResizeNormConcat, GeneratedResize) {
  CaseTally tally;
  const TallyScope scope(tally);
  const bool ok = rc::check("Resize override equals the reference", [] {
    ResizeSpec s;
    s.opset = *rc::gen::element<std::int64_t>(11, 12, 13, 18, 19);
    s.mode = *rc::gen::element<std::string>("nearest", "linear");
    s.coordinate = *rc::gen::element<std::string>("", "half_pixel", "pytorch_half_pixel", "align_corners", "asymmetric");
    if (s.opset >= 19 && *rc::gen::arbitrary<bool>()) s.coordinate = "half_pixel_symmetric";
    s.nearest = *rc::gen::element<std::string>("", "round_prefer_floor", "round_prefer_ceil", "floor", "ceil");
    const std::vector<std::int64_t> shape{*rc::gen::inRange<std::int64_t>(1, 3), *rc::gen::inRange<std::int64_t>(1, 4),
                                          *rc::gen::inRange<std::int64_t>(1, 12), *rc::gen::inRange<std::int64_t>(1, 16)};
    const bool use_sizes = *rc::gen::arbitrary<bool>();
    if (use_sizes) {
      s.sizes = {shape[0], shape[1], *rc::gen::inRange<std::int64_t>(1, 30), *rc::gen::inRange<std::int64_t>(1, 30)};
      if (*rc::gen::arbitrary<bool>()) s.sizes[2] = shape[2];  // sometimes skipped
      s.empty_scales_with_sizes = *rc::gen::arbitrary<bool>();
    } else {
      s.scales = {1.0f, 1.0f};
      for (int i = 0; i < 2; ++i) {
        s.scales.push_back(*rc::gen::element<float>(0.5f, 0.6f, 0.75f, 1.0f, 1.0f, 1.25f, 1.5f, 1.9f, 2.0f, 2.0f,
                                                    3.0f, 4.0f, 0.3333f, 2.7f));
      }
      s.scales_f64 = *rc::gen::arbitrary<bool>();
      RC_PRE(static_cast<std::int64_t>(static_cast<float>(shape[2]) * s.scales[2]) >= 1 &&
             static_cast<std::int64_t>(static_cast<float>(shape[3]) * s.scales[3]) >= 1);
    }
    s.constant = *rc::gen::arbitrary<bool>();
    const auto seed = *rc::gen::arbitrary<std::uint32_t>();
    const int values = *rc::gen::inRange(0, 4);
    RC_ASSERT(difference(resize_case(shape, s, seed, values)) == "");
  });
  EXPECT_TRUE(ok);
  // Every generated case runs the override (one chunk each: not a thread test).
  EXPECT_EQ(tally.override_cases, tally.cases) << tally.summary();
}

// ---------------------------------------------------------------------------------------------
// BatchNormalization

OpCase batch_norm_case(std::int64_t opset, const std::vector<std::int64_t>& shape, float epsilon, std::uint32_t seed,
                       int values, int param_values) {
  std::mt19937 rng(seed);
  OpCase c;
  c.op = "BatchNormalization";
  c.opset = opset;
  c.attributes = {ib::float_attr("epsilon", epsilon)};
  c.inputs = {random_tensor(shape, rng, values)};
  const std::int64_t channels = shape[1];
  for (int i = 0; i < 4; ++i) {
    auto p = random_floats(static_cast<std::size_t>(channels), rng, param_values);
    if (i == 3 && param_values == 0) {
      for (float& v : p) v = v * v;  // a variance: mostly non-negative
    }
    c.inputs.push_back(Tensor::from_values<float>(DType::F32, Shape{channels}, std::span<const float>(p)));
  }
  c.constant = {false, true, true, true, true};
  return c;
}

TEST(DiffResizeNormConcat, BatchNormFixedCases) {
  CaseTally tally;
  const TallyScope scope(tally);
  std::uint32_t seed = 200;
  for (int values = 0; values < 4; ++values) {
    for (int params = 0; params < 3; ++params) {
      EXPECT_EQ(difference(batch_norm_case(9, {1, 24, 40, 40}, 1e-5f, seed++, values, params)), "");  // detector
      EXPECT_EQ(difference(batch_norm_case(7, {2, 3, 5, 7}, 1e-3f, seed++, values, params)), "");
      EXPECT_EQ(difference(batch_norm_case(15, {3, 5}, 0.0f, seed++, values, params)), "");
      EXPECT_EQ(difference(batch_norm_case(14, {1, 4, 3, 2, 5}, 1e-5f, seed++, values, params)), "");
      EXPECT_EQ(difference(batch_norm_case(9, {2, 3, 0, 4}, 1e-5f, seed++, values, params)), "");  // empty
    }
  }
  EXPECT_EQ(tally.override_cases, 60u) << tally.summary();
  EXPECT_EQ(tally.shared_cases, 12u) << tally.summary();
}

TEST(DiffResizeNormConcat, GeneratedBatchNorm) {
  CaseTally tally;
  const TallyScope scope(tally);
  const bool ok = rc::check("BatchNormalization override equals the reference", [] {
    const std::int64_t opset = *rc::gen::element<std::int64_t>(7, 9, 14, 15);
    std::vector<std::int64_t> shape{*rc::gen::inRange<std::int64_t>(1, 4), *rc::gen::inRange<std::int64_t>(1, 10)};
    const int spatial = *rc::gen::inRange(0, 4);
    for (int i = 0; i < spatial; ++i) shape.push_back(*rc::gen::inRange<std::int64_t>(1, 11));
    const float epsilon = *rc::gen::element<float>(1e-5f, 1e-3f, 0.0f, 0.1f, 9.999999747378752e-06f);
    const auto seed = *rc::gen::arbitrary<std::uint32_t>();
    RC_ASSERT(difference(batch_norm_case(opset, shape, epsilon, seed, *rc::gen::inRange(0, 4), *rc::gen::inRange(0, 3))) ==
              "");
  });
  EXPECT_TRUE(ok);
  EXPECT_EQ(tally.override_cases, tally.cases) << tally.summary();
}

// ---------------------------------------------------------------------------------------------
// Concat

Tensor random_typed(DType type, const std::vector<std::int64_t>& shape, std::mt19937& rng) {
  if (type == DType::F32) return random_tensor(shape, rng, static_cast<int>(rng() % 4));
  Tensor t = Tensor::empty(type, shape_of(shape));
  auto bytes = mutable_tensor_bytes(t);
  for (std::byte& b : bytes) b = static_cast<std::byte>(type == DType::Bool ? rng() % 2 : rng() % 256);
  return t;
}

OpCase concat_case(std::int64_t opset, DType type, const std::vector<std::vector<std::int64_t>>& shapes,
                   std::int64_t axis, std::uint32_t seed) {
  std::mt19937 rng(seed);
  OpCase c;
  c.op = "Concat";
  c.opset = opset;
  if (opset >= 4 || axis != 1) c.attributes = {ib::int_attr("axis", axis)};
  for (const auto& s : shapes) c.inputs.push_back(random_typed(type, s, rng));
  c.constant.assign(shapes.size(), false);
  return c;
}

TEST(DiffResizeNormConcat, ConcatFixedCases) {
  CaseTally tally;
  const TallyScope scope(tally);
  std::uint32_t seed = 300;
  // The detector's join of four maps on C, large enough to be cut into several pieces.
  EXPECT_EQ(difference(concat_case(12, DType::F32, {{1, 8, 40, 40}, {1, 8, 40, 40}, {1, 8, 40, 40}, {1, 8, 40, 40}}, 1,
                                   seed++)),
            "");
  EXPECT_EQ(difference(concat_case(13, DType::I64, {{2, 3, 1}, {2, 0, 1}, {2, 5, 1}}, -2, seed++)), "");
  EXPECT_EQ(difference(concat_case(1, DType::U8, {{3, 2}, {3, 7}}, 1, seed++)), "");  // default axis 1
  EXPECT_EQ(difference(concat_case(11, DType::Bool, {{4}, {1}, {3}}, 0, seed++)), "");
  EXPECT_EQ(difference(concat_case(11, DType::F16, {{300, 2, 3}, {300, 1, 3}}, 1, seed++)), "");  // many rows
  EXPECT_EQ(difference(concat_case(11, DType::F64, {{0, 2}, {0, 3}}, 1, seed++)), "");            // empty output
  // More inputs than the override keeps on its stack: the reference.
  std::vector<std::vector<std::int64_t>> many(70, std::vector<std::int64_t>{2, 1, 3});
  EXPECT_EQ(difference(concat_case(13, DType::F32, many, 1, seed++)), "");
  // The 70-input case is past the override's 64 inputs and runs the reference kernel (a labelled
  // fallback); the other six run the override. None spans two chunks: not a thread test.
  EXPECT_EQ(tally.override_cases, 6u) << tally.summary();
  EXPECT_EQ(tally.fallback_cases, 1u) << tally.summary();
}

TEST(DiffResizeNormConcat, GeneratedConcat) {
  CaseTally tally;
  const TallyScope scope(tally);
  const bool ok = rc::check("Concat override equals the reference", [] {
    const DType type = *rc::gen::element(DType::F32, DType::U8, DType::I16, DType::I64, DType::Bool, DType::F16,
                                         DType::F64);
    const int rank = *rc::gen::inRange(1, 5);
    std::vector<std::int64_t> base;
    for (int d = 0; d < rank; ++d) base.push_back(*rc::gen::inRange<std::int64_t>(1, 6));
    const std::int64_t axis = *rc::gen::inRange<std::int64_t>(-rank, rank);
    const std::size_t axis_index = static_cast<std::size_t>(axis < 0 ? axis + rank : axis);
    const int count = *rc::gen::inRange(1, 6);
    std::vector<std::vector<std::int64_t>> shapes;
    for (int i = 0; i < count; ++i) {
      auto s = base;
      s[axis_index] = *rc::gen::inRange<std::int64_t>(0, 7);
      shapes.push_back(s);
    }
    const std::int64_t opset = *rc::gen::element<std::int64_t>(4, 11, 13);
    RC_ASSERT(difference(concat_case(opset, type, shapes, axis, *rc::gen::arbitrary<std::uint32_t>())) == "");
  });
  EXPECT_TRUE(ok);
  EXPECT_EQ(tally.override_cases, tally.cases) << tally.summary();
}

}  // namespace
}  // namespace onemodel::diff
