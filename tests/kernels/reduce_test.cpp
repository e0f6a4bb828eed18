// Kernel tests of the canonical 16-partial sum and the float32 reductions
// (optimized/kernels/reduce) against naive definitions from ops-norms.md ("The canonical sum",
// "Reductions"): the same bits on every available path and at 1 and 2 threads.
#include <gtest/gtest.h>
// rapidcheck exists only natively: the aarch64 and wasm kernel tests (tools/cross/) build without it.
#if ONEMODEL_HAVE_RAPIDCHECK
#include <rapidcheck.h>
#endif  // ONEMODEL_HAVE_RAPIDCHECK

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "optimized/frame/thread_pool.hpp"
#include "optimized/kernels/reduce/reduce.hpp"
#include "tests/kernels/attn_naive_definitions.hpp"
#include "tests/kernels/two_threads.hpp"
#include "optimized/kernels/reduce/reduce_variants.hpp"
#include "tests/kernels/variant_paths.hpp"

namespace {

using namespace onemodel::opt;
using attn_naive::bits;

// Every listed variant of the family that this machine runs (its registry list, kernel_registry.hpp).
std::vector<Isa> reduce_variant_paths() { return onemodel::opt::kernel_tests::variant_paths(reduce_variants()); }

float term_of(ReduceTerm term, float v) {
  if (term == ReduceTerm::Square) return v * v;
  if (term == ReduceTerm::Abs) return std::fabs(v);
  return v;
}

// ops-norms.md, "Reductions": row layout sums are Sum16 over the sequence, column layout sums are
// sequential from +0; extremes are a sequential scan from the first element.
std::vector<float> naive_reduce(ReduceKind kind, ReduceTerm term, const std::vector<float>& x, std::size_t outer,
                                std::size_t reduced, std::size_t inner) {
  std::vector<float> out(outer * inner);
  for (std::size_t o = 0; o < outer; ++o) {
    for (std::size_t c = 0; c < inner; ++c) {
      std::vector<float> seq;
      for (std::size_t k = 0; k < reduced; ++k) seq.push_back(x[(o * reduced + k) * inner + c]);
      float r;
      if (kind == ReduceKind::Sum) {
        std::vector<float> terms;
        for (float v : seq) terms.push_back(term_of(term, v));
        if (inner == 1) {
          r = attn_naive::sum16(terms);
        } else {
          r = 0.0f;
          for (float t : terms) r = r + t;
        }
      } else {
        const bool is_max = kind == ReduceKind::Max;
        r = is_max ? -INFINITY : INFINITY;
        for (std::size_t k = 0; k < seq.size(); ++k) {
          if (k == 0 || (is_max ? seq[k] > r : seq[k] < r)) r = seq[k];
        }
      }
      out[o * inner + c] = r;
    }
  }
  return out;
}

std::vector<float> values(std::mt19937& rng, std::size_t n, bool specials) {
  std::normal_distribution<float> normal(0.0f, 10.0f);
  std::uniform_int_distribution<int> pick(0, 30);
  std::vector<float> x(n);
  for (float& v : x) {
    v = normal(rng);
    if (!specials) continue;
    switch (pick(rng)) {
      case 0: v = std::nanf(""); break;
      case 1: v = INFINITY; break;
      case 2: v = -INFINITY; break;
      case 3: v = 0.0f; break;
      case 4: v = -0.0f; break;
      case 5: v = 1e-41f; break;
      case 6: v = -3e-39f; break;
      default: break;
    }
  }
  return x;
}

bool same_bits_or_both_nan(float a, float b) { return bits(a) == bits(b) || (std::isnan(a) && std::isnan(b)); }

void check(ReduceKind kind, ReduceTerm term, const std::vector<float>& x, std::size_t outer, std::size_t reduced,
           std::size_t inner) {
  const std::vector<float> want = naive_reduce(kind, term, x, outer, reduced, inner);
  ThreadPool pool(2, ThreadPool::Sharing::Always);
  for (Isa isa : reduce_variant_paths()) {
    for (int threads : {1, 2}) {
      std::vector<float> out(outer * inner, 77.0f);
      reduce_f32(KernelContext{isa, true, threads == 2 ? &pool : nullptr}, kind, term, x.data(), out.data(), outer,
                 reduced, inner);
      for (std::size_t i = 0; i < out.size(); ++i) {
        // The kernel stores NaN as it comes (the operator canonicalises): compare NaN as NaN.
        ASSERT_TRUE(same_bits_or_both_nan(out[i], want[i]))
            << isa_name(isa) << " threads " << threads << " kind " << static_cast<int>(kind) << " term "
            << static_cast<int>(term) << " shape " << outer << "x" << reduced << "x" << inner << " at " << i << " got "
            << out[i] << " want " << want[i];
      }
    }
  }
}

TEST(Sum16Test, MatchesTheCanonicalOrder) {
  std::mt19937 rng(3);
  for (std::size_t n : {0, 1, 5, 15, 16, 17, 31, 32, 33, 63, 64, 65, 1000, 4097}) {
    for (bool specials : {false, true}) {
      const std::vector<float> x = values(rng, n, specials);
      const float want = attn_naive::sum16(x);
      for (Isa isa : reduce_variant_paths()) {
        EXPECT_TRUE(same_bits_or_both_nan(sum16_f32(isa, x.data(), n), want)) << isa_name(isa) << " n " << n;
      }
    }
  }
}

TEST(Sum16Test, OrderIsNotSequential) {
  // A case where the canonical order and a sequential sum differ, so the test above can fail.
  std::vector<float> x(17, 1.0f);
  x[0] = 1e8f;
  float sequential = 0.0f;
  for (float v : x) sequential = sequential + v;
  const float canonical = attn_naive::sum16(x);
  EXPECT_NE(bits(sequential), bits(canonical));
  for (Isa isa : reduce_variant_paths()) EXPECT_EQ(bits(sum16_f32(isa, x.data(), x.size())), bits(canonical));
}

TEST(ReduceKernelTest, EveryKindTermAndLayout) {
  const onemodel::opt::two_threads::RequireSharedCalls shared_calls("ReduceKernelTest.EveryKindTermAndLayout");
  std::mt19937 rng(5);
  const ReduceTerm terms[] = {ReduceTerm::Identity, ReduceTerm::Square, ReduceTerm::Abs};
  const std::size_t shapes[][3] = {{1, 1, 1},   {3, 17, 1},  {2, 100, 1}, {1, 5000, 1}, {4, 3, 7},
                                   {2, 9, 300}, {1, 64, 33}, {5, 1, 9},   {7, 0, 1},    {3, 0, 5},
                                   // Past the chunk of 32768 elements of work: 3 chunks of 16
                                   // rows, and 9 column tiles of one chunk each.
                                   {40, 2000, 1}, {3, 200, 600}};
  for (const auto& s : shapes) {
    for (bool specials : {false, true}) {
      const std::vector<float> x = values(rng, s[0] * s[1] * s[2], specials);
      for (ReduceTerm term : terms) check(ReduceKind::Sum, term, x, s[0], s[1], s[2]);
      check(ReduceKind::Max, ReduceTerm::Identity, x, s[0], s[1], s[2]);
      check(ReduceKind::Min, ReduceTerm::Identity, x, s[0], s[1], s[2]);
    }
  }
}

// Not a thread test: each case is one chunk.
TEST(ReduceKernelTest, ExtremesFollowTheSequentialScan) {
  const float nan = std::nanf("");
  // A NaN first element wins; a later NaN is ignored; the first of equal zeros is kept.
  check(ReduceKind::Max, ReduceTerm::Identity, {nan, 1, 2, 3, 4, 5, 6, 7, 8, 9}, 1, 10, 1);
  check(ReduceKind::Max, ReduceTerm::Identity, {1, nan, 2, 3, 4, 5, 6, 7, 8, 9}, 1, 10, 1);
  check(ReduceKind::Max, ReduceTerm::Identity, {-1, -2, -0.0f, -3, 0.0f, -5, -6, -7, 0.0f, -9, -0.0f}, 1, 11, 1);
  check(ReduceKind::Min, ReduceTerm::Identity, {1, 2, 0.0f, 3, -0.0f, 5, 6, 7, 8, 9, -0.0f, 4}, 1, 12, 1);
  check(ReduceKind::Max, ReduceTerm::Identity, {nan, 1, nan, 2, 0.0f, -0.0f, -0.0f, 0.0f}, 1, 2, 4);
}

#if ONEMODEL_HAVE_RAPIDCHECK
// Not a thread test: rapidcheck's geometries are mostly one chunk (EveryKindTermAndLayout shares).
TEST(ReduceKernelTest, RandomGeometries) {
  EXPECT_TRUE(rc::check("reduce equals the naive order", [](std::uint8_t o, std::uint16_t r, std::uint16_t i, std::uint32_t seed) {
    std::mt19937 rng(seed);
    const std::size_t outer = 1 + o % 5, reduced = r % 200, inner = 1 + (i % 3 == 0 ? 0 : i % 70);
    const std::vector<float> x = values(rng, outer * reduced * inner, seed % 2 == 0);
    const ReduceKind kind = seed % 3 == 0 ? ReduceKind::Sum : seed % 3 == 1 ? ReduceKind::Max : ReduceKind::Min;
    check(kind, kind == ReduceKind::Sum ? static_cast<ReduceTerm>(seed / 3 % 3) : ReduceTerm::Identity, x, outer,
          reduced, inner);
  }));
}
#endif  // ONEMODEL_HAVE_RAPIDCHECK

// The family's registry list has the form docs/design.md ("Kernel registry") states, and every
// variant this machine runs is the one dispatched on its own path (variant_paths.hpp).
TEST(ReduceRegistry, ListFormAndDispatch) {
  onemodel::opt::kernel_tests::expect_registry_form(reduce_variants(), "f32_reduce");
  EXPECT_FALSE(reduce_variant_paths().empty());
}

}  // namespace
