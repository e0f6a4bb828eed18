// Kernel tests of LayerNormalization / RMSNormalization rows (optimized/kernels/layernorm) against a
// naive definition from ops-norms.md, "LayerNormalization, RMSNormalization": the same bits on
// every available path, in exact and fast mode, at 1 and 2 threads.
#include <gtest/gtest.h>
// rapidcheck exists only natively: the aarch64 and wasm kernel tests (tools/cross/) build without it.
#if ONEMODEL_HAVE_RAPIDCHECK
#include <rapidcheck.h>
#endif  // ONEMODEL_HAVE_RAPIDCHECK

#include <cmath>
#include <random>
#include <vector>

#include "optimized/frame/thread_pool.hpp"
#include "optimized/kernels/layernorm/layernorm.hpp"
#include "tests/kernels/attn_naive_definitions.hpp"
#include "tests/kernels/two_threads.hpp"
#include "optimized/kernels/layernorm/layernorm_variants.hpp"
#include "tests/kernels/variant_paths.hpp"

namespace {

using namespace onemodel::opt;
using attn_naive::bits;

// Every listed variant of the family that this machine runs (its registry list, kernel_registry.hpp).
std::vector<Isa> layernorm_variant_paths() { return onemodel::opt::kernel_tests::variant_paths(layernorm_variants()); }

struct Expected {
  std::vector<float> y, mean, inv;
};

// Steps 1-4 of the spec section, literally.
Expected naive(const std::vector<float>& x, std::size_t rows, std::size_t cols, const std::vector<float>& scale,
               const std::vector<float>* bias, float eps, bool rms) {
  Expected e{std::vector<float>(x.size()), std::vector<float>(rows), std::vector<float>(rows)};
  const float n = static_cast<float>(cols);
  for (std::size_t r = 0; r < rows; ++r) {
    std::vector<float> row(x.begin() + static_cast<std::ptrdiff_t>(r * cols),
                           x.begin() + static_cast<std::ptrdiff_t>((r + 1) * cols));
    const float mean = rms ? 0.0f : attn_naive::sum16(row) / n;
    std::vector<float> sq(cols);
    for (std::size_t j = 0; j < cols; ++j) {
      const float d = row[j] - mean;
      sq[j] = d * d;
    }
    const float v = attn_naive::sum16(sq) / n;
    const float inv = 1.0f / std::sqrt(v + eps);
    for (std::size_t j = 0; j < cols; ++j) {
      float y = ((row[j] - mean) * inv) * scale[j];
      if (bias != nullptr) y = y + (*bias)[j];
      e.y[r * cols + j] = attn_naive::canonical(y);
    }
    e.mean[r] = attn_naive::canonical(mean);
    e.inv[r] = attn_naive::canonical(inv);
  }
  return e;
}

void check(std::mt19937& rng, std::size_t rows, std::size_t cols, bool with_bias, bool rms, bool specials) {
  std::normal_distribution<float> normal(0.5f, 2.0f);
  std::uniform_int_distribution<int> pick(0, 60);
  std::vector<float> x(rows * cols), scale(cols), bias(cols);
  for (float& v : x) {
    v = normal(rng);
    if (specials) {
      const int p = pick(rng);
      if (p == 0) v = std::nanf("");
      if (p == 1) v = INFINITY;
      if (p == 2) v = -0.0f;
      if (p == 3) v = 1e-42f;
    }
  }
  for (float& v : scale) v = normal(rng);
  for (float& v : bias) v = normal(rng);
  const float eps = 1e-5f;
  const Expected want = naive(x, rows, cols, scale, with_bias ? &bias : nullptr, eps, rms);
  ThreadPool pool(2, ThreadPool::Sharing::Always);
  for (Isa isa : layernorm_variant_paths()) {
    for (bool exact : {true, false}) {
      for (int threads : {1, 2}) {
        std::vector<float> y(x.size()), mean(rows), inv(rows);
        LayerNormArgs a;
        a.x = x.data();
        a.y = y.data();
        a.rows = rows;
        a.cols = cols;
        a.scale = scale.data();
        a.bias = with_bias ? bias.data() : nullptr;
        a.epsilon = eps;
        a.rms = rms;
        a.mean = mean.data();
        a.inv_std_dev = inv.data();
        layer_norm_f32(KernelContext{isa, exact, threads == 2 ? &pool : nullptr}, a);
        for (std::size_t i = 0; i < y.size(); ++i) {
          ASSERT_EQ(bits(y[i]), bits(want.y[i])) << isa_name(isa) << " threads " << threads << " exact " << exact
                                                 << " " << rows << "x" << cols << " at " << i;
        }
        for (std::size_t r = 0; r < rows; ++r) {
          ASSERT_EQ(bits(mean[r]), bits(want.mean[r])) << isa_name(isa);
          ASSERT_EQ(bits(inv[r]), bits(want.inv[r])) << isa_name(isa);
        }
      }
    }
  }
}

TEST(LayerNormKernelTest, MatchesTheDefinition) {
  const onemodel::opt::two_threads::RequireSharedCalls shared_calls("LayerNormKernelTest.MatchesTheDefinition");
  std::mt19937 rng(9);
  for (std::size_t cols : {1, 2, 7, 16, 17, 33, 100, 768, 20000}) {
    for (bool bias : {false, true}) {
      for (bool rms : {false, true}) check(rng, cols > 1000 ? 3 : 21, cols, bias, rms, cols == 33);
    }
  }
}

#if ONEMODEL_HAVE_RAPIDCHECK
TEST(LayerNormKernelTest, RandomShapes) {
  const onemodel::opt::two_threads::RequireSharedCalls shared_calls("LayerNormKernelTest.RandomShapes");
  EXPECT_TRUE(rc::check("layer norm equals the definition", [](std::uint16_t r, std::uint16_t c, std::uint32_t seed) {
    std::mt19937 rng(seed);
    // Up to 200 x 400 elements: past the kernel's chunk of 16384 elements, so two threads can
    // share a call (below it every call is one chunk, which no thread count can change).
    check(rng, 1 + r % 200, 1 + c % 400, seed % 2 == 0, seed % 5 == 0, seed % 3 == 0);
  }));
}
#endif  // ONEMODEL_HAVE_RAPIDCHECK

// The family's registry list has the form docs/design.md ("Kernel registry") states, and every
// variant this machine runs is the one dispatched on its own path (variant_paths.hpp).
TEST(LayerNormRegistry, ListFormAndDispatch) {
  onemodel::opt::kernel_tests::expect_registry_form(layernorm_variants(), "f32_layernorm");
  EXPECT_FALSE(layernorm_variant_paths().empty());
}

}  // namespace
