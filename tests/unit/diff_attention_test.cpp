// Differential tests of the attention-family overrides (optimized/ops/op_softmax.cpp,
// op_log_softmax.cpp, op_attention.cpp) against the reference kernels through diff/op_harness.hpp,
// on every instruction-set path of this machine, at 1 and 2 threads:
//  - Softmax and LogSoftmax (opsets 1-12 coerced to 2-D, 13+ along one axis), exact mode: the
//    same bits, over rapidcheck-generated shapes and axes with NaN, infinities and signed zeros;
//    fast mode (fast exponential, kernels-attention.md "Softmax"): NaN where the reference has NaN,
//    elsewhere within 2e-6 relative (Softmax) or 4e-6 absolute plus 1e-6 relative (LogSoftmax),
//    and the same bits at 1 and 2 threads.
//  - Attention (spec/ops/attention.md section 5: both engines compute Y by the online softmax of
//    kernels-attention.md): exact mode, the override's fused kernel gives the reference's bits on
//    every path at 1 and 2 threads, also with NaN, infinities, signed zeros and fully masked rows
//    holding NaN scores; fast mode, within 4e-6 absolute of the reference for q, k ~ N(0, 1.5^2)
//    (kernels-attention.md, "Accuracy"), with and without the causal flag, zeros for fully masked
//    rows like the reference, and the cases it does not serve give the reference's bits.
#include <gtest/gtest.h>
#include <rapidcheck.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "diff/counterexample.hpp"
#include "diff/op_harness.hpp"
#include "tests/support/diff_test_helpers.hpp"
#include "tests/support/ir_builder.hpp"

namespace onemodel::diff {
namespace {

using ir_builder::float_attr;
using ir_builder::int_attr;
using test_helpers::count_of;
using test_helpers::f32_tensor;

std::vector<float> random_values(std::mt19937& rng, std::size_t n, float sigma, bool specials) {
  std::normal_distribution<float> normal(0.0f, sigma);
  std::uniform_int_distribution<int> pick(0, 60);
  std::vector<float> v(n);
  for (float& x : v) {
    x = normal(rng);
    if (!specials) continue;
    switch (pick(rng)) {
      case 0: x = NAN; break;
      case 1: x = INFINITY; break;
      case 2: case 3: case 4: x = -INFINITY; break;
      case 5: x = 0.0f; break;
      case 6: x = -0.0f; break;
      default: break;
    }
  }
  return v;
}

std::string where(ExecutionMode mode, opt::Isa isa, int threads) {
  return std::string(mode == ExecutionMode::Exact ? "exact " : "fast ") + std::string(opt::isa_name(isa)) +
         " threads " + std::to_string(threads);
}

// NaN must match NaN; other values |a - b| <= abs + rel * |b| (infinities must be equal).
std::string first_far(const Tensor& got, const Tensor& want, double abs, double rel) {
  const auto g = got.data<float>();
  const auto w = want.data<float>();
  if (g.size() != w.size()) return "sizes differ";
  for (std::size_t i = 0; i < g.size(); ++i) {
    if (std::isnan(w[i]) || std::isnan(g[i])) {
      if (std::isnan(w[i]) != std::isnan(g[i])) return "NaN mismatch at " + std::to_string(i);
      continue;
    }
    if (std::isinf(w[i]) || std::isinf(g[i])) {
      if (g[i] != w[i]) return "infinity mismatch at " + std::to_string(i);
      continue;
    }
    const double diff = std::fabs(static_cast<double>(g[i]) - w[i]);
    if (diff > abs + rel * std::fabs(w[i])) {
      return "at " + std::to_string(i) + " got " + std::to_string(g[i]) + " want " + std::to_string(w[i]);
    }
  }
  return {};
}

// Exact: bits on every path and thread count. Fast: within the bound, and thread independent.
// `tally` (when given) gets the case added once it passed: whether the override ran, whether two
// threads shared its work; its exact-mode runs go to `exact_tally` instead when that is given.
std::string compare(const OpCase& c, double fast_abs, double fast_rel, CaseTally* tally = nullptr,
                    CaseTally* exact_tally = nullptr) {
  RunTally runs, exact_runs;
  for (ExecutionMode mode : {ExecutionMode::Exact, ExecutionMode::Fast}) {
    RunTally& mode_runs = mode == ExecutionMode::Exact && exact_tally != nullptr ? exact_runs : runs;
    const auto want = run_reference(c, mode);
    for (opt::Isa isa : opt::available_isas()) {
      OptimizedRun run_one, run_two;
      const auto one = run_optimized(c, mode, isa, 1, &run_one);
      const auto two = run_optimized(c, mode, isa, 2, &run_two);
      mode_runs.add(run_one, 1);
      mode_runs.add(run_two, 2);
      std::string d = first_difference(one, two);
      if (!d.empty()) return c.op + " threads differ " + where(mode, isa, 2) + ": " + d;
      if (mode == ExecutionMode::Exact) {
        d = first_difference(want, one);
      } else {
        for (std::size_t o = 0; o < want.size() && d.empty(); ++o) d = first_far(one[o], want[o], fast_abs, fast_rel);
      }
      if (!d.empty()) return c.op + " " + where(mode, isa, 1) + ": " + d;
    }
  }
  if (tally != nullptr) tally->add(runs);
  if (exact_tally != nullptr) exact_tally->add(exact_runs);
  return {};
}

OpCase softmax_case(std::mt19937& rng, const char* op, std::int64_t opset, const std::vector<std::int64_t>& dims,
                    std::int64_t axis, bool specials) {
  OpCase c;
  c.op = op;
  c.opset = opset;
  c.attributes = {int_attr("axis", axis)};
  c.inputs.push_back(f32_tensor(dims, random_values(rng, static_cast<std::size_t>(count_of(dims)), 4.0f, specials)));
  return c;
}

double fast_abs(const char* op) { return std::string(op) == "Softmax" ? 1e-37 : 4e-6; }
double fast_rel(const char* op) { return std::string(op) == "Softmax" ? 2e-6 : 1e-6; }

TEST(DiffAttention, OverridesExist) {
  for (std::int64_t opset : {11, 13, 21}) {
    EXPECT_TRUE(has_override("Softmax", opset));
    EXPECT_TRUE(has_override("LogSoftmax", opset));
  }
  EXPECT_TRUE(has_override("Attention", 23));
}

TEST(DiffAttention, SoftmaxFixedCases) {
  std::mt19937 rng(3);
  CaseTally tally, large;
  for (const char* op : {"Softmax", "LogSoftmax"}) {
    for (bool specials : {false, true}) {
      EXPECT_EQ("", compare(softmax_case(rng, op, 13, {12, 128, 128}, -1, specials), fast_abs(op), fast_rel(op), &large));
      EXPECT_EQ("", compare(softmax_case(rng, op, 13, {3, 17, 5}, 1, specials), fast_abs(op), fast_rel(op), &tally));
      EXPECT_EQ("", compare(softmax_case(rng, op, 13, {3, 17, 5}, 0, specials), fast_abs(op), fast_rel(op), &tally));
      EXPECT_EQ("", compare(softmax_case(rng, op, 11, {3, 17, 5}, 1, specials), fast_abs(op), fast_rel(op), &tally));
      EXPECT_EQ("", compare(softmax_case(rng, op, 11, {3, 17, 5}, 3, specials), fast_abs(op), fast_rel(op), &tally));
      EXPECT_EQ("", compare(softmax_case(rng, op, 1, {2, 40000}, 1, specials), fast_abs(op), fast_rel(op), &large));
    }
  }
  // Every case runs the override (none falls back); the two large shapes of every op are split
  // between two threads.
  EXPECT_EQ(tally.override_cases, 16u) << tally.summary();
  EXPECT_EQ(large.override_cases, 8u) << large.summary();
  EXPECT_EQ(large.shared_cases, 8u) << large.summary();
}

TEST(DiffAttention, SoftmaxRandomShapesAndAxes) {
  CaseTally tally;
  EXPECT_TRUE(rc::check("Softmax/LogSoftmax optimized vs reference", [&](std::uint32_t seed) {
    std::mt19937 rng(seed);
    const char* op = seed % 2 == 0 ? "Softmax" : "LogSoftmax";
    const std::int64_t opset = seed % 3 == 0 ? 11 : 13;
    const int rank = 1 + static_cast<int>(rng() % 4);
    std::vector<std::int64_t> dims;
    for (int d = 0; d < rank; ++d) dims.push_back(1 + static_cast<std::int64_t>(rng() % 21));
    const int upper = opset < 13 ? rank + 1 : rank;  // Softmax-1..12 admits axis == rank
    const std::int64_t axis = static_cast<std::int64_t>(rng() % static_cast<unsigned>(upper)) - (seed % 5 == 0 ? rank : 0);
    const std::string d = compare(softmax_case(rng, op, opset, dims, axis, seed % 4 == 0), fast_abs(op), fast_rel(op), &tally);
    RC_ASSERT(d == "");
  }));
  // Every shape and axis is served by the override (a fallback would compare the reference with
  // itself). The shapes are small: their thread split is not claimed here (SoftmaxFixedCases).
  EXPECT_EQ(tally.override_cases, tally.cases) << tally.summary();
  EXPECT_GE(tally.cases, 100u) << tally.summary();
}

struct AttentionShape {
  std::int64_t batch, q_heads, kv_heads, q_len, kv_len, d, dv;
  bool rank3;
};

OpCase attention_case(std::mt19937& rng, const AttentionShape& s, int mask_rank, bool masked_rows, bool specials = false) {
  OpCase c;
  c.op = "Attention";
  c.opset = 23;
  std::vector<std::int64_t> qd, kd, vd;
  if (s.rank3) {
    qd = {s.batch, s.q_len, s.q_heads * s.d};
    kd = {s.batch, s.kv_len, s.kv_heads * s.d};
    vd = {s.batch, s.kv_len, s.kv_heads * s.dv};
    c.attributes = {int_attr("q_num_heads", s.q_heads), int_attr("kv_num_heads", s.kv_heads)};
  } else {
    qd = {s.batch, s.q_heads, s.q_len, s.d};
    kd = {s.batch, s.kv_heads, s.kv_len, s.d};
    vd = {s.batch, s.kv_heads, s.kv_len, s.dv};
  }
  // Special values are sparse: each touches a whole row (Q) or column (V) of the output.
  const auto sprinkle = [&](std::vector<float> v, std::int64_t one_in) {
    if (!specials) return v;
    const float pool[] = {NAN, INFINITY, -INFINITY, 0.0f, -0.0f, 1e-40f};
    std::uniform_int_distribution<std::int64_t> hit(0, one_in - 1);
    std::uniform_int_distribution<int> which(0, 5);
    for (float& x : v) {
      if (hit(rng) == 0) x = pool[which(rng)];
    }
    return v;
  };
  c.inputs.push_back(f32_tensor(qd, sprinkle(random_values(rng, static_cast<std::size_t>(count_of(qd)), 1.5f, false), 6 * s.d)));
  // Special values in K would make nearly every row NaN (a NaN or infinite key element poisons
  // the score of every query): they go into Q (one row each), V (one column each) and the mask.
  c.inputs.push_back(f32_tensor(kd, random_values(rng, static_cast<std::size_t>(count_of(kd)), 1.5f, false)));
  c.inputs.push_back(f32_tensor(vd, sprinkle(random_values(rng, static_cast<std::size_t>(count_of(vd)), 1.0f, false), 3 * s.kv_len)));
  if (mask_rank > 0) {
    const std::vector<std::int64_t> full = {s.batch, s.q_heads, s.q_len, s.kv_len};
    std::vector<std::int64_t> md(full.end() - mask_rank, full.end());
    if (mask_rank == 4) md[1] = 1;  // broadcast over heads
    std::vector<float> m = random_values(rng, static_cast<std::size_t>(count_of(md)), 1.0f, false);
    std::uniform_int_distribution<int> pick(0, 4);
    for (float& x : m) x = pick(rng) == 0 ? -INFINITY : x;
    if (specials) {
      // Signed zeros, and rarely NaN or +inf (a row holding one is NaN throughout).
      std::uniform_int_distribution<int> rare(0, 400);
      for (float& x : m) {
        const int r = rare(rng);
        x = r < 20 ? -0.0f : r < 40 ? 0.0f : r == 41 ? NAN : r == 42 ? INFINITY : x;
      }
    }
    if (masked_rows && mask_rank >= 2) {
      const std::int64_t n = md.back();
      for (std::int64_t j = 0; j < n; ++j) m[static_cast<std::size_t>(j)] = -INFINITY;  // a fully masked row
    }
    c.inputs.push_back(f32_tensor(md, m));
  }
  return c;
}

TEST(DiffAttention, AttentionFastWithinTheBound) {
  std::mt19937 rng(5);
  const AttentionShape shapes[] = {{1, 12, 12, 128, 128, 64, 64, false}, {1, 12, 12, 128, 128, 32, 32, true},
                                   {2, 4, 2, 37, 70, 16, 8, false},      {1, 2, 1, 5, 200, 6, 10, true},
                                   {1, 1, 1, 1, 1, 2, 2, false}};
  CaseTally tally, exact;
  for (const AttentionShape& s : shapes) {
    for (int mask_rank : {0, 1, 2, 4}) {
      EXPECT_EQ("", compare(attention_case(rng, s, mask_rank, mask_rank == 2), 4e-6, 0.0, &tally, &exact))
          << s.q_len << " " << mask_rank;
    }
  }
  // Both modes: 20 cases, all served by the fused kernel (none falls back to the reference).
  EXPECT_EQ(tally.override_cases, 20u) << tally.summary();
  EXPECT_GT(tally.shared_cases, 0u) << tally.summary();
  EXPECT_EQ(exact.override_cases, 20u) << exact.summary();
  EXPECT_GT(exact.shared_cases, 0u) << exact.summary();
}

TEST(DiffAttention, AttentionRandomShapes) {
  CaseTally tally, exact;
  EXPECT_TRUE(rc::check("Attention optimized vs reference", [&](std::uint32_t seed) {
    std::mt19937 rng(seed);
    AttentionShape s;
    s.batch = 1 + seed % 2;
    s.kv_heads = 1 + static_cast<std::int64_t>(rng() % 3);
    s.q_heads = s.kv_heads * (1 + static_cast<std::int64_t>(rng() % 2));
    s.q_len = 1 + static_cast<std::int64_t>(rng() % 40);
    s.kv_len = 1 + static_cast<std::int64_t>(rng() % 140);
    s.d = 1 + static_cast<std::int64_t>(rng() % 20);
    s.dv = 1 + static_cast<std::int64_t>(rng() % 20);
    s.rank3 = seed % 3 == 0;
    const std::string d =
        compare(attention_case(rng, s, static_cast<int>(rng() % 5), seed % 4 == 0), 4e-6, 0.0, &tally, &exact);
    RC_ASSERT(d == "");
  }));
  // Both modes run the fused kernel every time.
  EXPECT_EQ(tally.override_cases, tally.cases) << tally.summary();
  EXPECT_GT(tally.shared_cases, 0u) << tally.summary();
  EXPECT_EQ(exact.override_cases, exact.cases) << exact.summary();
}

TEST(DiffAttention, AttentionOverrideRunsItsKernelAndKeepsMaskedRowsZero) {
  std::mt19937 rng(7);
  const OpCase c = attention_case(rng, {1, 2, 2, 40, 150, 64, 64, false}, 2, true);
  const auto want = run_reference(c, ExecutionMode::Fast);
  OptimizedRun run;
  const auto got = run_optimized(c, ExecutionMode::Fast, opt::available_isas().back(), 1, &run);
  EXPECT_TRUE(run.override_ran);
  // The fast flavour (fused multiply-add, the fast exponential, 1/l) rounds differently from the
  // reference's unfused order: some bits differ, so this case really ran the fused kernel.
  EXPECT_NE("", first_difference(want, got));
  EXPECT_EQ("", first_far(got[0], want[0], 4e-6, 0.0));
  // Row 0 of every head is fully masked: the reference gives zeros, and so must the override.
  const auto y = got[0].data<float>();
  for (std::int64_t h = 0; h < 2; ++h) {
    for (std::int64_t x = 0; x < 64; ++x) EXPECT_EQ(y[static_cast<std::size_t>(h * 40 * 64 + x)], 0.0f);
  }
}

TEST(DiffAttention, CausalWithinTheBound) {
  std::mt19937 rng(8);
  const AttentionShape shapes[] = {{1, 4, 4, 70, 70, 16, 16, false}, {2, 2, 1, 20, 90, 8, 12, true},
                                   {1, 2, 2, 90, 20, 8, 8, false}};
  CaseTally tally, exact;
  for (const AttentionShape& s : shapes) {
    for (int mask_rank : {0, 2, 4}) {
      OpCase c = attention_case(rng, s, mask_rank, false);
      c.attributes.push_back(int_attr("is_causal", 1));
      EXPECT_EQ("", compare(c, 4e-6, 0.0, &tally, &exact)) << s.q_len << " " << s.kv_len << " mask rank " << mask_rank;
    }
  }
  EXPECT_EQ(tally.override_cases, 9u) << tally.summary();
  EXPECT_GT(tally.shared_cases, 0u) << tally.summary();
  EXPECT_EQ(exact.override_cases, 9u) << exact.summary();
}

// Exact mode only: the reference's bits on every path at 1 and 2 threads with NaN, +-infinity and
// signed zeros in Q, K, V and the mask, fully masked rows among them (section 4 step 5: weights 0
// whatever the scores, so NaN scores there must not reach Y; the override rewrites those rows),
// with and without the causal flag, across the 64-key block edges.
// Through check_everywhere, which saves a differing case as a replayable counterexample.
std::string compare_exact(const OpCase& c, CaseTally& tally) {
  RunTally runs;
  std::string d = check_everywhere(c, "diff-attention-exact", &runs);
  if (d.empty()) tally.add(runs);
  return d;
}

TEST(DiffAttention, ExactSpecialValuesAndMaskedRows) {
  std::mt19937 rng(9);
  const AttentionShape shapes[] = {{1, 2, 2, 40, 150, 16, 16, false}, {2, 4, 2, 9, 64, 5, 7, true},
                                   {1, 2, 1, 33, 65, 8, 24, false},   {1, 1, 1, 3, 1, 2, 2, false}};
  CaseTally tally;
  for (const AttentionShape& s : shapes) {
    for (int mask_rank : {0, 2, 4}) {
      for (int causal : {0, 1}) {
        OpCase c = attention_case(rng, s, mask_rank, mask_rank > 0, true);
        if (causal == 1) c.attributes.push_back(int_attr("is_causal", 1));
        EXPECT_EQ("", compare_exact(c, tally)) << s.q_len << " " << s.kv_len << " mask rank " << mask_rank << " causal " << causal;
      }
    }
  }
  EXPECT_EQ(tally.override_cases, 24u) << tally.summary();
}

// A fallback case, labelled as one: softcap is not served, so the optimized engine runs the
// reference kernel and this compares that kernel with itself (it checks the hand-over only).
TEST(DiffAttention, UnservedCasesAreTheReferences) {
  std::mt19937 rng(6);
  OpCase s = attention_case(rng, {1, 2, 2, 9, 9, 4, 4, false}, 0, false);
  s.attributes.push_back(float_attr("softcap", 3.0f));
  CaseTally tally;
  EXPECT_EQ("", compare(s, 0.0, 0.0, &tally));
  EXPECT_EQ(tally.fallback_cases, 1u) << tally.summary();
}

}  // namespace
}  // namespace onemodel::diff
