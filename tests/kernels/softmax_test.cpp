// Kernel tests of the vectorized exponentials (optimized/kernels/vexp) and the softmax rows
// (optimized/kernels/softmax) against the naive definitions of attn_naive_definitions.hpp, written
// from exact-transcendentals.md, kernels-attention.md and ops-norms.md. Exact mode: the same bits
// on every available path and at 1 and 2 threads; fast mode: within stated bounds of double math.
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
#include "optimized/kernels/softmax/softmax.hpp"
#include "optimized/kernels/vexp/vexp.hpp"
#include "tests/kernels/attn_naive_definitions.hpp"
#include "tests/kernels/two_threads.hpp"
#include "optimized/kernels/softmax/softmax_variants.hpp"
#include "optimized/kernels/vexp/vexp_variants.hpp"
#include "tests/kernels/variant_paths.hpp"

namespace {

using namespace onemodel::opt;
using attn_naive::bits;
using attn_naive::from_bits;

// Every listed variant of the family that this machine runs (its registry list, kernel_registry.hpp).
std::vector<Isa> softmax_variant_paths() { return onemodel::opt::kernel_tests::variant_paths(softmax_variants()); }

// Every listed variant of the family that this machine runs (its registry list, kernel_registry.hpp).
std::vector<Isa> vexp_variant_paths() { return onemodel::opt::kernel_tests::variant_paths(vexp_variants()); }

std::string where(Isa isa, int threads) {
  return std::string(isa_name(isa)) + " threads " + std::to_string(threads);
}

std::vector<float> special_values() {
  return {0.0f, -0.0f, -1e-45f, -1e-40f, -1.17549435e-38f, -1.0f, -0.5f, -87.33654f, -87.3365f, -87.34f, -88.0f,
          -103.9f, -104.0f, -1000.0f, -std::numeric_limits<float>::infinity(), std::nanf(""), -std::nanf(""),
          from_bits(0x7F800001u), from_bits(0xFFC12345u), -3.4028235e38f, -0.6931472f, -1e-7f};
}

TEST(VexpTest, ExpNonPositiveMatchesTheDefinitionBitForBit) {
  std::vector<float> x = special_values();
  // Every 997th bit pattern of the non-positive floats (and NaNs beyond them).
  for (std::uint64_t b = 0x80000000u; b <= 0xFFFFFFFFu; b += 997) x.push_back(from_bits(static_cast<std::uint32_t>(b)));
  for (Isa isa : vexp_variant_paths()) {
    std::vector<float> y(x.size());
    exp_non_positive_f32(isa, x.data(), y.data(), x.size());
    for (std::size_t i = 0; i < x.size(); ++i) {
      ASSERT_EQ(bits(y[i]), bits(attn_naive::exp_non_positive(x[i])))
          << isa_name(isa) << " x=" << x[i] << " bits " << std::hex << bits(x[i]);
    }
  }
}

TEST(VexpTest, FastExpIsWithinThreeUlpsOnItsRange) {
  std::vector<float> x;
  for (float v = -87.0f; v <= 88.0f; v += 0.0137f) x.push_back(v);
  for (Isa isa : vexp_variant_paths()) {
    std::vector<float> y(x.size());
    fast_exp_f32(isa, x.data(), y.data(), x.size());
    for (std::size_t i = 0; i < x.size(); ++i) {
      const double want = std::exp(static_cast<double>(x[i]));
      const float wf = static_cast<float>(want);
      const double ulp = std::nextafter(wf, std::numeric_limits<float>::infinity()) - wf;
      // exact-transcendentals.md, "Fast exponential": about 2.3 ulp.
      ASSERT_LE(std::fabs(y[i] - want) / ulp, 3.0) << isa_name(isa) << " x=" << x[i];
    }
    const float specials[] = {-87.31f, -100.0f, -std::numeric_limits<float>::infinity(), std::nanf("")};
    float out[4];
    fast_exp_f32(isa, specials, out, 4);
    EXPECT_EQ(bits(out[0]), 0u);
    EXPECT_EQ(bits(out[1]), 0u);
    EXPECT_EQ(bits(out[2]), 0u);
    EXPECT_TRUE(std::isnan(out[3]));
  }
}

struct Rows {
  std::size_t rows, cols;
  std::vector<float> x;
};

Rows random_rows(std::mt19937& rng, std::size_t rows, std::size_t cols, bool specials) {
  std::normal_distribution<float> normal(0.0f, 3.0f);
  std::uniform_int_distribution<int> pick(0, 40);
  Rows r{rows, cols, std::vector<float>(rows * cols)};
  for (float& v : r.x) {
    v = normal(rng);
    if (!specials) continue;
    switch (pick(rng)) {
      case 0: v = -std::numeric_limits<float>::infinity(); break;
      case 1: v = -0.0f; break;
      case 2: v = 0.0f; break;
      case 3: v = -200.0f; break;
      default: break;
    }
  }
  return r;
}

void check_exact_softmax(const Rows& r, bool log) {
  const auto log_fn = [](float v) { return std::log(v); };
  std::vector<float> want(r.x.size());
  for (std::size_t i = 0; i < r.rows; ++i) {
    std::vector<float> row(r.x.begin() + static_cast<std::ptrdiff_t>(i * r.cols),
                           r.x.begin() + static_cast<std::ptrdiff_t>((i + 1) * r.cols));
    const std::vector<float> y = log ? attn_naive::log_softmax(row, log_fn) : attn_naive::softmax(row);
    std::copy(y.begin(), y.end(), want.begin() + static_cast<std::ptrdiff_t>(i * r.cols));
  }
  ThreadPool pool(2, ThreadPool::Sharing::Always);
  for (Isa isa : softmax_variant_paths()) {
    for (int threads : {1, 2}) {
      const KernelContext context{isa, true, threads == 2 ? &pool : nullptr};
      std::vector<float> y(r.x.size(), 123.0f);
      if (log) log_softmax_rows_f32(context, r.x.data(), y.data(), r.rows, r.cols, [](float v) { return std::log(v); });
      else softmax_rows_f32(context, r.x.data(), y.data(), r.rows, r.cols);
      for (std::size_t i = 0; i < y.size(); ++i) {
        ASSERT_EQ(bits(y[i]), bits(want[i])) << where(isa, threads) << " rows " << r.rows << " cols " << r.cols
                                             << " at " << i << " got " << y[i] << " want " << want[i];
      }
    }
  }
}

TEST(SoftmaxKernelTest, ExactMatchesTheDefinitionOnEveryPathAndThreadCount) {
  const onemodel::opt::two_threads::RequireSharedCalls shared_calls("SoftmaxKernelTest.ExactMatchesTheDefinitionOnEveryPathAndThreadCount");
  std::mt19937 rng(7);
  for (std::size_t cols : {1, 2, 3, 7, 15, 16, 17, 31, 33, 64, 100, 1000, 20000}) {
    for (bool specials : {false, true}) {
      check_exact_softmax(random_rows(rng, cols > 1000 ? 3 : 37, cols, specials), false);
      check_exact_softmax(random_rows(rng, cols > 1000 ? 3 : 37, cols, specials), true);
    }
  }
}

// Special rows, not a thread test: 20 elements are one chunk (the thread split is shown by the
// tests above and below).
TEST(SoftmaxKernelTest, NanInfAndFullyNegativeInfiniteRowsAreAllNan) {
  const float inf = std::numeric_limits<float>::infinity();
  Rows r{4, 5, {1, 2, std::nanf(""), 3, 4,  //
                1, inf, 2, 3, 4,            //
                -inf, -inf, -inf, -inf, -inf,  //
                -inf, 0, -inf, 1, -inf}};
  check_exact_softmax(r, false);
  check_exact_softmax(r, true);
  std::vector<float> y(20);
  softmax_rows_f32(KernelContext{available_isas().back(), true, nullptr}, r.x.data(), y.data(), 4, 5);
  for (int j = 0; j < 15; ++j) EXPECT_EQ(bits(y[j]), 0x7FC00000u) << j;
  EXPECT_EQ(bits(y[15]), 0u);
}

#if ONEMODEL_HAVE_RAPIDCHECK
TEST(SoftmaxKernelTest, RandomShapesExact) {
  const onemodel::opt::two_threads::RequireSharedCalls shared_calls("SoftmaxKernelTest.RandomShapesExact");
  EXPECT_TRUE(rc::check("softmax exact equals the definition", [](std::uint8_t rows_in, std::uint16_t cols_in, std::uint32_t seed) {
    std::mt19937 rng(seed);
    // Up to 24 x 2000 elements: past the kernel's chunk of 16384 elements, so two threads can
    // share a call (below it every call is one chunk, which no thread count can change).
    check_exact_softmax(random_rows(rng, 1 + rows_in % 24, 1 + cols_in % 2000, seed % 2 == 0), seed % 3 == 0);
  }));
}
#endif  // ONEMODEL_HAVE_RAPIDCHECK

TEST(SoftmaxKernelTest, FastIsCloseToDoubleAndThreadIndependent) {
  const onemodel::opt::two_threads::RequireSharedCalls shared_calls("SoftmaxKernelTest.FastIsCloseToDoubleAndThreadIndependent");
  std::mt19937 rng(11);
  ThreadPool pool(2, ThreadPool::Sharing::Always);
  for (std::size_t cols : {5, 64, 129, 3000}) {
    const Rows r = random_rows(rng, 20, cols, false);
    for (Isa isa : softmax_variant_paths()) {
      std::vector<float> y1(r.x.size()), y2(r.x.size()), l1(r.x.size());
      softmax_rows_f32(KernelContext{isa, false, nullptr}, r.x.data(), y1.data(), r.rows, cols);
      softmax_rows_f32(KernelContext{isa, false, &pool}, r.x.data(), y2.data(), r.rows, cols);
      log_softmax_rows_f32(KernelContext{isa, false, nullptr}, r.x.data(), l1.data(), r.rows, cols,
                           [](float v) { return std::log(v); });
      ASSERT_EQ(0, std::memcmp(y1.data(), y2.data(), y1.size() * 4)) << isa_name(isa);
      for (std::size_t i = 0; i < r.rows; ++i) {
        double m = -1e300, l = 0;
        for (std::size_t j = 0; j < cols; ++j) m = std::max(m, static_cast<double>(r.x[i * cols + j]));
        for (std::size_t j = 0; j < cols; ++j) l += std::exp(r.x[i * cols + j] - m);
        for (std::size_t j = 0; j < cols; ++j) {
          const double want = std::exp(r.x[i * cols + j] - m) / l;
          // Fast exponential 2.3 ulp + the sum and the reciprocal: 1e-6 relative, 1e-12 absolute.
          ASSERT_NEAR(y1[i * cols + j], want, 1e-6 * want + 1e-12) << isa_name(isa) << " cols " << cols;
          ASSERT_NEAR(l1[i * cols + j], std::log(want), 2e-5 * std::fabs(std::log(want)) + 2e-6) << isa_name(isa);
        }
      }
    }
  }
}

// The family's registry list has the form docs/design.md ("Kernel registry") states, and every
// variant this machine runs is the one dispatched on its own path (variant_paths.hpp).
TEST(SoftmaxRegistry, ListFormAndDispatch) {
  onemodel::opt::kernel_tests::expect_registry_form(softmax_variants(), "f32_softmax");
  EXPECT_FALSE(softmax_variant_paths().empty());
}

}  // namespace
