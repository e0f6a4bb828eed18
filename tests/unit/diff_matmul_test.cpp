// Differential tests of the MatMul and Gemm overrides (optimized/ops/op_matmul.cpp, op_gemm.cpp)
// against the reference kernels through diff/op_harness.hpp: in exact mode the same bits on every
// instruction-set path of this machine at 1 and 2 threads, with B constant (packed at plan time)
// and not, over many shapes (1-D operands, batch broadcasting both ways, empty axes, several
// tiles and k-blocks) and inputs with NaN, infinities, signed zeros and subnormals; in fast mode
// within twice the bound of kernels-gemm.md "Fast mode" of the reference and the same bits at 1
// and 2 threads; other element types the reference's bits.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "core/graph/node_info.hpp"
#include "core/graph/op_kernel.hpp"
#include "diff/counterexample.hpp"
#include "diff/op_harness.hpp"
#include "optimized/frame/thread_pool.hpp"
#include "optimized/ops/optimized_kernel.hpp"
#include "tests/support/ir_builder.hpp"

namespace onemodel::diff {
namespace {

using ir_builder::float_attr;
using ir_builder::int_attr;

float from_bits(std::uint32_t u) {
  float x;
  std::memcpy(&x, &u, sizeof x);
  return x;
}

// Random values in [-2, 2] with a share of special ones.
std::vector<float> random_values(std::size_t count, std::mt19937& rng, double special_rate) {
  std::uniform_real_distribution<double> u(0.0, 1.0);
  std::vector<float> v(count);
  for (float& x : v) {
    if (u(rng) < special_rate) {
      static const std::uint32_t kSpecial[] = {0x7FC00000u, 0xFFC00001u, 0x7F800001u, 0x7F800000u, 0xFF800000u,
                                               0x00000000u, 0x80000000u, 0x00000001u, 0x807FFFFFu, 0x7F7FFFFFu};
      x = from_bits(kSpecial[std::uniform_int_distribution<int>(0, 9)(rng)]);
    } else {
      x = static_cast<float>(u(rng) * 4.0 - 2.0);
    }
  }
  return v;
}

Tensor f32_tensor(const Shape& shape, std::mt19937& rng, double special_rate) {
  const auto values = random_values(static_cast<std::size_t>(shape.element_count()), rng, special_rate);
  return Tensor::from_values<float>(DType::F32, shape, std::span<const float>(values));
}

std::string where(const OpCase& c, const char* mode, opt::Isa isa, int threads, bool b_constant) {
  std::string text = c.op + " " + mode + " " + std::string(opt::isa_name(isa)) + " threads " + std::to_string(threads) +
                     (b_constant ? " B constant" : " B variable") + " shapes";
  for (const Tensor& t : c.inputs) text += " " + (t.defined() ? t.shape().to_string() : std::string("none"));
  return text;
}

// The tally of the running test (set by a TallyScope): compare_exact adds every passing case, so
// a test can require how many ran the override, fell back to the reference kernel, or were split
// between two threads.
CaseTally* g_tally = nullptr;

struct TallyScope {
  explicit TallyScope(CaseTally& tally) { g_tally = &tally; }
  ~TallyScope() { g_tally = nullptr; }
  TallyScope(const TallyScope&) = delete;
  TallyScope& operator=(const TallyScope&) = delete;
};

// Exact mode: the reference's bits on every path, 1 and 2 threads, B constant and not.
std::string compare_exact(OpCase c) {
  RunTally runs;
  // check_everywhere saves a differing case as a replayable counterexample.
  for (const bool b_constant : {true, false}) {
    c.constant.assign(c.inputs.size(), false);
    if (b_constant) {
      for (std::size_t i = 1; i < c.inputs.size(); ++i) c.constant[i] = true;
    }
    const std::string d = check_everywhere(c, "diff-" + c.op + (b_constant ? "-packed" : "-plain"), &runs);
    if (!d.empty()) return c.op + (b_constant ? " (B constant) " : " ") + d;
  }
  if (g_tally != nullptr) g_tally->add(runs);
  return {};
}

OpCase matmul_case(const Shape& a, const Shape& b, std::mt19937& rng, double special_rate) {
  OpCase c;
  c.op = "MatMul";
  c.opset = 13;
  c.inputs = {f32_tensor(a, rng, special_rate), f32_tensor(b, rng, special_rate)};
  return c;
}

TEST(DiffMatMul, OverridesAreRegistered) {
  EXPECT_TRUE(has_override("MatMul", 1));
  EXPECT_TRUE(has_override("MatMul", 13));
  EXPECT_TRUE(has_override("Gemm", 7));
  EXPECT_TRUE(has_override("Gemm", 13));
}

TEST(DiffMatMul, ExactShapesOnEveryPath) {
  CaseTally tally;
  const TallyScope scope(tally);
  const std::pair<Shape, Shape> shapes[] = {
      {Shape{3, 4}, Shape{4, 5}},
      {Shape{1, 1}, Shape{1, 1}},
      {Shape{7}, Shape{7}},                      // 1-D times 1-D: a scalar
      {Shape{7}, Shape{7, 3}},                   // 1-D first operand
      {Shape{2, 3, 7}, Shape{7}},                // 1-D second operand
      {Shape{2, 1, 5, 6}, Shape{3, 6, 4}},       // batch broadcast both ways
      {Shape{4, 6}, Shape{2, 6, 3}},             // A broadcast over B's batch
      {Shape{2, 3, 50, 70}, Shape{70, 33}},      // batch folded into rows
      {Shape{2, 3, 9, 20}, Shape{1, 3, 20, 11}}, // B broadcast over A's batch
      {Shape{0, 5}, Shape{5, 3}},
      {Shape{3, 0}, Shape{0, 4}},                // k = 0: +0
      {Shape{2, 0, 3, 4}, Shape{4, 5}},          // empty batch
      {Shape{5, 4}, Shape{4, 0}},
      {Shape{97, 300}, Shape{300, 129}},         // several tiles and k-blocks, two threads
      {Shape{64, 40, 64}, Shape{64, 64, 40}},    // many small entries: one entry per chunk
      {Shape{3, 130, 257}, Shape{3, 257, 70}},   // mid-sized entries: still one entry per chunk
      // Entries over kMaxEntryChunkNs of work (m n k / 40 ns = 257 us, batch_entries.hpp): one
      // after the other, the pool inside each product.
      {Shape{2, 200, 257}, Shape{2, 257, 200}},
  };
  std::mt19937 rng(11);
  for (const auto& [a, b] : shapes) {
    for (const double special_rate : {0.0, 0.03}) {
      const std::string d = compare_exact(matmul_case(a, b, rng, special_rate));
      ASSERT_TRUE(d.empty()) << d;
    }
  }
  // All 34 cases run the override; the 18 with enough work per chunk are split between two threads.
  EXPECT_EQ(tally.override_cases, 34u) << tally.summary();
  EXPECT_EQ(tally.shared_cases, 18u) << tally.summary();
}

TEST(DiffMatMul, ExactRandomShapes) {
  CaseTally tally;
  const TallyScope scope(tally);
  std::mt19937 rng(12);
  std::uniform_int_distribution<std::int64_t> dim(1, 40), batch(1, 3);
  for (int trial = 0; trial < 40; ++trial) {
    const std::int64_t m = dim(rng), k = dim(rng), n = dim(rng);
    Shape a{m, k}, b{k, n};
    switch (trial % 4) {
      case 1: a = Shape{batch(rng), m, k}; break;
      case 2: b = Shape{batch(rng), k, n}; break;
      case 3: {
        const std::int64_t e = batch(rng);
        a = Shape{e, m, k};
        b = Shape{e, k, n};
        break;
      }
      default: break;
    }
    const std::string d = compare_exact(matmul_case(a, b, rng, 0.02));
    ASSERT_TRUE(d.empty()) << d;
  }
  EXPECT_EQ(tally.override_cases, tally.cases) << tally.summary();
  EXPECT_GT(tally.shared_cases, 0u) << tally.summary();
}

TEST(DiffMatMul, OtherElementTypesGiveTheReferenceBits) {
  CaseTally tally;
  const TallyScope scope(tally);
  std::vector<std::int32_t> a(12), b(20);
  for (std::size_t i = 0; i < a.size(); ++i) a[i] = static_cast<std::int32_t>(i * 7919 % 23) - 11;
  for (std::size_t i = 0; i < b.size(); ++i) b[i] = static_cast<std::int32_t>(i * 104729 % 31) - 15;
  OpCase c;
  c.op = "MatMul";
  c.inputs = {Tensor::from_values<std::int32_t>(DType::I32, Shape{3, 4}, std::span<const std::int32_t>(a)),
              Tensor::from_values<std::int32_t>(DType::I32, Shape{4, 5}, std::span<const std::int32_t>(b))};
  const std::string d = compare_exact(c);
  EXPECT_TRUE(d.empty()) << d;
  std::vector<double> ad(12, 0.25), bd(20, -1.5);
  c.inputs = {Tensor::from_values<double>(DType::F64, Shape{3, 4}, std::span<const double>(ad)),
              Tensor::from_values<double>(DType::F64, Shape{4, 5}, std::span<const double>(bd))};
  const std::string d64 = compare_exact(c);
  EXPECT_TRUE(d64.empty()) << d64;
  // Fallback cases, labelled as such: int32 and float64 run the reference kernel (compared with itself).
  EXPECT_EQ(tally.fallback_cases, 2u) << tally.summary();
}

// Fast mode: every output within 2 k u sum|a b| (+ 1e-30) of the reference's (each is within
// k u sum|a b| of the exact sum, kernels-gemm.md "Fast mode"), and the same bits at 1 and 2
// threads.
TEST(DiffMatMul, FastWithinBoundAndIndependentOfThreads) {
  const std::pair<Shape, Shape> shapes[] = {{Shape{13, 300}, Shape{300, 40}},
                                            {Shape{2, 97, 130}, Shape{130, 129}},
                                            {Shape{64, 20, 64}, Shape{64, 64, 20}}};
  std::mt19937 rng(13);
  for (const auto& [as, bs] : shapes) {
    const OpCase c = matmul_case(as, bs, rng, 0.0);
    const Tensor want = run_reference(c, ExecutionMode::Fast)[0];
    const auto a = c.inputs[0].to_vector<float>();
    const auto b = c.inputs[1].to_vector<float>();
    const std::int64_t k = as[as.rank() - 1], n = bs[bs.rank() - 1], m = as[as.rank() - 2];
    const std::int64_t b_batches = bs.rank() == 3 ? bs[0] : 1;
    for (opt::Isa isa : opt::available_isas()) {
      OptimizedRun run_one, run_two;
      const auto one = run_optimized(c, ExecutionMode::Fast, isa, 1, &run_one);
      const auto two = run_optimized(c, ExecutionMode::Fast, isa, 2, &run_two);
      ASSERT_TRUE(run_one.override_ran && run_two.override_ran) << where(c, "fast", isa, 2, true);
      ASSERT_GT(run_two.shared_calls, 0u) << where(c, "fast", isa, 2, true) << ": not shared by two threads";
      ASSERT_TRUE(first_difference(one, two).empty()) << where(c, "fast", isa, 2, true);
      const auto got = one[0].to_vector<float>();
      const auto ref = want.to_vector<float>();
      for (std::size_t idx = 0; idx < got.size(); ++idx) {
        const std::int64_t bi = static_cast<std::int64_t>(idx) / (m * n);
        const std::int64_t i = static_cast<std::int64_t>(idx) / n % m, j = static_cast<std::int64_t>(idx) % n;
        const std::int64_t b_off = b_batches == 1 ? 0 : bi;
        double magnitude = 0.0;
        for (std::int64_t p = 0; p < k; ++p) {
          magnitude += std::fabs(static_cast<double>(a[static_cast<std::size_t>((bi * m + i) * k + p)]) *
                                 static_cast<double>(b[static_cast<std::size_t>((b_off * k + p) * n + j)]));
        }
        const double bound = 2.0 * static_cast<double>(k) * std::ldexp(1.0, -24) * magnitude + 1e-30;
        ASSERT_LE(std::fabs(static_cast<double>(got[idx]) - static_cast<double>(ref[idx])), bound)
            << where(c, "fast", isa, 1, true) << " output " << idx;
      }
    }
  }
}

// The overrides without prepare() (no plan state: an engine that skips it, or shapes other than
// the plan's) must still give the reference's bits.
// `shared` (when given) gets the calls two threads shared.
std::vector<Tensor> run_override_unprepared(const OpCase& c, opt::Isa isa, int threads,
                                            std::uint64_t* shared = nullptr) {
  IrNode node;
  node.op_type = c.op;
  node.name = c.op + "_unprepared";
  node.opset = c.opset;
  for (std::size_t i = 0; i < c.inputs.size(); ++i) node.inputs.push_back("in" + std::to_string(i));
  node.outputs = {"out"};
  node.attributes = c.attributes;
  const NodeInfo info(node, c.opset, ExecutionMode::Exact);
  opt::ThreadPool pool(threads, threads > 1 ? opt::ThreadPool::Sharing::Always : opt::ThreadPool::Sharing::ByEstimate);
  const auto kernel = opt::find_optimized_op("", c.op, c.opset)->factory(info, opt::OptimizedConfig{isa, &pool});
  std::vector<InferInput> described;
  for (const Tensor& t : c.inputs) described.push_back(InferInput{true, t.dtype(), t.shape(), nullptr});
  std::vector<InferOutput> stated(1);
  stated[0].wanted = true;
  InferContext infer(info, described, stated);
  kernel->infer(infer);
  std::vector<Tensor> outputs{Tensor::empty(stated[0].type, stated[0].shape)};
  RunContext run(info, c.inputs, outputs, nullptr, nullptr);
  kernel->run(run);
  if (shared != nullptr) *shared += pool.shared_calls();
  return outputs;
}

TEST(DiffMatMul, ExactWithoutPlanState) {
  std::mt19937 rng(14);
  std::uint64_t shared = 0;
  const std::pair<Shape, Shape> shapes[] = {
      {Shape{2, 1, 5, 6}, Shape{3, 6, 4}}, {Shape{7}, Shape{7, 3}}, {Shape{97, 300}, Shape{300, 129}}};
  for (const auto& [a, b] : shapes) {
    const OpCase c = matmul_case(a, b, rng, 0.03);
    const auto want = run_reference(c, ExecutionMode::Exact);
    for (opt::Isa isa : opt::available_isas()) {
      for (int threads : {1, 2}) {
        const std::string d = first_difference(want, run_override_unprepared(c, isa, threads, &shared));
        ASSERT_TRUE(d.empty()) << where(c, "exact unprepared", isa, threads, false) << ": " << d;
      }
    }
  }
  EXPECT_GT(shared, 0u) << "no call was shared by two threads";
}

OpCase gemm_case(std::int64_t opset, std::int64_t m, std::int64_t k, std::int64_t n, bool trans_a, bool trans_b,
                 float alpha, float beta, const Shape* c_shape, std::mt19937& rng, double special_rate) {
  OpCase c;
  c.op = "Gemm";
  c.opset = opset;
  c.attributes = {int_attr("transA", trans_a ? 1 : 0), int_attr("transB", trans_b ? 1 : 0), float_attr("alpha", alpha),
                  float_attr("beta", beta)};
  c.inputs = {f32_tensor(trans_a ? Shape{k, m} : Shape{m, k}, rng, special_rate),
              f32_tensor(trans_b ? Shape{n, k} : Shape{k, n}, rng, special_rate)};
  if (c_shape != nullptr) c.inputs.push_back(f32_tensor(*c_shape, rng, special_rate));
  return c;
}

TEST(DiffGemm, ExactTransposesScalarsAndBroadcastsOnEveryPath) {
  CaseTally tally;
  const TallyScope scope(tally);
  std::mt19937 rng(21);
  const std::int64_t dims[][3] = {{5, 7, 9}, {1, 1, 1}, {33, 70, 17}, {97, 300, 129}, {4, 0, 6}};
  const float scalars[][2] = {{1.0f, 1.0f}, {0.5f, -2.0f}, {-1.25f, 0.0f}, {3.0e38f, 3.0e38f}};
  for (const auto& d : dims) {
    const std::int64_t m = d[0], k = d[1], n = d[2];
    const Shape c_shapes[] = {Shape{m, n}, Shape{n}, Shape{1, n}, Shape{m, 1}, Shape{1, 1}, Shape{}};
    for (int trans = 0; trans < 4; ++trans) {
      for (const auto& s : scalars) {
        for (int ci = -1; ci < 6; ++ci) {
          const Shape* c_shape = ci < 0 ? nullptr : &c_shapes[ci];
          const std::int64_t opset = ci < 0 ? 13 : (ci % 2 == 0 ? 11 : 7);
          const OpCase c = gemm_case(opset, m, k, n, (trans & 1) != 0, (trans & 2) != 0, s[0], s[1], c_shape, rng,
                                     (ci + trans) % 2 == 0 ? 0.03 : 0.0);
          const std::string diff = compare_exact(c);
          ASSERT_TRUE(diff.empty()) << diff << " transA " << (trans & 1) << " transB " << (trans >> 1) << " alpha "
                                    << s[0] << " beta " << s[1];
        }
      }
    }
  }
  // Every case runs the override (560: 5 sizes x 4 transposes x 4 scalar pairs x 7 C forms).
  EXPECT_EQ(tally.override_cases, 560u) << tally.summary();
  EXPECT_GT(tally.shared_cases, 0u) << tally.summary();
}

TEST(DiffGemm, ExactWithoutPlanState) {
  std::mt19937 rng(23);
  const Shape c_shape{1, 129};
  const OpCase c = gemm_case(13, 97, 300, 129, true, true, 0.75f, -1.5f, &c_shape, rng, 0.03);
  const auto want = run_reference(c, ExecutionMode::Exact);
  std::uint64_t shared = 0;
  for (opt::Isa isa : opt::available_isas()) {
    for (int threads : {1, 2}) {
      const std::string d = first_difference(want, run_override_unprepared(c, isa, threads, &shared));
      ASSERT_TRUE(d.empty()) << where(c, "exact unprepared", isa, threads, false) << ": " << d;
    }
  }
  EXPECT_GT(shared, 0u) << "no call was shared by two threads";
}

// Fast mode: Y = alpha * acc + beta * C with acc within k u sum|a b| of the exact sum in both
// engines (kernels-gemm.md "Fast mode"), then three roundings of the epilogue; so the two
// engines differ by at most |alpha| 2 k u sum|a b| + 4 u (|alpha acc| + |beta c|) (+ 1e-30).
TEST(DiffGemm, FastWithinBoundOfTheReference) {
  std::mt19937 rng(24);
  const Shape c_shape{33, 1};
  const std::int64_t m = 33, k = 300, n = 70;
  const float alpha = 0.75f, beta = -1.5f;
  const OpCase c = gemm_case(13, m, k, n, true, false, alpha, beta, &c_shape, rng, 0.0);
  const auto a = c.inputs[0].to_vector<float>();  // [k, m]: transA
  const auto b = c.inputs[1].to_vector<float>();  // [k, n]
  const auto cv = c.inputs[2].to_vector<float>(); // [m, 1]
  const auto ref = run_reference(c, ExecutionMode::Fast)[0].to_vector<float>();
  const double u = std::ldexp(1.0, -24);
  for (opt::Isa isa : opt::available_isas()) {
    OptimizedRun run;
    const auto got = run_optimized(c, ExecutionMode::Fast, isa, 1, &run)[0].to_vector<float>();
    ASSERT_TRUE(run.override_ran) << opt::isa_name(isa);
    for (std::int64_t i = 0; i < m; ++i) {
      for (std::int64_t j = 0; j < n; ++j) {
        double sum = 0.0, magnitude = 0.0;
        for (std::int64_t p = 0; p < k; ++p) {
          const double prod = static_cast<double>(a[static_cast<std::size_t>(p * m + i)]) *
                              static_cast<double>(b[static_cast<std::size_t>(p * n + j)]);
          sum += prod;
          magnitude += std::fabs(prod);
        }
        const double scaled_c = std::fabs(static_cast<double>(beta) * cv[static_cast<std::size_t>(i)]);
        const double bound = std::fabs(alpha) * 2.0 * static_cast<double>(k) * u * magnitude +
                             4.0 * u * (std::fabs(alpha * sum) + scaled_c) + 1e-30;
        const std::size_t idx = static_cast<std::size_t>(i * n + j);
        ASSERT_LE(std::fabs(static_cast<double>(got[idx]) - static_cast<double>(ref[idx])), bound)
            << opt::isa_name(isa) << " at (" << i << "," << j << ")";
      }
    }
  }
}

TEST(DiffGemm, FastIndependentOfThreads) {
  std::mt19937 rng(22);
  const Shape c_shape{129};
  const OpCase c = gemm_case(13, 97, 300, 129, false, true, 0.75f, -1.5f, &c_shape, rng, 0.0);
  for (opt::Isa isa : opt::available_isas()) {
    OptimizedRun run_one, run_two;
    const auto one = run_optimized(c, ExecutionMode::Fast, isa, 1, &run_one);
    const auto two = run_optimized(c, ExecutionMode::Fast, isa, 2, &run_two);
    EXPECT_TRUE(run_one.override_ran && run_two.override_ran) << opt::isa_name(isa);
    EXPECT_GT(run_two.shared_calls, 0u) << opt::isa_name(isa) << ": not shared by two threads";
    EXPECT_TRUE(first_difference(one, two).empty()) << opt::isa_name(isa);
  }
}

}  // namespace
}  // namespace onemodel::diff
