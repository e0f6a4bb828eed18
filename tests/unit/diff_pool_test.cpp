// MaxPool, AveragePool, GlobalAveragePool and GlobalMaxPool through the optimized overrides
// (optimized/kernels/pool/) against the reference kernels (diff/op_harness.hpp), on every path this
// machine has at 1 and 2 threads: exact mode through check_everywhere and fast mode compared bit
// for bit too (spec/ops/products-conv.md section 8 states a max and sequential sums that do not
// depend on the mode). Rapidcheck generates shapes, kernels, strides, dilations, pads, auto_pad,
// ceil_mode and count_include_pad, with values including NaN (several payloads), infinities,
// signed zeros (ties), subnormals, and inputs made mostly of NaN or of a few tied values; fixed
// cases cover windows entirely in padding and the cases that run the reference (Indices, 1-D, 3-D).
#include <gtest/gtest.h>
#include <rapidcheck.h>

#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

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

// Values: 0 uniform in [-2, 2); 1 uniform with one in eight special; 2 only from the special
// palette (ties of equal values and of -0/+0, windows of NaN); 3 seven in eight NaN.
Tensor random_tensor(const std::vector<std::int64_t>& shape, std::mt19937& rng, int values) {
  std::size_t count = 1;
  for (std::int64_t e : shape) count *= static_cast<std::size_t>(e);
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
  return Tensor::from_values<float>(DType::F32, Shape(std::span<const std::int64_t>(shape)),
                                    std::span<const float>(v));
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
  const std::string exact = check_everywhere(c, "diff-pool-" + c.op, &runs);
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

struct Window {
  std::vector<std::int64_t> kernel, strides, dilations, pads;
  std::string auto_pad = "NOTSET";
  bool ceil_mode = false;
  bool count_include_pad = false;
};

OpCase pool_case(const std::string& op, std::int64_t opset, const std::vector<std::int64_t>& shape, const Window& w,
                 std::uint32_t seed, int values) {
  std::mt19937 rng(seed);
  OpCase c;
  c.op = op;
  c.opset = opset;
  c.attributes = {ib::ints_attr("kernel_shape", w.kernel)};
  if (!w.strides.empty()) c.attributes.push_back(ib::ints_attr("strides", w.strides));
  if (!w.dilations.empty()) c.attributes.push_back(ib::ints_attr("dilations", w.dilations));
  if (w.auto_pad == "NOTSET") {
    if (!w.pads.empty()) c.attributes.push_back(ib::ints_attr("pads", w.pads));
  } else {
    c.attributes.push_back(ib::string_attr("auto_pad", w.auto_pad));
  }
  if (w.ceil_mode) c.attributes.push_back(ib::int_attr("ceil_mode", 1));
  if (op == "AveragePool" && w.count_include_pad) c.attributes.push_back(ib::int_attr("count_include_pad", 1));
  c.inputs = {random_tensor(shape, rng, values)};
  c.constant = {false};
  return c;
}

OpCase global_case(const std::string& op, const std::vector<std::int64_t>& shape, std::uint32_t seed, int values) {
  std::mt19937 rng(seed);
  OpCase c;
  c.op = op;
  c.opset = 1;
  c.inputs = {random_tensor(shape, rng, values)};
  c.constant = {false};
  return c;
}

TEST(DiffPool, OverridesAreRegistered) {
  for (const char* op : {"MaxPool", "AveragePool", "GlobalAveragePool", "GlobalMaxPool"}) {
    EXPECT_TRUE(has_override(op, 1)) << op;
    EXPECT_TRUE(has_override(op, 22)) << op;
  }
}

TEST(DiffPool, FixedCases) {
  CaseTally tally;
  const TallyScope scope(tally);
  std::uint32_t seed = 1;
  for (int values = 0; values < 4; ++values) {
    for (const char* op : {"MaxPool", "AveragePool"}) {
      // The ResNet-50 stem geometry (3x3 stride 2 pad 1) on a small plane, odd and even widths.
      Window stem{{3, 3}, {2, 2}, {}, {1, 1, 1, 1}};
      EXPECT_EQ(difference(pool_case(op, 12, {1, 3, 21, 37}, stem, seed++, values)), "");
      EXPECT_EQ(difference(pool_case(op, 12, {2, 2, 20, 40}, stem, seed++, values)), "");
      // Stride 1 same-size windows, count_include_pad, dilation and ceil_mode overhang.
      Window same{{3, 3}, {1, 1}, {}, {}, "SAME_UPPER"};
      same.count_include_pad = true;
      EXPECT_EQ(difference(pool_case(op, 19, {1, 2, 9, 35}, same, seed++, values)), "");
      Window dilated{{2, 3}, {3, 2}, {2, 2}, {0, 1, 1, 0}};
      dilated.ceil_mode = true;
      EXPECT_EQ(difference(pool_case(op, 19, {1, 3, 17, 41}, dilated, seed++, values)), "");
      // Pads wider than the kernel: whole windows (rows, columns, corners) in the padding. Max
      // gives the lowest float there; average gives 0 / 0 (NaN, canonical) or 0 / taps.
      for (bool include : {false, true}) {
        Window padded{{2, 2}, {1, 1}, {}, {3, 4, 3, 5}};
        padded.count_include_pad = include;
        EXPECT_EQ(difference(pool_case(op, 19, {1, 2, 3, 3}, padded, seed++, values)), "");
        Window strided{{2, 3}, {2, 3}, {}, {4, 3, 5, 6}};
        strided.count_include_pad = include;
        strided.ceil_mode = true;
        EXPECT_EQ(difference(pool_case(op, 19, {2, 1, 4, 20}, strided, seed++, values)), "");
      }
    }
  }
  // Every case runs the override. None is large enough to span two chunks: not a thread test.
  EXPECT_EQ(tally.override_cases, 64u) << tally.summary();
}

TEST(DiffPool, ReferenceCasesStayTheReference) {
  CaseTally tally;
  const TallyScope scope(tally);
  // Indices output, 1-D and 3-D windows, and float64 MaxPool run the reference kernel.
  OpCase indices = pool_case("MaxPool", 12, {1, 2, 7, 9}, Window{{3, 3}, {2, 2}, {}, {1, 1, 1, 1}}, 5, 2);
  indices.outputs = 2;
  EXPECT_EQ(difference(indices), "");
  EXPECT_EQ(difference(pool_case("MaxPool", 12, {1, 2, 19}, Window{{3}, {2}, {}, {1, 1}}, 6, 1)), "");
  EXPECT_EQ(difference(pool_case("AveragePool", 19, {1, 2, 19}, Window{{3}, {2}, {}, {1, 1}}, 7, 1)), "");
  EXPECT_EQ(difference(pool_case("MaxPool", 12, {1, 1, 4, 5, 6}, Window{{2, 2, 2}, {1, 2, 1}, {}, {}}, 8, 1)), "");
  OpCase f64 = pool_case("MaxPool", 12, {1, 1, 4, 5}, Window{{2, 2}, {1, 1}, {}, {}}, 9, 0);
  f64.inputs[0] = Tensor::from_values<double>(DType::F64, Shape{1, 1, 4, 5}, std::vector<double>(20, 1.5));
  EXPECT_EQ(difference(f64), "");
  // Fallback cases, labelled as such: they compare the reference kernel with itself.
  EXPECT_EQ(tally.fallback_cases, 5u) << tally.summary();
}

TEST(DiffPool, GlobalFixedCases) {
  CaseTally tally;
  const TallyScope scope(tally);
  std::uint32_t seed = 100;
  for (int values = 0; values < 4; ++values) {
    for (const char* op : {"GlobalAveragePool", "GlobalMaxPool"}) {
      EXPECT_EQ(difference(global_case(op, {1, 19, 7, 7}, seed++, values)), "");
      EXPECT_EQ(difference(global_case(op, {2, 9, 5, 6}, seed++, values)), "");
      EXPECT_EQ(difference(global_case(op, {3, 5}, seed++, values)), "");
      EXPECT_EQ(difference(global_case(op, {1, 17, 3}, seed++, values)), "");
      EXPECT_EQ(difference(global_case(op, {1, 8, 2, 3, 4}, seed++, values)), "");
      EXPECT_EQ(difference(global_case(op, {1, 3, 0, 4}, seed++, values)), "");  // empty planes: 0 / 0
    }
  }
  EXPECT_EQ(tally.override_cases, 48u) << tally.summary();
}

TEST(DiffPool, GeneratedPool2d) {
  CaseTally tally;
  const TallyScope scope(tally);
  const bool ok = rc::check("MaxPool / AveragePool overrides equal the reference", [] {
    const bool max = *rc::gen::arbitrary<bool>();
    Window w;
    std::vector<std::int64_t> in;
    for (int i = 0; i < 2; ++i) {
      in.push_back(*rc::gen::inRange<std::int64_t>(1, i == 0 ? 12 : 48));
      w.kernel.push_back(*rc::gen::inRange<std::int64_t>(1, 5));
      w.strides.push_back(*rc::gen::element<std::int64_t>(1, 1, 2, 2, 3));
      w.dilations.push_back(*rc::gen::element<std::int64_t>(1, 1, 1, 2, 3));
    }
    for (int i = 0; i < 4; ++i) w.pads.push_back(*rc::gen::element<std::int64_t>(0, 0, 1, 1, 2, 4));
    w.auto_pad = *rc::gen::element<std::string>("NOTSET", "NOTSET", "NOTSET", "SAME_UPPER", "SAME_LOWER", "VALID");
    w.ceil_mode = *rc::gen::arbitrary<bool>();
    w.count_include_pad = *rc::gen::arbitrary<bool>();
    for (int i = 0; i < 2; ++i) {
      const std::size_t a = static_cast<std::size_t>(i);
      const std::int64_t padded = w.auto_pad == "NOTSET" ? in[a] + w.pads[a] + w.pads[a + 2] : in[a];
      if (w.auto_pad == "NOTSET" || w.auto_pad == "VALID") RC_PRE(padded >= w.dilations[a] * (w.kernel[a] - 1) + 1);
    }
    const std::vector<std::int64_t> shape{*rc::gen::inRange<std::int64_t>(1, 3), *rc::gen::inRange<std::int64_t>(1, 4),
                                          in[0], in[1]};
    const auto seed = *rc::gen::arbitrary<std::uint32_t>();
    const int values = *rc::gen::inRange(0, 4);
    const OpCase c = pool_case(max ? "MaxPool" : "AveragePool", max ? 12 : 19, shape, w, seed, values);
    RC_ASSERT(difference(c) == "");
  });
  EXPECT_TRUE(ok);
  EXPECT_EQ(tally.override_cases, tally.cases) << tally.summary();
}

TEST(DiffPool, GeneratedGlobal) {
  CaseTally tally;
  const TallyScope scope(tally);
  const bool ok = rc::check("GlobalAveragePool / GlobalMaxPool overrides equal the reference", [] {
    const bool max = *rc::gen::arbitrary<bool>();
    std::vector<std::int64_t> shape{*rc::gen::inRange<std::int64_t>(1, 3), *rc::gen::inRange<std::int64_t>(1, 20)};
    const int spatial = *rc::gen::inRange(0, 4);
    for (int i = 0; i < spatial; ++i) shape.push_back(*rc::gen::inRange<std::int64_t>(1, 9));
    const auto seed = *rc::gen::arbitrary<std::uint32_t>();
    const int values = *rc::gen::inRange(0, 4);
    RC_ASSERT(difference(global_case(max ? "GlobalMaxPool" : "GlobalAveragePool", shape, seed, values)) == "");
  });
  EXPECT_TRUE(ok);
  EXPECT_EQ(tally.override_cases, tally.cases) << tally.summary();
}

}  // namespace
}  // namespace onemodel::diff
