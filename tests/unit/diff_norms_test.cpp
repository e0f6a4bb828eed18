// Differential tests of the norm-family overrides (optimized/ops/op_layer_normalization.cpp,
// op_rms_normalization.cpp, op_instance_normalization.cpp and
// op_reduce_<name>.cpp for ReduceSum, ReduceMean, ReduceSumSquare, ReduceL1, ReduceL2, ReduceMax,
// ReduceMin, ReduceLogSum) against the reference kernels through diff/op_harness.hpp: the same bits in exact and
// fast mode (spec/ops/norms.md: these kernels share one code path), on every instruction-set path
// of this machine, at 1 and 2 threads, over rapidcheck-generated shapes, axes and values with
// NaN, infinities, signed zeros and subnormals.
#include <gtest/gtest.h>
#include <rapidcheck.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "diff/op_harness.hpp"
#include "tests/support/diff_test_helpers.hpp"
#include "tests/support/ir_builder.hpp"

namespace onemodel::diff {
namespace {

using ir_builder::float_attr;
using ir_builder::int_attr;
using ir_builder::ints_attr;
using test_helpers::compare_everywhere;
using test_helpers::count_of;
using test_helpers::f32_tensor;

std::vector<float> random_values(std::mt19937& rng, std::size_t n, bool specials) {
  std::normal_distribution<float> normal(0.3f, 4.0f);
  std::uniform_int_distribution<int> pick(0, 40);
  std::vector<float> v(n);
  for (float& x : v) {
    x = normal(rng);
    if (!specials) continue;
    switch (pick(rng)) {
      case 0: x = NAN; break;
      case 1: x = INFINITY; break;
      case 2: x = -INFINITY; break;
      case 3: x = 0.0f; break;
      case 4: x = -0.0f; break;
      case 5: x = 3e-42f; break;
      default: break;
    }
  }
  return v;
}

TEST(DiffNorms, OverridesExist) {
  EXPECT_TRUE(has_override("LayerNormalization", 17));
  for (const char* op : {"ReduceMean", "ReduceSumSquare", "ReduceL1", "ReduceL2", "ReduceMax", "ReduceMin", "ReduceLogSum"}) {
    EXPECT_TRUE(has_override(op, 13)) << op;
    EXPECT_TRUE(has_override(op, 18)) << op;
  }
  EXPECT_TRUE(has_override("ReduceSum", 11));
  EXPECT_TRUE(has_override("ReduceSum", 13));
}

OpCase layer_norm_case(std::mt19937& rng, std::vector<std::int64_t> dims, std::int64_t axis, bool bias,
                       bool short_params, bool specials, std::size_t outputs) {
  const int rank = static_cast<int>(dims.size());
  const int a = static_cast<int>(axis < 0 ? axis + rank : axis);
  std::vector<std::int64_t> pdims(dims.begin() + a, dims.end());
  if (short_params && !pdims.empty()) pdims.erase(pdims.begin());  // fewer leading dimensions: broadcast
  OpCase c;
  c.op = "LayerNormalization";
  c.opset = 17;
  c.attributes = {int_attr("axis", axis), float_attr("epsilon", 1e-4f)};
  c.inputs.push_back(f32_tensor(dims, random_values(rng, static_cast<std::size_t>(count_of(dims)), specials)));
  c.inputs.push_back(f32_tensor(pdims, random_values(rng, static_cast<std::size_t>(count_of(pdims)), false)));
  if (bias) c.inputs.push_back(f32_tensor(pdims, random_values(rng, static_cast<std::size_t>(count_of(pdims)), false)));
  c.outputs = outputs;
  return c;
}

TEST(DiffNorms, LayerNormalizationFixedCases) {
  std::mt19937 rng(1);
  CaseTally tally;
  EXPECT_EQ("", compare_everywhere(layer_norm_case(rng, {2, 128, 768}, -1, true, false, false, 3), &tally));
  EXPECT_EQ("", compare_everywhere(layer_norm_case(rng, {3, 5, 7}, 1, false, true, true, 1), &tally));
  EXPECT_EQ("", compare_everywhere(layer_norm_case(rng, {4, 33}, -1, true, false, true, 2), &tally));
  EXPECT_EQ("", compare_everywhere(layer_norm_case(rng, {1, 40000}, -1, true, false, false, 3), &tally));
  // All four run the override; the first is split between two threads (16384-element chunks),
  // the last is one row, one chunk.
  EXPECT_EQ(tally.override_cases, 4u) << tally.summary();
  EXPECT_EQ(tally.shared_cases, 1u) << tally.summary();
}

TEST(DiffNorms, LayerNormalizationRandom) {
  CaseTally tally;
  EXPECT_TRUE(rc::check("LayerNormalization optimized == reference", [&](std::uint32_t seed) {
    std::mt19937 rng(seed);
    const int rank = 1 + static_cast<int>(seed % 4);
    std::vector<std::int64_t> dims;
    for (int d = 0; d < rank; ++d) dims.push_back(1 + static_cast<std::int64_t>(rng() % 19));
    const std::int64_t axis = static_cast<std::int64_t>(rng() % static_cast<unsigned>(rank)) - (seed % 2 == 0 ? rank : 0);
    const std::string d = compare_everywhere(
        layer_norm_case(rng, dims, axis, seed % 3 != 0, seed % 5 == 0, seed % 2 == 0, 1 + seed % 3), &tally);
    RC_ASSERT(d == "");
  }));
  // Every shape is served (no extent is 0). Below 16384 elements a call is one chunk, so this is
  // not a thread test (LayerNormalizationFixedCases splits one).
  EXPECT_EQ(tally.override_cases, tally.cases) << tally.summary();
}

TEST(DiffNorms, RMSNormalization) {
  EXPECT_TRUE(has_override("RMSNormalization", 23));
  std::mt19937 rng(8);
  CaseTally tally;
  for (const auto& [dims, axis, short_params] : std::vector<std::tuple<std::vector<std::int64_t>, std::int64_t, bool>>{
           {{2, 16, 384}, -1, false}, {{3, 5, 7}, 1, true}, {{4, 33}, 0, false}, {{1, 20000}, -1, false},
           {{64, 768}, -1, false}}) {
    for (bool specials : {false, true}) {
      OpCase c = layer_norm_case(rng, dims, axis, false, short_params, specials, 1);
      c.op = "RMSNormalization";
      c.opset = 23;
      EXPECT_EQ("", compare_everywhere(c, &tally));
    }
  }
  // All ten run the override. Chunks hold 16384 / cols rows: only {64, 768} (21 rows a chunk)
  // spans several, so it alone is split between two threads.
  EXPECT_EQ(tally.override_cases, 10u) << tally.summary();
  EXPECT_EQ(tally.shared_cases, 2u) << tally.summary();
}

// InstanceNormalization: input [N, C, spatial...], scale and B of shape [C] (one value per channel
// for a whole (sample, channel) plane).
OpCase instance_norm_case(std::mt19937& rng, const std::vector<std::int64_t>& dims, bool specials) {
  const std::vector<std::int64_t> pdims{dims[1]};
  OpCase c;
  c.op = "InstanceNormalization";
  c.opset = 6;
  c.attributes = {float_attr("epsilon", 1e-3f)};
  c.inputs.push_back(f32_tensor(dims, random_values(rng, static_cast<std::size_t>(count_of(dims)), specials)));
  c.inputs.push_back(f32_tensor(pdims, random_values(rng, static_cast<std::size_t>(dims[1]), specials)));
  c.inputs.push_back(f32_tensor(pdims, random_values(rng, static_cast<std::size_t>(dims[1]), specials)));
  return c;
}

TEST(DiffNorms, InstanceNormalizationFixedCases) {
  EXPECT_TRUE(has_override("InstanceNormalization", 6));
  EXPECT_TRUE(has_override("InstanceNormalization", 22));
  std::mt19937 rng(11);
  CaseTally tally;
  // wav2vec2's feature encoder ([1, 512, 3199]: 16384-element chunks of 5 planes, split between
  // two threads), planes narrower than a vector, rank 2 (one value per plane), rank 5, batch 3
  // (channel = row % C), and special values in the input and in scale and B.
  for (const auto& [dims, specials] : std::vector<std::pair<std::vector<std::int64_t>, bool>>{
           {{1, 512, 3199}, false}, {{2, 3, 5}, true}, {{4, 7}, true}, {{1, 2, 3, 4, 5}, false},
           {{3, 5, 17, 19}, true}, {{2, 64, 24, 24}, false}}) {
    EXPECT_EQ("", compare_everywhere(instance_norm_case(rng, dims, specials), &tally));
  }
  EXPECT_EQ(tally.override_cases, 6u) << tally.summary();
  // [1, 512, 3199] and [2, 64, 24, 24] (28 planes a chunk) span several chunks.
  EXPECT_EQ(tally.shared_cases, 2u) << tally.summary();
}

TEST(DiffNorms, InstanceNormalizationRandom) {
  CaseTally tally;
  EXPECT_TRUE(rc::check("InstanceNormalization optimized == reference", [&](std::uint32_t seed) {
    std::mt19937 rng(seed);
    const int rank = 2 + static_cast<int>(seed % 3);
    std::vector<std::int64_t> dims;
    for (int d = 0; d < rank; ++d) dims.push_back(1 + static_cast<std::int64_t>(rng() % 23));
    RC_ASSERT(compare_everywhere(instance_norm_case(rng, dims, seed % 2 == 0), &tally) == "");
  }));
  EXPECT_EQ(tally.override_cases, tally.cases) << tally.summary();
}

struct ReduceOp {
  const char* op;
  bool input_axes_from_13;  // ReduceSum takes axes as an input from 13, the others from 18
};

OpCase reduce_case(std::mt19937& rng, const char* op, std::int64_t opset, bool axes_as_input,
                   const std::vector<std::int64_t>& dims, std::vector<std::int64_t> axes, bool keepdims, bool specials) {
  OpCase c;
  c.op = op;
  c.opset = opset;
  c.attributes = {int_attr("keepdims", keepdims ? 1 : 0)};
  c.inputs.push_back(f32_tensor(dims, random_values(rng, static_cast<std::size_t>(count_of(dims)), specials)));
  if (axes_as_input) {
    c.inputs.push_back(Tensor::from_values<std::int64_t>(
        DType::I64, Shape{static_cast<std::int64_t>(axes.size())}, std::span<const std::int64_t>(axes)));
  } else if (!axes.empty()) {
    c.attributes.push_back(ints_attr("axes", axes));
  }
  return c;
}

// Whether the reduce override serves these axes (optimized/ops/reduce_override.hpp): after
// dropping extent-1 dimensions the reduced ones form one run; a second run falls back to the
// reference kernel. Empty axes reduce every dimension.
bool one_reduced_run(const std::vector<std::int64_t>& dims, const std::vector<std::int64_t>& axes) {
  const std::int64_t rank = static_cast<std::int64_t>(dims.size());
  std::vector<bool> reduced(dims.size(), axes.empty());
  for (std::int64_t a : axes) reduced[static_cast<std::size_t>(a < 0 ? a + rank : a)] = true;
  int phase = 0;
  for (std::size_t d = 0; d < dims.size(); ++d) {
    if (dims[d] == 1) continue;
    if (reduced[d]) {
      if (phase == 2) return false;
      phase = 1;
    } else if (phase == 1) {
      phase = 2;
    }
  }
  return true;
}

const ReduceOp kReduceOps[] = {{"ReduceSum", true},  {"ReduceMean", false}, {"ReduceSumSquare", false},
                               {"ReduceL1", false},  {"ReduceL2", false},   {"ReduceMax", false},
                               {"ReduceMin", false}, {"ReduceLogSum", false}};

TEST(DiffNorms, ReductionsFixedCases) {
  std::mt19937 rng(2);
  const std::vector<std::pair<std::vector<std::int64_t>, std::vector<std::int64_t>>> cases = {
      {{4, 300}, {1}},      {{4, 300}, {0}},       {{3, 5, 7}, {1}},  {{3, 5, 7}, {0, 1}}, {{3, 5, 7}, {1, 2}},
      {{3, 5, 7}, {0, 2}},  {{2, 1, 9}, {0, 1}},   {{6}, {}},         {{2, 3, 400}, {-1}}, {{1000, 3}, {0}},
      {{3, 0, 4}, {1}},     {{1, 1}, {0, 1}},      {{70000}, {0}}};
  CaseTally served, fallback;
  for (const ReduceOp& r : kReduceOps) {
    for (std::int64_t opset : {12, 18}) {
      const bool as_input = opset >= 18 || (r.input_axes_from_13 && opset >= 13);
      for (const auto& [dims, axes] : cases) {
        for (bool specials : {false, true}) {
          CaseTally& t = one_reduced_run(dims, axes) ? served : fallback;
          EXPECT_EQ("", compare_everywhere(reduce_case(rng, r.op, opset, as_input, dims, axes, specials, specials), &t));
        }
      }
    }
  }
  // {3, 5, 7} over axes {0, 2} (two reduced runs) falls back to the reference kernel: labelled
  // and counted apart (it compares that kernel with itself). Every other case runs the override.
  // Each is one chunk of 32768 terms, so this is not a thread test (tests/kernels/reduce_test.cpp
  // splits).
  EXPECT_EQ(served.override_cases, 8u * 2u * 12u * 2u) << served.summary();
  EXPECT_EQ(fallback.fallback_cases, 8u * 2u * 1u * 2u) << fallback.summary();
}

TEST(DiffNorms, ReductionsNoopAndBadAxes) {
  std::mt19937 rng(4);
  CaseTally noop;
  for (const ReduceOp& r : kReduceOps) {
    OpCase c = reduce_case(rng, r.op, 18, true, {3, 4}, {}, true, true);
    c.attributes.push_back(int_attr("noop_with_empty_axes", 1));
    EXPECT_EQ("", compare_everywhere(c, &noop));
    // A repeated axis, an axis equal to the rank and one below -rank (ONNX: axes lie in
    // [-r, r-1]); known only at run time, so the override must see and refuse them itself.
    for (const std::vector<std::int64_t>& axes : {std::vector<std::int64_t>{0, -2}, std::vector<std::int64_t>{2},
                                                   std::vector<std::int64_t>{-3}, std::vector<std::int64_t>{1, 2}}) {
      OpCase bad = reduce_case(rng, r.op, 18, true, {3, 4}, axes, true, false);
      bad.constant = {false, false};
      std::string ref_error, opt_error;
      try {
        (void)run_reference(bad, ExecutionMode::Exact);
      } catch (const std::exception& e) {
        ref_error = e.what();
      }
      try {
        (void)run_optimized(bad, ExecutionMode::Exact, opt::available_isas().back(), 1);
      } catch (const std::exception& e) {
        opt_error = e.what();
      }
      EXPECT_FALSE(ref_error.empty()) << r.op << " axes " << ::testing::PrintToString(axes);
      EXPECT_EQ(ref_error, opt_error) << r.op << " axes " << ::testing::PrintToString(axes);
    }
  }
  EXPECT_EQ(noop.cases, 8u) << noop.summary();
}

TEST(DiffNorms, ReductionsRandom) {
  CaseTally served, fallback;
  EXPECT_TRUE(rc::check("Reduce* optimized == reference", [&](std::uint32_t seed) {
    std::mt19937 rng(seed);
    const ReduceOp& r = kReduceOps[seed % 8];
    const std::int64_t opset = seed % 2 == 0 ? 18 : 11;
    const bool as_input = opset >= 18;
    const int rank = 1 + static_cast<int>(rng() % 4);
    std::vector<std::int64_t> dims, axes;
    for (int d = 0; d < rank; ++d) dims.push_back(1 + static_cast<std::int64_t>(rng() % 23));
    for (int d = 0; d < rank; ++d) {
      if (rng() % 2 == 0) axes.push_back(rng() % 2 == 0 ? d : d - rank);
    }
    CaseTally& t = one_reduced_run(dims, axes) ? served : fallback;
    const std::string d =
        compare_everywhere(reduce_case(rng, r.op, opset, as_input, dims, axes, seed % 3 == 0, seed % 4 == 0), &t);
    RC_ASSERT(d == "");
  }));
  // Cases with one reduced run must run the override, the others fall back (labelled apart).
  EXPECT_EQ(served.override_cases, served.cases) << served.summary();
  EXPECT_EQ(fallback.fallback_cases, fallback.cases) << fallback.summary();
  EXPECT_GE(served.cases, 50u) << served.summary();
}

}  // namespace
}  // namespace onemodel::diff
